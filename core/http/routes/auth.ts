import { createRoute, z } from '@hono/zod-openapi';
import { redeemSetupCode } from '../../auth/setup-codes';
import { login, revokeToken } from '../../auth/sessions';
import { companiesOfUser } from '../../auth/memberships';
import { actorOf, clientAddress } from '../context';
import type { HttpOptions } from '../options';
import { createRouter, json, jsonBody, problems, SECURITY, Text, Timestamp, Uuid, withoutSlash } from '../openapi';

/** A user's role in a company: a manager is a collector who also sees the team's users. */
export const CompanyRole = z.enum(['owner', 'manager', 'collector', 'viewer']);
export const CompanyRef = z.object({ id: Uuid, name: z.string(), role: CompanyRole }).openapi('CompanyRef');
const UserRef = z.object({ id: Uuid, username: z.string(), display_name: z.string() }).openapi('UserRef');

const LoginBody = z
  .strictObject({
    username: Text(64).min(1),
    password: Text(256).min(1),
  })
  .openapi('LoginRequest');

const LoginResponse = z
  .object({ token: z.string(), expires_at: Timestamp, user: UserRef, companies: z.array(CompanyRef) })
  .openapi('LoginResponse');

const loginRoute = createRoute({
  method: 'post',
  path: '/api/v1/auth/login/',
  security: [],
  tags: ['Authentication'],
  summary: 'Exchange a username and password for an API token',
  request: { body: jsonBody(LoginBody) },
  responses: { 200: json(LoginResponse, 'The token and the companies the user belongs to'), ...problems(400, 401, 429) },
});

const SetupCodeBody = z
  .strictObject({
    username: Text(64).min(1),
    setup_code: Text(40).min(1).openapi({ description: 'The one-time code shown to whoever invited the user; case, spaces and dashes do not matter' }),
    password: Text(256).min(4).openapi({ description: 'The password the user chooses; the setup code stops working' }),
  })
  .openapi('SetupCodeRequest');

const setupCodeRoute = createRoute({
  method: 'post',
  path: '/api/v1/setup/code/',
  operationId: 'redeemSetupCode',
  security: [],
  tags: ['Extensions'],
  summary: 'An invited user signs in once with their setup code and sets their password (extension)',
  request: { body: jsonBody(SetupCodeBody) },
  responses: { 200: json(LoginResponse, 'Signed in with the new password'), ...problems(400, 401, 429) },
});

const logoutRoute = createRoute({
  method: 'post',
  path: '/api/v1/auth/logout/',
  tags: ['Extensions'],
  summary: 'Revoke the token used for this request',
  security: SECURITY,
  responses: { 204: { description: 'The token no longer works' }, ...problems(401) },
});

const meRoute = createRoute({
  method: 'get',
  path: '/api/v1/auth/me/',
  tags: ['Extensions'],
  summary: 'The signed-in user and their companies (extension)',
  security: SECURITY,
  responses: { 200: json(z.object({ user: UserRef, companies: z.array(CompanyRef) }), 'The current user'), ...problems(401) },
});

export function publicAuthRoutes(options: HttpOptions) {
  const router = createRouter();
  for (const route of [loginRoute, withoutSlash(loginRoute)]) {
    router.openapi(route, async (c) => {
      const { username, password } = c.req.valid('json');
      const result = await login(c.var.engine, username, password, {
        throttle: options.throttle,
        address: clientAddress(c),
        tokenTtlDays: options.tokenTtlDays,
      });
      return c.json(result, 200);
    });
  }
  // Public like login (the app's /api/v1/setup paths are), and served by a team server too: its users are invited.
  router.openapi(setupCodeRoute, async (c) => {
    const body = c.req.valid('json');
    const signIn = { throttle: options.throttle, address: clientAddress(c), tokenTtlDays: options.tokenTtlDays };
    return c.json(await redeemSetupCode(c.var.engine, { username: body.username, setupCode: body.setup_code, password: body.password }, signIn), 200);
  });
  return router;
}

export function authRoutes() {
  const router = createRouter();
  for (const route of [logoutRoute, withoutSlash(logoutRoute)]) {
    router.openapi(route, async (c) => {
      await revokeToken(c.var.engine, c.var.tokenId, actorOf(c));
      return c.body(null, 204);
    });
  }
  for (const route of [meRoute, withoutSlash(meRoute)]) {
    router.openapi(route, async (c) => c.json({ user: c.var.user, companies: await companiesOfUser(c.var.engine.db, c.var.user.id) }, 200));
  }
  return router;
}
