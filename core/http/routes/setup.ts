import { createRoute, z } from '@hono/zod-openapi';
import { login } from '../../auth/sessions';
import { checkNewCompany } from '../../onboarding/company';
import { createFirstAccount, isInitialized } from '../../team/setup';
import { seedDemo } from '../../seed';
import type { HttpOptions } from '../options';
import { clientAddress } from '../context';
import { ConflictError, DomainError, ValidationError } from '../../errors';
import type { SyncSession } from '../../sync/session';
import { createRouter, json, jsonBody, problems, Text } from '../openapi';
import { Credentials, inWords } from './sync-desktop';

const SetupStatus = z.object({ initialized: z.boolean() }).openapi('SetupStatus');

const statusRoute = createRoute({
  method: 'get',
  path: '/api/v1/setup/',
  security: [],
  tags: ['Extensions'],
  summary: 'Whether this workspace has any user yet (first launch)',
  responses: { 200: json(SetupStatus, 'Setup state'), ...problems(400) },
});

const AccountBody = z
  .strictObject({
    username: Text(64).min(2),
    password: Text(256).min(4),
    display_name: Text(100).optional(),
    company_name: Text(200).trim().min(1),
    currency: Text(3).optional().openapi({ description: "The company's currency, ISO 4217; default USD" }),
    time_zone: Text(64).nullable().optional().openapi({ description: 'IANA time zone, e.g. America/Chicago' }),
    country: Text(2).nullable().optional().openapi({ description: 'ISO 3166-1 alpha-2 code, e.g. US' }),
  })
  .openapi('FirstAccountRequest');

const accountRoute = createRoute({
  method: 'post',
  path: '/api/v1/setup/account/',
  security: [],
  tags: ['Extensions'],
  summary: 'Create the first user and company of an empty workspace, and sign in',
  request: { body: jsonBody(AccountBody) },
  responses: {
    201: json(z.object({ token: z.string(), expires_at: z.string(), companies: z.array(z.object({ id: z.string(), name: z.string(), role: z.string() })) }), 'Signed in'),
    ...problems(400, 409),
  },
});

const SignedIn = z
  .object({ token: z.string(), expires_at: z.string(), companies: z.array(z.object({ id: z.string(), name: z.string(), role: z.string() })) })
  .openapi('SetupSignedIn');

const demoRoute = createRoute({
  method: 'post',
  path: '/api/v1/setup/demo/',
  security: [],
  tags: ['Extensions'],
  summary: 'Fill an empty workspace with the demo data (users demo and outsider, two companies), and sign in as demo',
  responses: {
    201: json(SignedIn, 'Signed in as demo'),
    ...problems(409),
  },
});

const ConnectBody = z.strictObject(Credentials).openapi('FirstLaunchConnect');

const connectRoute = createRoute({
  method: 'post',
  path: '/api/v1/setup/connect/',
  security: [],
  tags: ['Extensions'],
  summary: "Make an empty workspace a desktop of a team server: download the user's companies from it, then sign in here as that user",
  description: 'Answers once the download has finished. Refusals in words as for /api/v1/sync/connect; 502 team_server_download_failed when the download stopped.',
  request: { body: jsonBody(ConnectBody) },
  responses: { 201: json(SignedIn, 'Downloaded, and signed in'), ...problems(400, 409, 422, 429, 502) },
});

export function setupRoutes(options: HttpOptions, sync: SyncSession) {
  const status = createRouter().openapi(statusRoute, async (c) => c.json({ initialized: await isInitialized(c.var.engine) }, 200));
  // A team server is set up from its own machine (ardesk user add): an empty one on the network
  // must not be claimable by whoever reaches it first.
  if (options.team) return status;
  return status
    .openapi(accountRoute, async (c) => {
      const body = c.req.valid('json');
      // The first company is checked as any new company is (core/onboarding), then made with the account.
      const { company, errors } = checkNewCompany({ name: body.company_name, currency: body.currency, time_zone: body.time_zone, country: body.country });
      if (Object.keys(errors).length) throw new ValidationError('The company is invalid', errors);
      await createFirstAccount(c.var.engine, {
        username: body.username,
        password: body.password,
        displayName: body.display_name,
        companyName: company.name,
        currency: company.currency,
        place: { time_zone: company.time_zone, country: company.country },
      });
      const result = await login(c.var.engine, body.username, body.password, { throttle: options.throttle, address: clientAddress(c), tokenTtlDays: options.tokenTtlDays });
      return c.json(result, 201);
    })
    .openapi(connectRoute, async (c) => {
      const engine = c.var.engine;
      if (await isInitialized(engine)) throw new ConflictError('This workspace is already set up; sign in instead', 'already_initialized');
      const body = c.req.valid('json');
      const serverUrl = new URL(body.server_url).origin;
      await inWords(serverUrl, true, () => sync.connect({ serverUrl, username: body.username, password: body.password, companies: [] }));
      await sync.settled();
      const transfer = sync.transfer();
      if (transfer?.state !== 'done') throw new DomainError(502, 'team_server_download_failed', `The download from the team server stopped: ${transfer?.error ?? 'unknown reason'}`);
      const result = await login(engine, body.username, body.password, { throttle: options.throttle, address: clientAddress(c), tokenTtlDays: options.tokenTtlDays });
      return c.json(result, 201);
    })
    .openapi(demoRoute, async (c) => {
      // seedDemo refuses (409 already_initialized) once any user exists, checked inside its transaction.
      await seedDemo(c.var.engine);
      const result = await login(c.var.engine, 'demo', 'demo', { throttle: options.throttle, address: clientAddress(c), tokenTtlDays: options.tokenTtlDays });
      return c.json(result, 201);
    });
}
