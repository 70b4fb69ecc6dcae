/**
 * Reads the change record (and the team server's rejected sync operations) past its cursor into
 * events, and queues a delivery for every endpoint that subscribed, in the same transaction as the
 * cursor moves: an event is made once, with one id, whatever stops the process.
 */
import type { Transaction } from 'kysely';
import { timestamp } from '../clock';
import { chunks } from '../chunks';
import type { Database } from '../db/schema';
import { type Engine, inWriteTransaction } from '../engine';
import { newId } from '../ids';
import { EVENT_ENTITIES, eventsOfChange, type NewEvent, rejectionEvent, subscribes } from './events';

/**
 * Change rows read per transaction: a refresh writes hundreds of thousands; each batch is a short
 * write. A bank import's 7,000 payments make as many events: 2,000 at a time held the server's
 * requests up to 300 ms on a loaded machine (npm run bench:cash), 500 about a quarter of that.
 */
export const MATERIALIZE_BATCH = 500;

interface Made {
  company_id: string;
  created_at: string;
  event: NewEvent;
}

async function readChanges(trx: Transaction<Database>, after: number, limit: number) {
  // Only the entities events come from; the others (a refresh's hundreds of thousands of insight
  // rows) are passed over by SQLite, never parsed here. Inside the write transaction no change
  // below the highest seq can still commit, so the cursor may move up to it.
  const top = (await trx.selectFrom('changes').select((eb) => eb.fn.max('seq').as('seq')).executeTakeFirst())?.seq ?? after;
  const rows = await trx
    .selectFrom('changes')
    .select(['seq', 'company_id', 'entity', 'entity_id', 'op', 'data', 'created_at'])
    .where('seq', '>', after)
    .where('seq', '<=', top)
    .where('entity', 'in', [...EVENT_ENTITIES])
    .orderBy('seq')
    .limit(limit)
    .execute();
  const replicated = new Set((await trx.selectFrom('sync_companies').select('company_id').execute()).map((r) => r.company_id));
  const failedJobs = rows.filter((r) => r.entity === 'job' && r.op === 'update').map((r) => r.entity_id);
  const jobs = new Map<string, { kind: string; subject_id: string | null }>();
  for (const ids of chunks(failedJobs, 500)) {
    for (const j of await trx.selectFrom('jobs').select(['id', 'kind', 'subject_id']).where('id', 'in', ids).execute()) jobs.set(j.id, j);
  }
  const made: Made[] = [];
  for (const r of rows) {
    // A replica's companies are the team server's: their events are made there, once.
    if (r.company_id === null || replicated.has(r.company_id)) continue;
    for (const event of eventsOfChange(r, jobs.get(r.entity_id))) made.push({ company_id: r.company_id, created_at: r.created_at, event });
  }
  const full = rows.length === limit;
  return { made, last: full ? rows[rows.length - 1].seq : Math.max(after, Number(top)), full };
}

async function readRejections(trx: Transaction<Database>, after: number, limit: number) {
  const rows = await trx
    .selectFrom('sync_mutations')
    .select(['seq', 'client_id', 'mutation_id', 'company_id', 'command', 'status', 'reason', 'created_at'])
    .where('seq', '>', after)
    .orderBy('seq')
    .limit(limit)
    .execute();
  const made: Made[] = rows.filter((r) => r.status === 'rejected').map((r) => ({ company_id: r.company_id, created_at: r.created_at, event: rejectionEvent(r) }));
  return { made, last: rows.at(-1)?.seq ?? after, full: rows.length === limit };
}

/** One batch; returns how many events it made and whether more changes wait. */
export async function materializeBatch(engine: Pick<Engine, 'db' | 'clock' | 'writeWait'>, batch = MATERIALIZE_BATCH): Promise<{ events: number; more: boolean }> {
  return inWriteTransaction(engine, async (trx) => {
    const cursor = await trx.selectFrom('event_cursor').selectAll().where('id', '=', 1).executeTakeFirstOrThrow();
    const changes = await readChanges(trx, cursor.changes_seq, batch);
    const rejections = await readRejections(trx, cursor.rejections_seq, batch);
    const made = [...changes.made, ...rejections.made];
    if (made.length) await insertEvents(trx, made, timestamp(engine.clock));
    if (changes.last !== cursor.changes_seq || rejections.last !== cursor.rejections_seq) {
      await trx.updateTable('event_cursor').set({ changes_seq: changes.last, rejections_seq: rejections.last }).where('id', '=', 1).execute();
    }
    return { events: made.length, more: changes.full || rejections.full };
  });
}

async function insertEvents(trx: Transaction<Database>, made: Made[], now: string): Promise<void> {
  const companies = [...new Set(made.map((m) => m.company_id))];
  const endpoints = await trx
    .selectFrom('webhook_endpoints')
    .select(['id', 'company_id', 'events'])
    .where('company_id', 'in', companies)
    .where('deleted_at', 'is', null)
    .where('disabled_at', 'is', null)
    .execute();
  for (const part of chunks(made, 200)) {
    const rows = part.map((m) => ({
      id: newId(),
      company_id: m.company_id,
      type: m.event.type,
      resource_type: m.event.resource_type,
      resource_id: m.event.resource_id,
      data: JSON.stringify(m.event.data),
      created_at: m.created_at,
    }));
    const inserted = await trx.insertInto('events').values(rows).returning(['seq', 'id', 'company_id', 'type', 'resource_type', 'resource_id']).execute();
    const deliveries = inserted.flatMap((e) =>
      endpoints
        .filter((p) => p.company_id === e.company_id && subscribes(JSON.parse(p.events) as string[], e.type))
        .map((p) => ({
          id: newId(),
          company_id: e.company_id,
          endpoint_id: p.id,
          event_seq: e.seq,
          event_id: e.id,
          resource_key: `${e.resource_type}:${e.resource_id}`,
          status: 'pending' as const,
          next_attempt_at: now,
          last_attempt_at: null,
          response_status: null,
          response_ms: null,
          error: null,
          created_at: now,
          delivered_at: null,
        })),
    );
    for (const rowsOf of chunks(deliveries, 200)) await trx.insertInto('webhook_deliveries').values(rowsOf).execute();
  }
}

/** Every batch until caught up, yielding between them; the number of events made. */
export async function materializeEvents(engine: Pick<Engine, 'db' | 'clock' | 'writeWait'>): Promise<number> {
  let total = 0;
  for (;;) {
    const { events, more } = await materializeBatch(engine);
    total += events;
    if (!more) return total;
    await new Promise((resolve) => setImmediate(resolve));
  }
}
