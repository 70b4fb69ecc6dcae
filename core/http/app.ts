import type { OpenAPIHono } from '@hono/zod-openapi';
import { DEFAULT_TOKEN_TTL_DAYS } from '../auth/sessions';
import { LoginThrottle } from '../auth/throttle';
import type { HttpOptions } from './options';
import type { Engine } from '../engine';
import { docsRoutes } from './docs';
import type { AppEnv } from './env';
import { requireToken } from './middleware/auth';
import { requireMembership } from './middleware/company';
import { crossSiteGuard } from './middleware/cross-site';
import { hostGuard } from './middleware/host';
import { refuseUntypeableText } from './middleware/typeable-text';
import { createRouter } from './openapi';
import { PUBLIC_WEBHOOKS } from '../webhooks/destination';
import { forwardedAddress } from './context';
import { errorToResponse, problem } from './problem';
import { limitBody } from './middleware/body-limit';
import { uploadSlots } from './middleware/upload-slots';
import { portalRoutes } from './portal';
import { portalApiRoutes } from './routes/portal';
import { PortalLimiter } from '../portal/limits';
import { rendererRoutes } from './renderer';
import { publicAuthRoutes } from './routes/auth';
import { protectedRoutes } from './routes/index';
import { setupRoutes } from './routes/setup';
import { syncRoutes } from './routes/sync';
import { syncDesktopRoutes } from './routes/sync-desktop';
import { ANY_MAIL_ENDPOINT, TEAM_MAIL_ENDPOINT } from '../email/endpoints';
import { type AppFetch, replayOf } from '../sync/operation';
import { syncedWrites } from './middleware/sync-outbox';
import { createPokeHub } from '../sync/pokes';
import { createSyncSession } from '../sync/session';
import { DEFAULT_SYNC_INTERVAL_MS } from '../sync/loop';

/** Every route that takes a password (or is sync), refused over plain HTTP on a network address. */
const CREDENTIAL_ROUTES = /^\/api\/v1\/(auth\/login|auth\/tokens|setup|sync)(\/|$)|^\/api\/companies\/[^/]+\/(members|email-connections)(\/|$)/;

/** Paths served without a token; the document declares `security: []` on exactly these. */
export const PUBLIC_API = [/^\/api\/v1\/auth\/login\/?$/, /^\/api\/v1\/setup(\/.*)?$/, /^\/api\/openapi\.json$/, /^\/api\/docs(\/.*)?$/];

export const OPENAPI_INFO = {
  openapi: '3.1.0',
  info: {
    title: 'ardesk AR collection API',
    version: '1.0.0',
    description:
      'The accounts-receivable collection service as specified, served by ardesk on 127.0.0.1. Authenticate with `Authorization: Token <key>` from POST /api/v1/auth/login/. Operations marked `x-extension` go beyond the specification.',
  },
  servers: [{ url: '/', description: 'The ardesk server that serves this document: a desktop on http://127.0.0.1:<port>, or a team server' }],
};

