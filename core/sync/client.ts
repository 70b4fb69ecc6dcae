/**
 * The desktop's side of the conversation with the team server: connect (log in, download each
 * company), and one sync round (push the outbox, pull every company, apply and rebase).
 */
import { timestamp } from '../clock';
import { type Engine, inWriteTransaction } from '../engine';
import { newId } from '../ids';
import { applyPull, faultPoint, forgetCompany, type PulledCompany, type PullToApply, writeChanges, writeUsers } from './apply';
import { beginBulkDownload } from './bulk';
import type { Feed } from './feed';
import { describeFailure, SyncHttpError } from './failure';
import type { AppFetch } from './operation';
import type { MutationOutcome, PushedMutation } from './push';
import { syncState } from './state';
import { setSyncRole } from './triggers';

export interface SyncLink {
  serverUrl: string;
  token: string;
  clientId: string;
}

const REQUEST_TIMEOUT_MS = 60_000;
/** Rows per pull page. */
export const PAGE_ROWS = 5_000;
/** A push body stays under this many bytes unless one mutation alone is larger. */
const PUSH_BYTES = 900_000;

/**
 * A kept-alive connection the server closed (or reset) as it was reused. EPIPE is the same race met
 * while the request's body was being written (a 1M-invoice download's next page, asked for after
 * seconds of writing the last one).
 */
export function isStaleConnection(err: unknown): boolean {
  const code = err instanceof TypeError ? (err.cause as { code?: string } | undefined)?.code : undefined;
  return code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' || code === 'EPIPE';
}

