/**
 * Events and their settled deliveries are kept 90 days: the feed reads back that far, and so do the
 * delivery log and its replay. Older ones are removed oldest first, in short write transactions;
 * an event one of whose deliveries is still pending (an endpoint turned off holds its queue) is
 * kept, and so is every event after it.
 */
import type { Transaction } from 'kysely';
import { addDays } from '../dates';
import type { Database } from '../db/schema';
import { type Engine, inWriteTransaction } from '../engine';
import { yieldToEventLoop } from '../yielding';

export const EVENT_RETENTION_DAYS = 90;
const PRUNE_BATCH = 2000;

/** The timestamp before which an event is old enough to go. */
export function retentionCutoff(now: string): string {
  return `${addDays(now.slice(0, 10), -EVENT_RETENTION_DAYS)}${now.slice(10)}`;
}

async function pruneBatch(trx: Transaction<Database>, cutoff: string): Promise<number> {
  const oldest = await trx.selectFrom('events').select(['seq', 'created_at']).orderBy('seq').limit(PRUNE_BATCH).execute();
  const firstPending = (await trx.selectFrom('webhook_deliveries').select((eb) => eb.fn.min('event_seq').as('seq')).where('status', '=', 'pending').executeTakeFirst())?.seq ?? null;
  const old = [];
  for (const event of oldest) {
    if (event.created_at >= cutoff || (firstPending !== null && event.seq >= firstPending)) break;
    old.push(event);
  }
  if (old.length === 0) return 0;
  const through = old[old.length - 1].seq;
  // Per endpoint, through its (endpoint_id, event_seq) index: there are few endpoints and many deliveries.
  const endpoints = await trx.selectFrom('webhook_endpoints').select('id').execute();
  for (const { id } of endpoints) await trx.deleteFrom('webhook_deliveries').where('endpoint_id', '=', id).where('event_seq', '<=', through).execute();
  await trx.deleteFrom('events').where('seq', '<=', through).execute();
  return old.length;
}

/** Removes the events (and their deliveries) older than the retention, a batch per transaction; answers how many. */
export async function pruneEvents(engine: Pick<Engine, 'db' | 'writeWait'>, now: string): Promise<number> {
  const cutoff = retentionCutoff(now);
  let pruned = 0;
  for (;;) {
    const removed = await inWriteTransaction(engine, (trx) => pruneBatch(trx, cutoff));
    pruned += removed;
    if (removed < PRUNE_BATCH) return pruned;
    await yieldToEventLoop();
  }
}
