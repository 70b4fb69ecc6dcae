/**
 * Sends the deliveries that are due: at least once, in order per resource (a later event of an
 * invoice waits while an earlier one is being retried), retried with exponential backoff for 24
 * hours; an endpoint whose every delivery failed for three days is disabled, said on the endpoint.
 */
import { sql } from 'kysely';
import { timestamp } from '../clock';
import { type Engine, inWriteTransaction } from '../engine';
import { newId } from '../ids';
import { type WebhookHostRule, resolvedUrlRefusal } from './destination';
import { SIGNATURE_HEADER, signatureHeader } from './signature';

export const RETRY_FOR_MS = 24 * 3600_000;
export const DISABLE_AFTER_MS = 3 * 24 * 3600_000;
const TIMEOUT_MS = 10_000;
const BATCH = 50;

/** The wait before try n+1 after n failed tries: 30 s, 1 min, 2 min, ... at most an hour. */
export function retryDelay(attempts: number): number {
  return Math.min(30_000 * 2 ** Math.max(0, attempts - 1), 3600_000);
}

export interface DeliveryOptions {
  rule: WebhookHostRule;
  fetch?: typeof fetch;
  timeoutMs?: number;
}

interface Due {
  id: string;
  endpoint_id: string;
  event_id: string;
  attempts: number;
  created_at: string;
  url: string;
  secret_enc: string;
  failing_since: string | null;
  type: string;
  company_id: string;
  event_created_at: string;
  data: string;
}

async function dueDeliveries(engine: Pick<Engine, 'db'>, now: string): Promise<Due[]> {
  return engine.db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_endpoints as w', 'w.id', 'd.endpoint_id')
    .innerJoin('events as e', 'e.seq', 'd.event_seq')
    .select(['d.id', 'd.endpoint_id', 'd.event_id', 'd.attempts', 'd.created_at', 'w.url', 'w.secret_enc', 'w.failing_since', 'e.type', 'e.company_id', 'e.created_at as event_created_at', 'e.data'])
    .where('d.status', '=', 'pending')
    .where('d.next_attempt_at', '<=', now)
    .where('w.deleted_at', 'is', null)
    .where('w.disabled_at', 'is', null)
    // In order per resource: an earlier delivery of the same resource waiting for its retry holds
    // this one back. One that is due comes earlier in this batch (ordered by event), and its
    // failure ends the endpoint's batch before this one is tried.
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('webhook_deliveries as p')
            .select(sql`1`.as('one'))
            .whereRef('p.endpoint_id', '=', 'd.endpoint_id')
            .whereRef('p.resource_key', '=', 'd.resource_key')
            .where('p.status', '=', 'pending')
            .where('p.next_attempt_at', '>', now)
            .whereRef('p.event_seq', '<', 'd.event_seq'),
        ),
      ),
    )
    .orderBy('d.event_seq')
    .limit(BATCH)
    .execute();
}

/** The JSON a receiver gets. */
export function deliveryBody(d: Pick<Due, 'event_id' | 'type' | 'event_created_at' | 'company_id' | 'data'>): string {
  return JSON.stringify({ id: d.event_id, type: d.type, created_at: d.event_created_at, company_id: d.company_id, data: JSON.parse(d.data) as unknown });
}

interface Outcome {
  ok: boolean;
  status: number | null;
  ms: number;
  error: string | null;
}

async function send(engine: Pick<Engine, 'clock' | 'secrets'>, d: Due, options: DeliveryOptions): Promise<Outcome> {
  const started = Date.now();
  const refusal = await resolvedUrlRefusal(options.rule, d.url);
  if (refusal) return { ok: false, status: null, ms: 0, error: refusal };
  const body = deliveryBody(d);
  const unix = Math.floor(engine.clock.now().getTime() / 1000);
  try {
    const res = await (options.fetch ?? fetch)(d.url, {
      method: 'POST',
      redirect: 'manual',
      signal: AbortSignal.timeout(options.timeoutMs ?? TIMEOUT_MS),
      headers: {
        'content-type': 'application/json',
        'user-agent': 'ardesk-webhooks/1',
        'ardesk-event-id': d.event_id,
        'ardesk-event-type': d.type,
        [SIGNATURE_HEADER]: signatureHeader(engine.secrets.decrypt(d.secret_enc), unix, body),
      },
      body,
    });
    await res.body?.cancel();
    const ok = res.status >= 200 && res.status < 300;
    return { ok, status: res.status, ms: Date.now() - started, error: ok ? null : `The endpoint answered HTTP ${res.status}` };
  } catch (err) {
    const timedOut = err instanceof Error && err.name === 'TimeoutError';
    return { ok: false, status: null, ms: Date.now() - started, error: timedOut ? 'The endpoint did not answer within 10 seconds' : `Could not reach the endpoint (${err instanceof Error ? err.message : String(err)})` };
  }
}

