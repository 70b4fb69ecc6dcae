/**
 * The desktop's side of sync for the app (extensions): look at a team server's companies, connect
 * and download them, sync now, resync, disconnect. The same core as `ardesk connect` / `ardesk
 * sync` (core/sync/client.ts) through the running desktop's sync session. The password only
 * passes through to the team server; its token is kept sealed and never answered.
 */
import { createRoute, z } from '@hono/zod-openapi';
import { signInToServer, signOutOfServer } from '../../sync/client';
import { asProblem, SyncHttpError } from '../../sync/failure';
import { requireSyncManager } from '../../sync/manager';
import type { SyncSession } from '../../sync/session';
import { dismissRejections, syncState } from '../../sync/state';
import { createRouter, json, jsonBody, problems, SECURITY, Text, Uuid, UuidValue } from '../openapi';
import { SyncTransfer } from './sync';

const TAG = 'Extensions';

const ServerUrl = Text(2000)
  .trim()
  .refine((v) => {
    try {
      const url = new URL(v);
      return (url.protocol === 'http:' || url.protocol === 'https:') && url.username === '' && url.password === '';
    } catch {
      return false;
    }
  }, 'must be an http or https address such as https://ardesk.example.com:4870')
  .openapi({ example: 'https://ardesk.example.com:4870' });

export const Credentials = {
  server_url: ServerUrl,
  username: Text(64).min(1),
  password: Text(256).min(1),
};

const LookBody = z.strictObject(Credentials).openapi('TeamServerSignIn');

const ServerCompanies = z
  .object({
    server_url: z.string(),
    companies: z.array(
      z.object({
        id: Uuid,
        name: z.string(),
        role: z.string(),
        here: z.enum(['kept', 'local_only']).nullable().openapi({ description: 'kept: already synced here; local_only: a local copy is here (kept at a disconnect), so it cannot be downloaded over it' }),
      }),
    ),
  })
  .openapi('TeamServerCompanies');

const ConnectBody = z
  .strictObject({ ...Credentials, company_ids: z.array(UuidValue).min(1).max(100) })
  .openapi('TeamServerConnect');

const DisconnectBody = z.strictObject({ keep_local_copy: z.boolean() }).openapi('TeamServerDisconnect');

const Round = z
  .object({
    pushed: z.number().int(),
    applied: z.number().int(),
    rejected: z.array(z.object({ command: z.string(), reason: z.string() })),
    pulled: z.number().int(),
    pending: z.number().int(),
  })
  .openapi('SyncRound');

const TEAM_SERVER_PROBLEMS = 'Refusals and failures in words: team_server_sign_in_refused (422), team_server_unreachable, team_server_tls_refused, team_server_not_ardesk (502)';

const companiesRoute = createRoute({
  method: 'post',
  path: '/api/v1/sync/server-companies',
  tags: [TAG],
  summary: 'Sign in to a team server just to list the companies this user may keep here (the sign-in is ended at once)',
  description: TEAM_SERVER_PROBLEMS,
  security: SECURITY,
  request: { body: jsonBody(LookBody) },
  responses: {
    200: json(ServerCompanies, "The user's companies on the team server"),
    ...problems(400, 401, 403, 409, 422, 502),
  },
});

const connectRoute = createRoute({
  method: 'post',
  path: '/api/v1/sync/connect',
  tags: [TAG],
  summary: 'Connect this desktop to a team server and download the chosen companies (in the background: follow it in the sync status)',
  description: TEAM_SERVER_PROBLEMS,
  security: SECURITY,
  request: { body: jsonBody(ConnectBody) },
  responses: { 202: json(SyncTransfer, 'The download, started'), ...problems(400, 401, 403, 404, 409, 422, 502) },
});

const nowRoute = createRoute({
  method: 'post',
  path: '/api/v1/sync/now',
  tags: [TAG],
  summary: 'One sync round now: push what is waiting, pull what changed',
  security: SECURITY,
  responses: { 200: json(Round, 'What the round did'), ...problems(401, 409, 422, 502) },
});

