import { createRoute, z } from '@hono/zod-openapi';
import { createPersonalToken, listPersonalTokens, MAX_PERSONAL_TOKEN_DAYS, revokePersonalToken } from '../../auth/personal-tokens';
import { confirmPassword } from '../../auth/sessions';
import type { LoginThrottle } from '../../auth/throttle';
import { ForbiddenError } from '../../errors';
import { actorOf, clientAddress } from '../context';
import { createRouter, json, jsonBody, problems, SECURITY, Timestamp, Uuid, withoutSlash } from '../openapi';

const PersonalToken = z
  .object({ id: Uuid, name: z.string(), created_at: Timestamp, expires_at: Timestamp, last_used_at: Timestamp.nullable().openapi({ description: 'To the minute; null until first used' }) })
  .openapi('PersonalToken');

const NewPersonalToken = z
  .object({
    name: z.string().trim().min(1).max(100).openapi({ example: 'Nightly export' }),
    expires_in_days: z
      .number()
      .int()
      .min(1)
      .max(MAX_PERSONAL_TOKEN_DAYS)
      .default(90)
      .openapi({ description: `Days until it stops working, 1..${MAX_PERSONAL_TOKEN_DAYS} (default 90)` }),
    password: z
      .string()
      .min(1)
      .max(1000)
      .optional()
      .openapi({ description: "The caller's password, confirmed afresh. Needed when the request uses a personal token, or when the new token would outlive the sign-in token making it" }),
  })
  .strict()
  .openapi('NewPersonalToken');

const CreatedPersonalToken = PersonalToken.extend({
  token: z.string().openapi({ description: 'The key, shown this once: send it as Authorization: Token <key>' }),
}).openapi('CreatedPersonalToken');

const TokenParams = z.object({ token_id: z.string().toLowerCase().openapi({ param: { name: 'token_id', in: 'path' }, format: 'uuid' }) });

const listRoute = createRoute({
  method: 'get',
  path: '/api/v1/auth/tokens/',
  tags: ['Extensions'],
  summary: "The caller's personal API tokens, newest first (never their keys) (extension)",
  security: SECURITY,
  responses: { 200: json(z.object({ tokens: z.array(PersonalToken) }), 'Tokens not revoked, expired ones included'), ...problems(401) },
});

const createTokenRoute = createRoute({
  method: 'post',
  path: '/api/v1/auth/tokens/',
  tags: ['Extensions'],
  summary: 'Make a personal API token for scripts; it acts as the caller (extension)',
  security: SECURITY,
  request: { body: jsonBody(NewPersonalToken) },
  responses: { 201: json(CreatedPersonalToken, 'The token, with its key shown once'), ...problems(400, 401, 403, 409, 429) },
});

const revokeRoute = createRoute({
  method: 'delete',
  path: '/api/v1/auth/tokens/{token_id}/',
  tags: ['Extensions'],
  summary: 'Revoke one of the caller’s personal API tokens (extension)',
  security: SECURITY,
  request: { params: TokenParams },
  responses: { 204: { description: 'The token no longer works' }, ...problems(401, 404) },
});

export function tokenRoutes(throttle: LoginThrottle) {
  const router = createRouter();
  for (const route of [listRoute, withoutSlash(listRoute)]) {
    router.openapi(route, async (c) => c.json({ tokens: await listPersonalTokens(c.var.engine.db, c.var.user.id) }, 200));
  }
  for (const route of [createTokenRoute, withoutSlash(createTokenRoute)]) {
    router.openapi(route, async (c) => {
      const body = c.req.valid('json');
      const caller = c.var.credential;
      if (!caller) throw new ForbiddenError('A personal token is made by its user, not by a synced operation');
      if (body.password !== undefined) await confirmPassword(c.var.engine, c.var.user.id, body.password, { throttle, address: clientAddress(c) });
      const created = await createPersonalToken(
        c.var.engine,
        { ...actorOf(c), userId: c.var.user.id },
        { name: body.name, expiresInDays: body.expires_in_days, caller, passwordConfirmed: body.password !== undefined },
      );
      return c.json(created, 201);
    });
  }
  for (const route of [revokeRoute, withoutSlash(revokeRoute)]) {
    router.openapi(route, async (c) => {
      await revokePersonalToken(c.var.engine, { ...actorOf(c), userId: c.var.user.id }, c.req.valid('param').token_id);
      return c.body(null, 204);
    });
  }
  return router;
}