async function recordOutcome(engine: Pick<Engine, 'db' | 'clock' | 'writeWait'>, d: Due, outcome: Outcome): Promise<void> {
  const now = timestamp(engine.clock);
  const attempts = d.attempts + 1;
  await inWriteTransaction(engine, async (trx) => {
    if (outcome.ok) {
      await trx
        .updateTable('webhook_deliveries')
        .set({ status: 'delivered', attempts, last_attempt_at: now, delivered_at: now, response_status: outcome.status, response_ms: outcome.ms, error: null })
        .where('id', '=', d.id)
        .execute();
      await trx.updateTable('webhook_endpoints').set({ failing_since: null }).where('id', '=', d.endpoint_id).execute();
      return;
    }
    const givenUp = Date.parse(now) - Date.parse(d.created_at) >= RETRY_FOR_MS;
    await trx
      .updateTable('webhook_deliveries')
      .set({
        status: givenUp ? 'failed' : 'pending',
        attempts,
        last_attempt_at: now,
        next_attempt_at: new Date(Date.parse(now) + retryDelay(attempts)).toISOString(),
        response_status: outcome.status,
        response_ms: outcome.ms,
        error: outcome.error,
      })
      .where('id', '=', d.id)
      .execute();
    const since = d.failing_since ?? now;
    const disable = Date.parse(now) - Date.parse(since) >= DISABLE_AFTER_MS;
    await trx
      .updateTable('webhook_endpoints')
      .set({
        failing_since: since,
        ...(disable ? { disabled_at: now, disabled_reason: `Every delivery failed since ${since.slice(0, 10)} (last: ${outcome.error}); fix the endpoint, then enable it again` } : {}),
      })
      .where('id', '=', d.endpoint_id)
      .execute();
  });
}

/** Sends what is due (one batch); how many were delivered and how many failed this time. */
export async function deliverDue(engine: Pick<Engine, 'db' | 'clock' | 'secrets' | 'writeWait'>, options: DeliveryOptions): Promise<{ delivered: number; failed: number }> {
  const due = await dueDeliveries(engine, timestamp(engine.clock));
  const byEndpoint = new Map<string, Due[]>();
  for (const d of due) byEndpoint.set(d.endpoint_id, [...(byEndpoint.get(d.endpoint_id) ?? []), d]);
  let delivered = 0;
  let failed = 0;
  // Endpoints in parallel; one endpoint's deliveries one after another, and its first failure ends
  // its batch: an endpoint that is down is tried again after the backoff, not hammered.
  await Promise.all(
    [...byEndpoint.values()].map(async (list) => {
      for (const d of list) {
        const outcome = await send(engine, d, options);
        await recordOutcome(engine, d, outcome);
        if (!outcome.ok) {
          failed++;
          return;
        }
        delivered++;
      }
    }),
  );
  return { delivered, failed };
}

/** Queues the event again for one endpoint (a replay keeps the event's id). */
export async function replayDelivery(engine: Pick<Engine, 'db' | 'clock' | 'writeWait'>, companyId: string, endpointId: string, deliveryId: string): Promise<string | null> {
  const now = timestamp(engine.clock);
  return inWriteTransaction(engine, async (trx) => {
    const d = await trx.selectFrom('webhook_deliveries').selectAll().where('id', '=', deliveryId).where('endpoint_id', '=', endpointId).where('company_id', '=', companyId).executeTakeFirst();
    if (!d) return null;
    const id = newId();
    await trx
      .insertInto('webhook_deliveries')
      .values({ ...d, id, status: 'pending', attempts: 0, next_attempt_at: now, last_attempt_at: null, response_status: null, response_ms: null, error: null, created_at: now, delivered_at: null })
      .execute();
    return id;
  });
}
