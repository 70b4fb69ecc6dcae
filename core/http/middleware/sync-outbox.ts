/**
 * The desktop half of a synced write. On a company this database replicates, a write request runs
 * in one transaction that also queues it in sync_outbox (a growing mutation id, the command's
 * name, the operation and the identifiers it created), so the local change and its pending push
 * are committed together or not at all. A refused request queues nothing.
 */
import type { MiddlewareHandler } from 'hono';
import type { Transaction } from 'kysely';
import type { Database } from '../../db/schema';
import type { AppEnv } from '../env';
import { problem } from '../problem';
import { encodeBody, type Operation, replayOf } from '../../sync/operation';
import { companySyncRole } from '../../db/replicas';
import { newTrace, withTrace } from '../../trace';
import { inWriteTransaction } from '../../engine';

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Operations with an immediate outside effect that only the team server may have for a synced
 * company: sending a sequence step now, the mail accounts it sends with (their passwords are
 * sealed with the server's key), and a customer's portal link (its random token, replayed, would differ).
 */
const TEAM_SERVER_ONLY = [/\/sequences\/queue\/[^/]+\/send$/, /\/email-connections(\/[^/]+)?$/, /\/customers\/[^/]+\/portal-link$/];

class NothingQueued extends Error {}

export interface QueuedMutation extends Operation {
  mutation_id: number;
  company_id: string;
  command: string;
}

export async function queueMutation(trx: Transaction<Database>, entry: Omit<QueuedMutation, 'mutation_id'>, now: string): Promise<number> {
  const { last_mutation_id } = await trx
    .updateTable('sync_state')
    .set((eb) => ({ last_mutation_id: eb('last_mutation_id', '+', 1) }))
    .where('id', '=', 1)
    .returning('last_mutation_id')
    .executeTakeFirstOrThrow();
  await trx
    .insertInto('sync_outbox')
    .values({ ...entry, mutation_id: last_mutation_id, ids: JSON.stringify(entry.ids), created_at: now })
    .execute();
  return last_mutation_id;
}

/** Mounted after the membership check on /api/companies/{company_id}/*; `onQueued` wakes the sync loop. */
export function syncedWrites(onQueued: () => void): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (READS.has(c.req.method) || replayOf(c)) return next();
    const engine = c.var.engine;
    const companyId = c.var.membership.company_id;
    if ((await companySyncRole(engine.db, companyId)) !== 'replica') return next();
    if (TEAM_SERVER_ONLY.some((re) => re.test(c.req.path))) {
      return problem(409, 'team_server_only', 'This company is synced with a team server, which does this: do it there (in the app connected to it)');
    }
    const contentType = c.req.header('content-type') ?? null;
    const body = encodeBody(contentType, new Uint8Array(await c.req.raw.clone().arrayBuffer()));
    const url = new URL(c.req.url);
    const trace = newTrace();
    let queued = false;
    try {
      await inWriteTransaction(engine, async (trx) => {
        c.set('engine', { ...engine, db: trx });
        await withTrace(trace, next);
        if (c.res.status >= 400 || trace.commands.length === 0) throw new NothingQueued();
        const op = { method: c.req.method, path: url.pathname + url.search, content_type: contentType, ...body, ids: trace.made };
        await queueMutation(trx, { ...op, company_id: companyId, command: trace.commands[0] }, new Date().toISOString());
        queued = true;
      });
    } catch (err) {
      if (!(err instanceof NothingQueued)) throw err;
    } finally {
      c.set('engine', engine);
    }
    if (queued) onQueued();
  };
}