export function createApp(engine: Engine, overrides: Partial<HttpOptions> = {}): OpenAPIHono<AppEnv> {
  const options: HttpOptions = {
    throttle: overrides.throttle ?? new LoginThrottle(engine.clock),
    tokenTtlDays: overrides.tokenTtlDays ?? DEFAULT_TOKEN_TTL_DAYS,
    allowedHosts: overrides.allowedHosts ?? [],
    rendererDir: overrides.rendererDir ?? null,
    maxBodyBytes: overrides.maxBodyBytes ?? 1024 * 1024,
    maxImportBytes: overrides.maxImportBytes ?? 50 * 1024 * 1024,
    pokes: overrides.pokes ?? null,
    sync: overrides.sync ?? null,
    refuseCredentialsInClear: overrides.refuseCredentialsInClear ?? false,
    team: overrides.team ?? false,
    trustProxy: overrides.trustProxy ?? false,
    mailRule: overrides.mailRule ?? (overrides.team ? TEAM_MAIL_ENDPOINT : ANY_MAIL_ENDPOINT),
    webhookRule: overrides.webhookRule ?? PUBLIC_WEBHOOKS,
    portalBaseUrl: overrides.portalBaseUrl ?? (() => null),
    portalLimiter: overrides.portalLimiter ?? new PortalLimiter(engine.clock),
  };
  const app = createRouter();
  const localApp: AppFetch = (request, env) => Promise.resolve(app.request(request, undefined, env));
  const sync = options.sync ?? createSyncSession(engine, localApp, { intervalMs: DEFAULT_SYNC_INTERVAL_MS });
  app.onError((err, c) => errorToResponse(err, c));
  app.notFound((c) =>
    c.req.path.startsWith('/api/') ? problem(404, 'not_found', `No route for ${c.req.method} ${c.req.path}`) : problem(404, 'not_found', 'Not found'),
  );

  app.use('*', hostGuard(options.allowedHosts));
  // The portal's forms are posted by customers' browsers: it has its own guards (core/http/portal.ts).
  const crossSite = crossSiteGuard();
  app.use('*', (c, next) => (c.req.path.startsWith('/portal/') ? next() : crossSite(c, next)));
  app.use('*', async (c, next) => {
    // A replayed sync operation runs on the engine of the transaction it belongs to.
    c.set('engine', replayOf(c)?.engine ?? engine);
    c.set('mailRule', options.mailRule);
    if (options.trustProxy) c.set('forwardedFor', forwardedAddress(c.req.header('x-forwarded-for')) ?? undefined);
    await next();
    c.header('x-content-type-options', 'nosniff');
  });
  const uploads = uploadSlots();
  app.use('/api/companies/:company_id/*', (c, next) => (/\/imports?(\/|$)|\/document-details\/logo$|\/bank-statements$/.test(c.req.path) ? uploads(c, next) : next()));
  app.use(
    '/api/*',
    limitBody((c) => (/\/imports?(\/|$)|^\/api\/v1\/sync\/push$|\/document-details\/logo$|\/bank-statements$/.test(c.req.path) ? options.maxImportBytes : options.maxBodyBytes)),
  );
  // Clients that send Content-Type: application/json on every request, body or not, must not
  // fail on operations whose body is optional: an empty body is treated as no body.
  app.use('/api/*', async (c, next) => {
    if (c.req.header('content-length') === '0' && c.req.header('content-type')?.includes('application/json')) {
      const headers = new Headers(c.req.raw.headers);
      headers.delete('content-type');
      c.req.raw = new Request(c.req.raw.url, { method: c.req.method, headers });
    }
    await next();
  });
  if (options.refuseCredentialsInClear) {
    app.use('/api/*', async (c, next) =>
      CREDENTIAL_ROUTES.test(c.req.path)
        ? problem(403, 'insecure_transport', 'This team server is on plain HTTP: sign-in and sync need TLS (--tls-cert and --tls-key, or a reverse proxy)')
        : next(),
    );
  }
  const token = requireToken();
  app.use('/api/*', async (c, next) => (PUBLIC_API.some((re) => re.test(c.req.path)) ? next() : token(c, next)));
  app.use('/api/companies/:company_id/*', requireMembership());
  app.use('/api/companies/:company_id', requireMembership());
  app.use('/api/*', refuseUntypeableText());
  app.use('/api/companies/:company_id/*', syncedWrites(() => sync.wake()));

  app.route('/', publicAuthRoutes(options));
  app.route('/', setupRoutes(options, sync));
  for (const router of protectedRoutes(options)) app.route('/', router);
  app.route('/', portalApiRoutes(options));
  const pokes = options.pokes ?? createPokeHub(engine);
  app.route('/', syncRoutes({ replay: localApp, hub: pokes, session: sync, maxPushBytes: options.maxImportBytes }));
  if (!options.team) app.route('/', syncDesktopRoutes(sync));

  app.openAPIRegistry.registerComponent('securitySchemes', 'Token', {
    type: 'apiKey',
    in: 'header',
    name: 'Authorization',
    description: 'The word Token, a space, then the key from POST /api/v1/auth/login/',
  });
  app.doc31('/api/openapi.json', OPENAPI_INFO);
  app.route('/', docsRoutes());
  app.all('/api/*', (c) => problem(404, 'not_found', `No route for ${c.req.method} ${c.req.path}`));
  app.route('/', portalRoutes({ limiter: options.portalLimiter }));
  app.route('/', rendererRoutes(options.rendererDir));
  return app;
}
