/**
 * Sync endpoints (extension). On the team server: push, pull and the event stream the desktops
 * use. On any ardesk: the sync status the app shows.
 */
import { createRoute, z } from '@hono/zod-openapi';
import { streamSSE } from 'hono/streaming';
import { ConflictError } from '../../errors';
import { isUuid } from '../../ids';
import { readFeed } from '../../sync/feed';
import { maySyncManage } from '../../sync/manager';
import type { AppFetch } from '../../sync/operation';
import type { PokeHub } from '../../sync/pokes';
import type { SyncSession } from '../../sync/session';
import { applyPush, PUSH_MUTATIONS } from '../../sync/push';
import { syncState } from '../../sync/state';
import type { Engine } from '../../engine';
import { createRouter, json, jsonBody, problems, SECURITY, Timestamp, Uuid, UuidValue } from '../openapi';
import { problem } from '../problem';

const TAG = 'Extensions';

export interface SyncRouteOptions {
  /** The app itself, for replaying pushed operations. */
  replay: AppFetch;
  hub: PokeHub;
  /** The desktop's sync: its loop (when connected) and its download in progress. */
  session: SyncSession;
  /** Largest push body accepted, in bytes (announced to clients with the count). */
  maxPushBytes: number;
}

const Mutation = z
  .object({
    id: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
    company_id: UuidValue,
    command: z.string().min(1).max(100),
    method: z.enum(['POST', 'PUT', 'PATCH', 'DELETE']),
    path: z.string().min(1).max(2000).regex(/^\/api\/companies\/[0-9A-Fa-f-]{36}\/[^\s#]*$/, 'must be a company API path'),
    content_type: z.string().max(200).nullable(),
    body: z.string().max(60 * 1024 * 1024).nullable(),
    body_encoding: z.enum(['utf8', 'base64']),
    ids: z.array(z.string().refine(isUuid, 'must be a UUID')).max(100_000),
  })
  .strict()
  .openapi('SyncMutation');

const PushBody = z.object({ client_id: UuidValue, mutations: z.array(Mutation).min(1).max(PUSH_MUTATIONS) }).strict().openapi('SyncPushRequest');

const Outcome = z
  .object({ mutation_id: z.number().int(), command: z.string(), status: z.enum(['applied', 'rejected']), reason: z.string().nullable() })
  .openapi('SyncMutationOutcome');

const PullBody = z
  .object({
    client_id: UuidValue,
    companies: z.array(z.object({ company_id: UuidValue, cursor: z.string().max(2000).nullable() }).strict()).min(1).max(100),
    pending_from: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
    limit: z.number().int().min(1).max(20_000).optional(),
  })
  .strict()
  .openapi('SyncPullRequest');

const Change = z.object({ table: z.string(), key: z.array(z.unknown()), row: z.record(z.string(), z.unknown()).nullable() }).openapi('SyncChange');

const PullResponse = z
  .object({
    last_mutation_id: z.number().int(),
    rejected: z.array(z.object({ mutation_id: z.number().int(), company_id: Uuid, command: z.string(), reason: z.string() })),
    users: z.array(z.record(z.string(), z.unknown())),
    companies: z.array(
      z.object({ company_id: Uuid, status: z.enum(['ok', 'revoked']), cursor: z.string().nullable(), more: z.boolean(), changes: z.array(Change) }),
    ),
  })
  .openapi('SyncPullResponse');

export const SyncTransfer = z
  .object({
    kind: z.enum(['connect', 'resync']),
    state: z.enum(['running', 'done', 'failed']),
    companies: z.array(z.object({ id: Uuid, name: z.string(), rows: z.number().int(), done: z.boolean() })),
    error: z.string().nullable(),
    started_at: Timestamp,
    finished_at: Timestamp.nullable(),
  })
  .openapi('SyncTransfer');

const StatusResponse = z
  .object({
    role: z.enum(['server', 'replica']).nullable(),
    server_url: z.string().nullable(),
    username: z.string().nullable(),
    online: z.boolean(),
    live: z.boolean(),
    syncing: z.boolean(),
    last_sync_at: Timestamp.nullable(),
    last_error: z.string().nullable(),
    pending: z.number().int(),
    pending_commands: z.array(z.object({ mutation_id: z.number().int(), command: z.string(), created_at: Timestamp })),
    rejected: z.array(z.object({ mutation_id: z.number().int(), company_id: z.string(), command: z.string(), reason: z.string(), created_at: Timestamp })),
    companies: z.array(z.object({ company_id: Uuid, name: z.string().nullable(), pulled_at: Timestamp.nullable() })),
    transfer: SyncTransfer.nullable().openapi({ description: 'The first download or full resync running or last finished since the app started' }),
    can_manage: z.boolean().openapi({ description: 'Whether the signed-in user may connect, resync or disconnect this database' }),
  })
  .openapi('SyncStatus');

const pushRoute = createRoute({
  method: 'post',
  path: '/api/v1/sync/push',
  tags: [TAG],
  summary: "Team server: apply a desktop's queued mutations in order, each exactly once",
  security: SECURITY,
  request: { body: jsonBody(PushBody) },
  responses: { 200: json(z.object({ results: z.array(Outcome) }).openapi('SyncPushResponse'), 'The outcome of each mutation'), ...problems(400, 401, 403, 409, 413) },
});

const PushLimits = z
  .object({
    push_mutations: z.number().int().openapi({ description: 'Most mutations one push may carry' }),
    push_bytes: z.number().int().openapi({ description: 'Largest push body, in bytes' }),
  })
  .openapi('SyncLimits');

const limitsRoute = createRoute({
  method: 'get',
  path: '/api/v1/sync/limits',
  tags: [TAG],
  summary: 'Team server: how much one push may carry, so that a desktop batches its queue to fit',
  security: SECURITY,
  responses: { 200: json(PushLimits, 'The limits of one push'), ...problems(401, 409) },
});

const pullRoute = createRoute({
  method: 'post',
  path: '/api/v1/sync/pull',
  tags: [TAG],
  summary: "Team server: the changes of the caller's companies after each cursor",
  security: SECURITY,
  request: { body: jsonBody(PullBody) },
  responses: { 200: json(PullResponse, 'Rows changed and deleted, per company'), ...problems(400, 401, 409) },
});

const EventsQuery = z.object({
  company_id: z
    .union([UuidValue, z.array(UuidValue).max(100)])
    .optional()
    .openapi({ param: { name: 'company_id', in: 'query' }, description: 'The companies to hear about (repeat the parameter)' }),
});

const eventsRoute = createRoute({
  method: 'get',
  path: '/api/v1/sync/events',
  tags: [TAG],
  summary: 'Team server: Server-Sent Events, a "poke" whenever one of the companies changes',
  security: SECURITY,
  request: { query: EventsQuery },
  responses: { 200: { description: 'An event stream', content: { 'text/event-stream': { schema: z.string() } } }, ...problems(400, 401, 403, 409, 429) },
});

const statusRoute = createRoute({
  method: 'get',
  path: '/api/v1/sync/status',
  tags: [TAG],
  summary: "This ardesk's sync state: connection, last sync, pending and rejected commands",
  security: SECURITY,
  responses: { 200: json(StatusResponse, 'The sync state'), ...problems(401) },
});

async function requireTeamServer(engine: Engine): Promise<void> {
  const state = await syncState(engine.db);
  if (state.role !== 'server') throw new ConflictError('This ardesk is not a team server (start it with ardesk serve --team)', 'not_team_server');
}

/** Event streams one user may hold open at once (a stream per running desktop, with room to spare). */
export const STREAMS_PER_USER = 20;

export function syncRoutes(options: SyncRouteOptions) {
  const streams = new Map<string, number>();
  return createRouter()
    .openapi(pushRoute, async (c) => {
      const engine = c.var.engine;
      await requireTeamServer(engine);
      const body = c.req.valid('json');
      const { outcomes } = await applyPush(engine, options.replay, c.var.user, body.client_id, body.mutations);
      return c.json({ results: outcomes }, 200);
    })
    .openapi(limitsRoute, async (c) => {
      await requireTeamServer(c.var.engine);
      return c.json({ push_mutations: PUSH_MUTATIONS, push_bytes: options.maxPushBytes }, 200);
    })
    .openapi(pullRoute, async (c) => {
      const engine = c.var.engine;
      await requireTeamServer(engine);
      const body = c.req.valid('json');
      const feed = await readFeed(engine, c.var.user.id, { ...body, limit: body.limit ?? 5_000 });
      return c.json(feed, 200);
    })
    .openapi(eventsRoute, async (c) => {
      const engine = c.var.engine;
      await requireTeamServer(engine);
      const q = c.req.valid('query').company_id;
      const companies = [...new Set((q === undefined ? [] : Array.isArray(q) ? q : [q]).map((id) => id.toLowerCase()))];
      if (companies.length) {
        const mine = await engine.db.selectFrom('memberships').select('company_id').where('user_id', '=', c.var.user.id).where('company_id', 'in', companies).execute();
        if (mine.length !== companies.length) return problem(403, 'forbidden', 'You can hear only about companies you are a member of');
      }
      const userId = c.var.user.id;
      const open = streams.get(userId) ?? 0;
      if (open >= STREAMS_PER_USER) return problem(429, 'too_many_streams', `At most ${STREAMS_PER_USER} event streams per user are open at once; close one first`);
      streams.set(userId, open + 1);
      const release = () => {
        const left = (streams.get(userId) ?? 1) - 1;
        if (left > 0) streams.set(userId, left);
        else streams.delete(userId);
      };
      return streamSSE(c, async (stream) => {
        try {
          let wake: (() => void) | null = null;
          const pending = new Set<string>();
          const unsubscribe = options.hub.subscribe(companies, (id) => {
            pending.add(id);
            wake?.();
          });
          stream.onAbort(() => {
            unsubscribe();
            wake?.();
          });
          await stream.writeSSE({ event: 'ready', data: '{}' });
          while (!stream.aborted && !stream.closed) {
            await new Promise<void>((resolve) => {
              wake = resolve;
              setTimeout(resolve, 15_000).unref();
            });
            wake = null;
            if (stream.aborted) break;
            if (pending.size === 0) {
              await stream.write(': keep-alive\n\n');
              continue;
            }
            for (const id of pending) await stream.writeSSE({ event: 'poke', data: JSON.stringify({ company_id: id }) });
            pending.clear();
          }
          unsubscribe();
        } finally {
          release();
        }
      });
    })
    .openapi(statusRoute, async (c) => {
      const db = c.var.engine.db;
      const state = await syncState(db);
      const loop = options.session.loop();
      const pendingCommands = await db.selectFrom('sync_outbox').select(['mutation_id', 'command', 'created_at']).orderBy('mutation_id').limit(100).execute();
      const pending = await db.selectFrom('sync_outbox').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      const rejected = await db.selectFrom('sync_rejections').selectAll().orderBy('mutation_id', 'desc').limit(50).execute();
      const companies = await db
        .selectFrom('sync_companies')
        .leftJoin('companies', 'companies.id', 'sync_companies.company_id')
        .select(['sync_companies.company_id', 'companies.name', 'sync_companies.pulled_at'])
        .execute();
      return c.json(
        {
          role: state.role,
          server_url: state.server_url,
          username: state.username,
          online: loop?.online ?? false,
          live: loop?.live ?? false,
          syncing: loop?.syncing ?? false,
          last_sync_at: state.last_sync_at,
          last_error: state.last_error,
          pending: Number(pending.n),
          pending_commands: pendingCommands,
          rejected,
          companies,
          transfer: options.session.transfer(),
          can_manage: await maySyncManage(db, c.var.user.id),
        },
        200,
      );
    });
}