const resyncRoute = createRoute({
  method: 'post',
  path: '/api/v1/sync/resync',
  tags: [TAG],
  summary: 'Download every kept company again (in the background); refused while changes are waiting',
  security: SECURITY,
  responses: { 202: json(SyncTransfer, 'The download, started'), ...problems(401, 403, 409) },
});

const disconnectRoute = createRoute({
  method: 'post',
  path: '/api/v1/sync/disconnect',
  tags: [TAG],
  summary: 'Disconnect from the team server, keeping the companies here as local-only ones or removing them',
  security: SECURITY,
  request: { body: jsonBody(DisconnectBody) },
  responses: {
    200: json(z.object({ companies: z.array(z.object({ id: Uuid, name: z.string() })), kept_local_copy: z.boolean() }).openapi('TeamServerDisconnected'), 'Disconnected'),
    ...problems(400, 401, 403, 409),
  },
});

const dismissRoute = createRoute({
  method: 'post',
  path: '/api/v1/sync/rejections/dismiss',
  tags: [TAG],
  summary: 'Take the commands the team server refused (already undone here) off the list, once read',
  security: SECURITY,
  responses: { 200: json(z.object({ dismissed: z.number().int() }).openapi('SyncRejectionsDismissed'), 'How many left the list'), ...problems(401, 403) },
});

/** Runs `work`, turning a team server's refusal or a network failure into a problem in words. */
export async function inWords<T>(serverUrl: string, signingIn: boolean, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw asProblem(err, serverUrl, signingIn);
  }
}

export function syncDesktopRoutes(session: SyncSession) {
  return createRouter()
    .openapi(companiesRoute, async (c) => {
      const engine = c.var.engine;
      await requireSyncManager(engine.db, c.var.user.id);
      const body = c.req.valid('json');
      const serverUrl = new URL(body.server_url).origin;
      const login = await inWords(serverUrl, true, () => signInToServer(serverUrl, body.username, body.password));
      // The look-only sign-in would stay valid on the server until it expires; a failure here changes nothing.
      await signOutOfServer(serverUrl, login.token).catch(() => undefined);
      const ids = login.companies.map((k) => k.id);
      const kept = new Set((await engine.db.selectFrom('sync_companies').select('company_id').execute()).map((r) => r.company_id));
      const here = new Set(ids.length ? (await engine.db.selectFrom('companies').select('id').where('id', 'in', ids).execute()).map((r) => r.id) : []);
      return c.json(
        {
          server_url: serverUrl,
          companies: login.companies.map((k) => ({ id: k.id, name: k.name, role: k.role, here: kept.has(k.id) ? ('kept' as const) : here.has(k.id) ? ('local_only' as const) : null })),
        },
        200,
      );
    })
    .openapi(connectRoute, async (c) => {
      const engine = c.var.engine;
      await requireSyncManager(engine.db, c.var.user.id);
      const body = c.req.valid('json');
      const serverUrl = new URL(body.server_url).origin;
      const transfer = await inWords(serverUrl, true, () =>
        session.connect({ serverUrl, username: body.username, password: body.password, companies: body.company_ids }),
      );
      return c.json(transfer, 202);
    })
    .openapi(nowRoute, async (c) => {
      const state = await syncState(c.var.engine.db);
      if (state.role !== 'replica' || !state.server_url) throw asProblem(new SyncHttpError(409, 'This database is not connected to a team server', 'not_connected'), '', false);
      const serverUrl = state.server_url;
      return c.json(await inWords(serverUrl, false, () => session.syncNow()), 200);
    })
    .openapi(resyncRoute, async (c) => {
      await requireSyncManager(c.var.engine.db, c.var.user.id);
      return c.json(await inWords('', false, () => session.resync()), 202);
    })
    .openapi(disconnectRoute, async (c) => {
      await requireSyncManager(c.var.engine.db, c.var.user.id);
      const { keep_local_copy } = c.req.valid('json');
      const { companies } = await inWords('', false, () => session.disconnect(keep_local_copy));
      return c.json({ companies, kept_local_copy: keep_local_copy }, 200);
    })
    .openapi(dismissRoute, async (c) => {
      await requireSyncManager(c.var.engine.db, c.var.user.id);
      return c.json({ dismissed: await dismissRejections(c.var.engine.db) }, 200);
    });
}
