/**
 * The team server's half of a push: each mutation of a desktop is replayed through the server's own
 * app as the pushing user, in mutation order, exactly once per (client id, mutation id). The
 * replay and the record of its outcome commit in one transaction (a slice of several mutations, each
 * in its own savepoint), so a crash leaves either both or neither; a repeated push (its answer lost on the way) gets the recorded answer again.
 */
import { sql, type Transaction } from 'kysely';
import { timestamp } from '../clock';
import type { Database } from '../db/schema';
import { type Engine, inWriteTransaction } from '../engine';
import { ForbiddenError } from '../errors';
import { yieldToEventLoop } from '../yielding';
import type { AuthenticatedUser } from '../auth/users';
import { type AppFetch, type Operation, replayOperation } from './operation';

/** Mutations one push may carry; the server announces it (GET /api/v1/sync/limits) and clients batch by it. */
export const PUSH_MUTATIONS = 1_000;

/**
 * Replay time one push may take. The mutations left when it is spent get no answer and come again,
 * first, in the desktop's next push; with a yield after each slice (PUSH_SLICE_MS), a long queue
 * never holds the server's other requests for more than one slice.
 */
export const PUSH_WORK_MS = 1_000;

export interface PushedMutation extends Operation {
  id: number;
  company_id: string;
  command: string;
}

export interface MutationOutcome {
  mutation_id: number;
  command: string;
  status: 'applied' | 'rejected';
  reason: string | null;
}

class Refused extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

async function clientOf(engine: Engine, clientId: string, user: AuthenticatedUser): Promise<number> {
  const read = () => engine.db.selectFrom('sync_clients').selectAll().where('client_id', '=', clientId).executeTakeFirst();
  // Written once per client: a write (and its fsync) per push held every other request meanwhile.
  let row = await read();
  if (!row) {
    const now = timestamp(engine.clock);
    await engine.db
      .insertInto('sync_clients')
      .values({ client_id: clientId, user_id: user.id, last_mutation_id: 0, created_at: now, updated_at: now })
      .onConflict((oc) => oc.column('client_id').doNothing())
      .execute();
    row = await read();
  }
  if (!row || row.user_id !== user.id) throw new ForbiddenError('This client id belongs to another user');
  return row.last_mutation_id;
}

/**
 * The path as the replay will run it: dot segments (also %2e-encoded) resolved first, so that the
 * company check reads the route that will really run, not a string that merely starts right.
 */
export function resolvedPath(path: string): string {
  const url = new URL(path, 'http://localhost');
  return url.pathname + url.search;
}

function pathCompany(path: string): string | null {
  return /^\/api\/companies\/([0-9a-fA-F-]{36})(\/|$)/.exec(path)?.[1]?.toLowerCase() ?? null;
}

/**
 * Replay time one transaction may take. A commit is an fsync on the server's thread (tens of
 * milliseconds on a busy disk): mutations replayed back to back for up to this long share one
 * commit, each in its own savepoint, instead of paying an fsync each; another request waits for at
 * most one slice.
 */
export const PUSH_SLICE_MS = 15;

/** Applies `mutations` (any order given; processed by id) and answers for each, or for the first ones when the work budget ran out. */
export async function applyPush(engine: Engine, fetch: AppFetch, user: AuthenticatedUser, clientId: string, mutations: PushedMutation[]): Promise<{ outcomes: MutationOutcome[]; changedCompanies: Set<string> }> {
  await clientOf(engine, clientId, user);
  const queue = [...mutations].sort((a, b) => a.id - b.id);
  const outcomes: MutationOutcome[] = [];
  const changedCompanies = new Set<string>();
  const started = performance.now();
  while (outcomes.length < queue.length) {
    if (outcomes.length > 0) {
      await yieldToEventLoop();
      if (performance.now() - started > PUSH_WORK_MS) break;
    }
    // Counted only once committed: a failure rolls the whole slice back and answers for none of it.
    const slice = await inWriteTransaction(engine, async (trx) => {
      const done: MutationOutcome[] = [];
      const sliceStarted = performance.now();
      do done.push(await applyOne(engine, trx, fetch, user, clientId, queue[outcomes.length + done.length]));
      while (outcomes.length + done.length < queue.length && performance.now() - sliceStarted < PUSH_SLICE_MS);
      return done;
    });
    for (const outcome of slice) {
      outcomes.push(outcome);
      if (outcome.status === 'applied') changedCompanies.add(queue[outcomes.length - 1].company_id);
    }
  }
  return { outcomes, changedCompanies };
}

/** One mutation inside the slice's transaction: its replay and the record of its outcome, or (refused) only the record. */
async function applyOne(engine: Engine, trx: Transaction<Database>, fetch: AppFetch, user: AuthenticatedUser, clientId: string, m: PushedMutation): Promise<MutationOutcome> {
  const known = await trx.selectFrom('sync_mutations').select(['status', 'reason', 'command']).where('client_id', '=', clientId).where('mutation_id', '=', m.id).executeTakeFirst();
  // Answered before (the answer was lost on the way): the same answer again, and nothing changed.
  if (known) return { mutation_id: m.id, command: known.command, status: known.status, reason: known.reason };
  const record = (status: 'applied' | 'rejected', reason: string | null) =>
    Promise.all([
      trx.insertInto('sync_mutations').values({ client_id: clientId, mutation_id: m.id, company_id: m.company_id, command: m.command, status, reason, created_at: timestamp(engine.clock) }).execute(),
      trx.updateTable('sync_clients').set({ last_mutation_id: m.id, updated_at: timestamp(engine.clock) }).where('client_id', '=', clientId).where('last_mutation_id', '<', m.id).execute(),
    ]);
  await sql`SAVEPOINT sync_mutation`.execute(trx);
  try {
    const path = resolvedPath(m.path);
    if (pathCompany(path) !== m.company_id.toLowerCase()) throw new Refused("The operation's path is not a route of its company");
    const outcome = await replayOperation(fetch, { ...m, path }, { user, engine: { ...engine, db: trx } });
    if (!outcome.ok) throw new Refused(outcome.reason ?? `HTTP ${outcome.status}`);
    await record('applied', null);
    await sql`RELEASE sync_mutation`.execute(trx);
    return { mutation_id: m.id, command: m.command, status: 'applied', reason: null };
  } catch (err) {
    if (!(err instanceof Refused)) throw err;
    await sql`ROLLBACK TO sync_mutation`.execute(trx);
    await sql`RELEASE sync_mutation`.execute(trx);
    await record('rejected', err.reason);
    return { mutation_id: m.id, command: m.command, status: 'rejected', reason: err.reason };
  }
}