export async function callServer<T>(serverUrl: string, path: string, token: string | null, body?: unknown): Promise<T> {
  const send = () =>
    fetch(new URL(path, serverUrl), {
      method: body === undefined ? 'GET' : 'POST',
      headers: { ...(token ? { authorization: `Token ${token}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
  // Every call is safe to repeat (pushes are deduplicated by mutation id, pulls only read). The pool
  // may hold two connections the server closed while this process was busy (a download asks for
  // the next page on a second one, then builds its indexes for seconds).
  const attempt = (left: number): Promise<Response> => send().catch((err: unknown) => (left > 0 && isStaleConnection(err) ? attempt(left - 1) : Promise.reject(err)));
  const response = await attempt(2);
  const text = await response.text();
  if (!response.ok) {
    let detail = `HTTP ${response.status}`;
    try {
      detail = (JSON.parse(text) as { detail?: string }).detail ?? detail;
    } catch {
      // Not a problem document (a proxy's page): the status says enough.
    }
    throw new SyncHttpError(response.status, detail);
  }
  return (text ? JSON.parse(text) : null) as T;
}

export async function linkOf(engine: Engine): Promise<SyncLink | null> {
  const state = await syncState(engine.db);
  if (state.role !== 'replica' || !state.server_url || !state.token_enc || !state.client_id) return null;
  return { serverUrl: state.server_url, token: engine.secrets.decrypt(state.token_enc), clientId: state.client_id };
}

export interface PushSummary {
  pushed: number;
  applied: number;
  rejected: Array<{ mutation_id: number; command: string; reason: string }>;
}

export interface PushLimits {
  mutations: number;
  bytes: number;
}

/** What a server that announces no limits takes (the count its push schema has always allowed). */
const DEFAULT_PUSH_LIMITS: PushLimits = { mutations: 1_000, bytes: PUSH_BYTES };
/** Room left in a push body for its envelope ({"client_id": ..., "mutations": [...]}). */
const ENVELOPE_BYTES = 1_024;

/** The team server's announced limits, kept within this client's own byte budget. */
async function pushLimitsOf(link: SyncLink): Promise<PushLimits> {
  try {
    const announced = await callServer<{ push_mutations: number; push_bytes: number }>(link.serverUrl, '/api/v1/sync/limits', link.token);
    return { mutations: announced.push_mutations, bytes: Math.min(announced.push_bytes, PUSH_BYTES) };
  } catch (err) {
    if (err instanceof SyncHttpError && err.status === 404) return DEFAULT_PUSH_LIMITS;
    throw err;
  }
}

/**
 * How many mutations, from `from` on, go in the next push: as many as fit both limits, and at
 * least one (a mutation larger than the byte budget goes alone; the server's body limit decides).
 */
export function batchLength(sizes: number[], from: number, limits: PushLimits): number {
  let bytes = ENVELOPE_BYTES;
  let n = 0;
  while (from + n < sizes.length && n < limits.mutations) {
    const size = sizes[from + n] + 1;
    if (n > 0 && bytes + size > limits.bytes) break;
    bytes += size;
    n += 1;
  }
  return n;
}

/** Sends every queued mutation in order; rejections are final and kept for the person at once. */
export async function pushPending(engine: Engine, link: SyncLink): Promise<PushSummary> {
  const queued = await engine.db.selectFrom('sync_outbox').selectAll().orderBy('mutation_id').execute();
  const summary: PushSummary = { pushed: 0, applied: 0, rejected: [] };
  if (queued.length === 0) return summary;
  const limits = await pushLimitsOf(link);
  const mutations: PushedMutation[] = queued.map(({ mutation_id, created_at: _queuedAt, ids, ...op }) => ({ ...op, id: mutation_id, ids: JSON.parse(ids) as string[] }));
  const sizes = mutations.map((m) => Buffer.byteLength(JSON.stringify(m)));
  let from = 0;
  while (from < mutations.length) {
    const batch = mutations.slice(from, from + batchLength(sizes, from, limits));
    const { results } = await callServer<{ results: MutationOutcome[] }>(link.serverUrl, '/api/v1/sync/push', link.token, { client_id: link.clientId, mutations: batch });
    // A server may answer for the first part of a batch only (it caps the work of one push): the
    // rest goes again, first, in the next push, so the order holds.
    if (results.length === 0) throw new SyncHttpError(502, 'The team server answered a push without applying anything');
    summary.pushed += results.length;
    from += results.length;
    const now = timestamp(engine.clock);
    for (const r of results) {
      if (r.status === 'applied') summary.applied += 1;
      else {
        const m = batch.find((b) => b.id === r.mutation_id);
        const inserted = await engine.db
          .insertInto('sync_rejections')
          .values({ mutation_id: r.mutation_id, company_id: m?.company_id ?? '', command: r.command, reason: r.reason ?? 'refused', created_at: now })
          .onConflict((oc) => oc.column('mutation_id').doNothing())
          .executeTakeFirst();
        if (inserted.numInsertedOrUpdatedRows) summary.rejected.push({ mutation_id: r.mutation_id, command: r.command, reason: r.reason ?? 'refused' });
      }
    }
  }
  return summary;
}

/** Pulls every company until the server has nothing more, then returns it all for one apply. */
export async function pullAll(engine: Engine, link: SyncLink): Promise<PullToApply> {
  const companies = await engine.db.selectFrom('sync_companies').select(['company_id', 'cursor']).execute();
  const oldest = await engine.db.selectFrom('sync_outbox').select((eb) => eb.fn.min('mutation_id').as('m')).executeTakeFirst();
  const pendingFrom = Number(oldest?.m ?? 0);
  const merged = new Map<string, PulledCompany>(companies.map((c) => [c.company_id, { company_id: c.company_id, status: 'ok', cursor: c.cursor, changes: [] }]));
  let asking = companies;
  let last: Feed | null = null;
  while (asking.length > 0) {
    last = await callServer<Feed>(link.serverUrl, '/api/v1/sync/pull', link.token, { client_id: link.clientId, companies: asking, pending_from: pendingFrom, limit: PAGE_ROWS });
    for (const c of last.companies) {
      const into = merged.get(c.company_id)!;
      into.status = c.status;
      into.cursor = c.cursor;
      into.changes.push(...c.changes);
    }
    asking = last.companies.filter((c) => c.status === 'ok' && c.more).map((c) => ({ company_id: c.company_id, cursor: c.cursor }));
  }
  return {
    last_mutation_id: last?.last_mutation_id ?? 0,
    rejected: last?.rejected ?? [],
    users: last?.users ?? [],
    companies: [...merged.values()],
  };
}

export interface SyncRound {
  pushed: number;
  applied: number;
  rejected: Array<{ command: string; reason: string }>;
  pulled: number;
  pending: number;
}

export async function syncOnce(engine: Engine, localApp: AppFetch): Promise<SyncRound> {
  const link = await linkOf(engine);
  if (!link) throw new SyncHttpError(409, 'This database is not connected to a team server', 'not_connected');
  try {
    const push = await pushPending(engine, link);
    faultPoint('after-push');
    const pull = await pullAll(engine, link);
    const applied = await applyPull(engine, localApp, pull, timestamp(engine.clock));
    const pending = await engine.db.selectFrom('sync_outbox').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const rejected = [...push.rejected, ...applied.rejected.filter((r) => !push.rejected.some((p) => p.mutation_id === r.mutation_id))];
    return { pushed: push.pushed, applied: push.applied, rejected: rejected.map(({ command, reason }) => ({ command, reason })), pulled: applied.pulled, pending: Number(pending.n) };
  } catch (err) {
    // Kept in words for the app; the CLI prints the error itself.
    const words = describeFailure(err, link.serverUrl, false)?.words ?? (err instanceof Error ? err.message : String(err));
    await engine.db.updateTable('sync_state').set({ last_error: words }).where('id', '=', 1).execute();
    throw err;
  }
}

export interface ConnectOptions {
  serverUrl: string;
  username: string;
  password: string;
  /** Company ids or names; all of the user's companies when empty. */
  companies: string[];
  onProgress?: (message: string) => void;
}

export interface LoginAnswer {
  token: string;
  user: { id: string; username: string };
  companies: Array<{ id: string; name: string; role: string }>;
}

/** Signs in to a team server as `username`, for one call; the password is sent once and kept nowhere. */
export async function signInToServer(serverUrl: string, username: string, password: string): Promise<LoginAnswer> {
  return callServer<LoginAnswer>(serverUrl, '/api/v1/auth/login/', null, { username, password });
}

/** Ends a sign-in made only to look (the token would otherwise stay valid on the server until it expires). */
export async function signOutOfServer(serverUrl: string, token: string): Promise<void> {
  await callServer(serverUrl, '/api/v1/auth/logout/', token, {});
}

export interface Connection {
  link: SyncLink;
  /** The companies chosen, in the order given. */
  companies: Array<{ id: string; name: string }>;
}

/** What may stop a connection once signed in; the chosen companies when nothing does. */
async function checkConnection(engine: Engine, options: ConnectOptions, login: LoginAnswer): Promise<LoginAnswer['companies']> {
  const name = login.user.username;
  const clash = await engine.db.selectFrom('users').select('id').where('username', '=', name).where('id', '!=', login.user.id).executeTakeFirst();
  if (clash) {
    throw new SyncHttpError(409, `This database already has a user of its own named ${name}, who is not the team server's ${name}: connect a database without that user (a new data folder)`, 'username_taken');
  }
  const wanted = options.companies.length
    ? options.companies.map((c) => {
        const found = login.companies.find((k) => k.id === c.toLowerCase() || k.name === c);
        if (!found) throw new SyncHttpError(404, `${options.username} is not a member of a company called ${c} on the team server`, 'not_a_member');
        return found;
      })
    : login.companies;
  const localOnly = await localOnlyCompanies(engine, wanted.map((c) => c.id));
  if (localOnly.length) {
    throw new SyncHttpError(409, `${localOnly.map((c) => c.name).join(', ')} is already on this machine as a local-only company (kept when it was disconnected); downloading it would replace what was done here`, 'company_already_local');
  }
  // Refused before anything changes here: a download replaces rows that pending changes rebase on.
  await assertNothingPending(engine);
  return wanted;
}

/**
 * The first half of connecting: signs in, checks that the chosen companies can come here, and
 * makes this database a replica of that server (nothing downloaded yet).
 */
export async function beginConnection(engine: Engine, options: ConnectOptions): Promise<Connection> {
  const state = await syncState(engine.db);
  if (state.role === 'server') throw new SyncHttpError(409, 'This database is a team server; connect a desktop database instead', 'is_team_server');
  if (state.role === 'replica' && state.server_url !== options.serverUrl) throw new SyncHttpError(409, `This database is already connected to ${state.server_url}`, 'already_connected');
  const login = await signInToServer(options.serverUrl, options.username, options.password);
  // A refusal below ends the sign-in just made, so no token is left behind on the server.
  const wanted = await checkConnection(engine, options, login).catch(async (err: unknown) => {
    await signOutOfServer(options.serverUrl, login.token).catch(() => undefined);
    throw err;
  });
  const clientId = state.client_id ?? newId();
  const previous = await linkOf(engine);
  await engine.db
    .updateTable('sync_state')
    .set({ client_id: clientId, server_url: options.serverUrl, user_id: login.user.id, username: login.user.username, token_enc: engine.secrets.encrypt(login.token), last_error: null })
    .where('id', '=', 1)
    .execute();
  setSyncRole(engine.database.sqlite, 'replica');
  // Connecting again (another company) replaces the token: the old one is revoked when the server answers.
  if (previous) await signOutOfServer(previous.serverUrl, previous.token).catch(() => undefined);
  return { link: { serverUrl: options.serverUrl, token: login.token, clientId }, companies: wanted };
}

/** Of these company ids, the ones this database holds without syncing them. */
export async function localOnlyCompanies(engine: Engine, ids: string[]): Promise<Array<{ id: string; name: string }>> {
  if (ids.length === 0) return [];
  return engine.db
    .selectFrom('companies')
    .select(['id', 'name'])
    .where('id', 'in', ids)
    .where('id', 'not in', engine.db.selectFrom('sync_companies').select('company_id'))
    .execute();
}

/** The second half of connecting (and a resync): downloads each company, one transaction each. */
export async function downloadCompanies(
  engine: Engine,
  link: SyncLink,
  companies: Array<{ id: string; name: string }>,
  progress: (message: string, company: { id: string; name: string }, rows: number) => void,
): Promise<Array<{ id: string; name: string; rows: number }>> {
  const done: Array<{ id: string; name: string; rows: number }> = [];
  for (const company of companies) {
    done.push({ ...company, rows: await download(engine, link, company, (m, rows) => progress(m, company, rows)) });
  }
  return done;
}

/** Makes this database a replica of the chosen companies of a team server and downloads them. */
export async function connect(engine: Engine, options: ConnectOptions): Promise<{ companies: Array<{ id: string; name: string; rows: number }> }> {
  const progress = options.onProgress ?? (() => undefined);
  const { link, companies } = await beginConnection(engine, options);
  return { companies: await downloadCompanies(engine, link, companies, progress) };
}

/** The companies this database keeps in sync, with their names. */
export async function keptCompanies(engine: Engine): Promise<Array<{ id: string; name: string }>> {
  const rows = await engine.db
    .selectFrom('sync_companies')
    .leftJoin('companies', 'companies.id', 'sync_companies.company_id')
    .select(['sync_companies.company_id as id', 'companies.name'])
    .execute();
  return rows.map((c) => ({ id: c.id, name: c.name ?? c.id }));
}

/** Downloads every synced company again, replacing the local copy; nothing may be pending. */
export async function resync(
  engine: Engine,
  onProgress: (message: string, company: { id: string; name: string }, rows: number) => void = () => undefined,
): Promise<{ companies: Array<{ id: string; name: string; rows: number }> }> {
  const link = await linkOf(engine);
  if (!link) throw new SyncHttpError(409, 'This database is not connected to a team server', 'not_connected');
  await assertNothingPending(engine);
  return { companies: await downloadCompanies(engine, link, await keptCompanies(engine), onProgress) };
}

/**
 * Ends the connection. Keeping the local copy leaves the companies here as local-only ones (what
 * was still waiting for the server stays in them, but will never reach it); removing deletes
 * them, which is refused while anything is pending, so nothing entered is lost unasked.
 */
export async function disconnect(engine: Engine, keepLocalCopy: boolean): Promise<{ companies: Array<{ id: string; name: string }> }> {
  const state = await syncState(engine.db);
  if (state.role !== 'replica') throw new SyncHttpError(409, 'This database is not connected to a team server', 'not_connected');
  if (!keepLocalCopy) await assertNothingPending(engine);
  const link = await linkOf(engine);
  // Revokes this desktop's token on the server when it is reachable; offline, it expires there on its own.
  if (link) await signOutOfServer(link.serverUrl, link.token).catch(() => undefined);
  const companies = await keptCompanies(engine);
  const sqlite = engine.database.sqlite;
  await inWriteTransaction(engine, async () => {
    sqlite.pragma('defer_foreign_keys = ON');
    sqlite.prepare('UPDATE sync_state SET capture = 0 WHERE id = 1').run();
    for (const c of companies) {
      if (keepLocalCopy) sqlite.prepare('DELETE FROM sync_companies WHERE company_id = ?').run(c.id);
      else forgetCompany(sqlite, c.id);
    }
    for (const table of ['sync_outbox', 'sync_undo', 'sync_rejections']) sqlite.prepare(`DELETE FROM ${table}`).run();
    sqlite
      .prepare('UPDATE sync_state SET server_url = NULL, user_id = NULL, username = NULL, token_enc = NULL, last_sync_at = NULL, last_error = NULL, capture = 1 WHERE id = 1')
      .run();
  });
  setSyncRole(sqlite, null);
  return { companies };
}

export async function assertNothingPending(engine: Engine): Promise<void> {
  const pending = await engine.db.selectFrom('sync_outbox').select('mutation_id').limit(1).executeTakeFirst();
  const changed = await engine.db.selectFrom('sync_undo').select('key').limit(1).executeTakeFirst();
  if (pending || changed) throw new SyncHttpError(409, 'Local changes are still waiting for the team server: sync them first', 'changes_pending');
}

/**
 * Downloads one company in one transaction: all of it, or (after a failure) none of it. A copy
 * already here is replaced (a full resync), which needs nothing pending (see resync). The rows are
 * written in bulk (core/sync/bulk.ts), and the next page is asked for while one is written, so the
 * server reads it meanwhile.
 */
async function download(engine: Engine, link: SyncLink, company: { id: string; name: string }, progress: (m: string, rows: number) => void): Promise<number> {
  const sqlite = engine.database.sqlite;
  const pageAfter = (cursor: string | null) => {
    const page = callServer<Feed>(link.serverUrl, '/api/v1/sync/pull', link.token, { client_id: link.clientId, companies: [{ company_id: company.id, cursor }], pending_from: 0, limit: PAGE_ROWS });
    // Awaited below; a failure of the writing first must not leave this one unhandled.
    page.catch(() => undefined);
    return page;
  };
  let rows = 0;
  let next: Promise<Feed> | null = pageAfter(null);
  await inWriteTransaction(engine, async () => {
    sqlite.pragma('defer_foreign_keys = ON');
    sqlite.prepare('UPDATE sync_state SET capture = 0 WHERE id = 1').run();
    const bulk = beginBulkDownload(sqlite, company.id, () => forgetCompany(sqlite, company.id));
    let cursor: string | null = null;
    while (next) {
      const page: Feed = await next;
      const c = page.companies[0];
      if (c.status !== 'ok') throw new SyncHttpError(403, `You are not a member of ${company.name} on the team server`, 'not_a_member');
      next = c.more ? pageAfter(c.cursor) : null;
      writeUsers(sqlite, page.users);
      writeChanges(sqlite, c.changes);
      rows += c.changes.length;
      cursor = c.cursor;
      progress(`Downloading ${company.name}: ${rows.toLocaleString('en-US')} rows`, rows);
    }
    bulk.finish();
    sqlite
      .prepare('INSERT INTO sync_companies (company_id, cursor, pulled_at) VALUES (?, ?, ?) ON CONFLICT (company_id) DO UPDATE SET cursor = excluded.cursor, pulled_at = excluded.pulled_at')
      .run(company.id, cursor, timestamp(engine.clock));
    sqlite.prepare('UPDATE sync_state SET capture = 1 WHERE id = 1').run();
  });
  return rows;
}
