/**
 * When the engine runs, as durable jobs of kind intelligence_refresh:
 * - on demand (API, one full refresh at a time per company);
 * - once a day: at start-up and then daily, a full refresh for each company not refreshed today;
 * - after changes: a watcher reads the change record past the company's watermark, finds the
 *   customers whose invoices, payments, communications, labels or actions changed, and queues one
 *   debounced job for just them (later changes join the queued job). The watermark moves in the
 *   same transaction as the job is queued, so no change is lost to a crash.
 */
import { today as todayOf } from '../clock';
import { type Actor, type CommandTx, type Engine, runCommand, systemActor } from '../engine';
import { newId } from '../ids';
import { addMs, enqueueJob, INTERRUPTED } from '../jobs/queue';
import { type JobHandler, PermanentJobError } from '../jobs/worker';
import { REFRESH_COMMAND, refreshIntelligence, type RefreshReport } from './runner';
import type { Db } from '../db/connection';
import { replicatedCompanies } from '../db/replicas';

export const INTELLIGENCE_REFRESH = 'intelligence_refresh';
/** Changes within this window are refreshed together. */
export const DEBOUNCE_MS = 2_000;
/** More touched customers than this: a full refresh is cheaper than a list. */
const MAX_LISTED_CUSTOMERS = 5_000;
/** Commands whose changes are the engine's own bookkeeping: the change watcher refreshes nobody for them. */
export const IGNORED_COMMANDS = [REFRESH_COMMAND, 'intelligence_watch', 'intelligence_progress', 'claim_job', 'complete_job', 'fail_job', 'reclaim_job'];

export interface RefreshPayload {
  scope: 'full' | 'customers';
  customer_ids?: string[];
  reason: 'on_demand' | 'daily' | 'changes';
}

export interface RefreshProgress {
  done: number;
  total: number;
}

/** Queues a full refresh, or returns the one already queued or running for the company. */
export async function requestFullRefresh(engine: Pick<Engine, 'db' | 'clock'>, companyId: string, actor: Actor, reason: 'on_demand' | 'daily'): Promise<{ id: string; created: boolean }> {
  return runCommand(engine, 'request_intelligence_refresh', { actor, companyId }, async (tx) => {
    const pending = await tx.db
      .selectFrom('jobs')
      .select('id')
      .where('company_id', '=', companyId)
      .where('kind', '=', INTELLIGENCE_REFRESH)
      .where('subject_id', '=', 'full')
      .where('status', 'in', ['queued', 'running'])
      .executeTakeFirst();
    if (pending) return { id: pending.id, created: false };
    const key = reason === 'daily' ? await dailyKey(tx.db, companyId, tx.today) : `intelligence:${companyId}:full:${newId()}`;
    const payload: RefreshPayload = { scope: 'full', reason };
    return enqueueJob(tx, { companyId, kind: INTELLIGENCE_REFRESH, idempotencyKey: key, payload, subjectId: 'full', maxAttempts: 3 });
  });
}

/**
 * One daily refresh per company and day, so that a refresh that keeps failing is not retried at
 * every start. A company with no last full refresh is owed one whatever the day: it never had one,
 * or a migration forgot it so that the next refresh fills what it added (0280), possibly on a day
 * whose refresh already ran.
 */
async function dailyKey(db: Db, companyId: string, today: string): Promise<string> {
  const state = await db.selectFrom('intelligence_state').select('last_full_refresh_date').where('company_id', '=', companyId).executeTakeFirst();
  return state?.last_full_refresh_date ? `intelligence:${companyId}:daily:${today}` : `intelligence:${companyId}:owed:${newId()}`;
}

/** Companies whose last full refresh is not today get one (start-up catch-up and the daily run). */
export async function queueDailyRefreshes(engine: Pick<Engine, 'db' | 'clock'>): Promise<string[]> {
  const day = todayOf(engine.clock);
  const due = await engine.db
    .selectFrom('companies as c')
    .leftJoin('intelligence_state as s', 's.company_id', 'c.id')
    .select('c.id')
    .where((eb) => eb.or([eb('s.last_full_refresh_date', 'is', null), eb('s.last_full_refresh_date', '<', day)]))
    .where('c.id', 'not in', replicatedCompanies(engine.db))
    .execute();
  const queued: string[] = [];
  for (const { id } of due) if ((await requestFullRefresh(engine, id, systemActor, 'daily')).created) queued.push(id);
  return queued;
}

/**
 * Per database and company, a watermark moved in memory only, past changes that touched no
 * customer (the refresh's own insights and proposals, job bookkeeping). During a refresh every poll
 * finds such changes; writing the watermark each time was a commit, and its fsync, on the server's
 * event loop several times a second. It is written once the change record is quiet (a poll finds
 * nothing new), or with the next queued refresh; after a crash the watcher re-reads those changes
 * and again finds nothing in them.
 */
const skipped = new WeakMap<object, Map<string, number>>();

/**
 * Reads the change record past each company's watermark and queues (or extends) a debounced
 * refresh of the touched customers. Returns the companies it queued work for.
 */
export async function watchChanges(engine: Pick<Engine, 'db' | 'clock' | 'database'>): Promise<string[]> {
  const sqlite = engine.database.sqlite;
  let inMemory = skipped.get(engine.database);
  if (!inMemory) skipped.set(engine.database, (inMemory = new Map()));
  const heads = sqlite
    .prepare(
      `SELECT c.id AS company_id, coalesce(s.last_change_seq, 0) AS since,
        (SELECT max(seq) FROM changes WHERE company_id = c.id) AS head
       FROM companies c LEFT JOIN intelligence_state s ON s.company_id = c.id
       WHERE c.id NOT IN (SELECT company_id FROM sync_companies)`,
    )
    .all() as { company_id: string; since: number; head: number | null }[];
  const queued: string[] = [];
  for (const { company_id: companyId, since: saved, head } of heads) {
    const moved = inMemory.get(companyId) ?? 0;
    const since = Math.max(saved, moved);
    if (head === null || head <= since) {
      if (moved > saved) {
        await saveWatermark(engine, companyId, moved);
        inMemory.delete(companyId);
      }
      continue;
    }
    const ignored = IGNORED_COMMANDS.map(() => '?').join(',');
    const touched = (
      sqlite
        .prepare(
          `WITH ch AS (SELECT entity, entity_id FROM changes WHERE company_id = ? AND seq > ? AND seq <= ? AND command NOT IN (${ignored}))
           SELECT i.customer_id AS id FROM ch JOIN invoices i ON i.id = ch.entity_id WHERE ch.entity = 'invoice'
           UNION SELECT i.customer_id FROM ch JOIN invoices i ON i.id = substr(ch.entity_id, 1, 36) WHERE ch.entity = 'invoice_label'
           UNION SELECT i.customer_id FROM ch JOIN payments p ON p.id = ch.entity_id JOIN invoices i ON i.id = p.invoice_id WHERE ch.entity = 'payment'
           UNION SELECT m.customer_id FROM ch JOIN communications m ON m.id = ch.entity_id WHERE ch.entity = 'communication'
           UNION SELECT a.customer_id FROM ch JOIN actions a ON a.id = ch.entity_id WHERE ch.entity = 'action'
           UNION SELECT a.customer_id FROM ch JOIN action_approvals p ON p.id = ch.entity_id JOIN actions a ON a.id = p.action_id WHERE ch.entity = 'action_approval'
           UNION SELECT c.id FROM ch JOIN customers c ON c.id = ch.entity_id WHERE ch.entity = 'customer'`,
        )
        .all(companyId, since, head, ...IGNORED_COMMANDS) as { id: string }[]
    ).map((r) => r.id);
    if (!touched.length) {
      inMemory.set(companyId, head);
      continue;
    }
    inMemory.delete(companyId);
    await runCommand(engine, 'intelligence_watch', { actor: systemActor, companyId }, async (tx) => {
      await tx.db
        .insertInto('intelligence_state')
        .values({ company_id: companyId, last_change_seq: head, last_full_refresh_date: null, updated_at: tx.now })
        .onConflict((oc) => oc.column('company_id').doUpdateSet({ last_change_seq: head, updated_at: tx.now }))
        .execute();
      // A full refresh that has not started yet covers these customers too.
      const fullQueued = await tx.db
        .selectFrom('jobs')
        .select('id')
        .where('company_id', '=', companyId)
        .where('kind', '=', INTELLIGENCE_REFRESH)
        .where('subject_id', '=', 'full')
        .where('status', '=', 'queued')
        .executeTakeFirst();
      if (fullQueued) return;
      const runAfter = addMs(tx.now, DEBOUNCE_MS);
      const open = await tx.db
        .selectFrom('jobs')
        .select(['id', 'payload'])
        .where('company_id', '=', companyId)
        .where('kind', '=', INTELLIGENCE_REFRESH)
        .where('subject_id', '=', 'changes')
        .where('status', '=', 'queued')
        .executeTakeFirst();
      if (open) {
        const before = JSON.parse(open.payload) as RefreshPayload;
        const ids = [...new Set([...(before.customer_ids ?? []), ...touched])];
        const payload: RefreshPayload = ids.length > MAX_LISTED_CUSTOMERS ? { scope: 'full', reason: 'changes' } : { ...before, customer_ids: ids };
        await tx.db.updateTable('jobs').set({ payload: JSON.stringify(payload), run_after: runAfter, updated_at: tx.now }).where('id', '=', open.id).execute();
        await tx.record('job', open.id, 'update', { payload, run_after: runAfter });
      } else {
        const payload: RefreshPayload = touched.length > MAX_LISTED_CUSTOMERS ? { scope: 'full', reason: 'changes' } : { scope: 'customers', customer_ids: touched, reason: 'changes' };
        await enqueueJob(tx, { companyId, kind: INTELLIGENCE_REFRESH, idempotencyKey: `intelligence:${companyId}:changes:${newId()}`, payload, subjectId: 'changes', runAfter, maxAttempts: 3 });
      }
      queued.push(companyId);
    });
  }
  return queued;
}

/** The job a refresh runs for, as claimed: its progress is written only while this claim holds. */
export interface RefreshJobRef {
  id: string;
  attempts: number;
  /** Its tries in a row that ended with their process (kept in its result until one ends otherwise). */
  interruptions?: number;
}

/** A refresh whose process ended under it this many times in a row is not tried again. */
export const MAX_INTERRUPTIONS = 2;

export const INTERRUPTED_TWICE =
  'Not tried again: this refresh was cut short twice in a row because the process running it ended (a crash, or it was killed). A new refresh can be started from Insights.';

/** Progress is written at most this often. */
const PROGRESS_EVERY_MS = 500;

/**
 * Writes a running job's progress into its result inside the refresh's own chunk transaction (at
 * most every PROGRESS_EVERY_MS, and the last step): in the server the refresh runs in its own
 * process, and a commit of the server's for each step waited for the log's fsync on the event loop
 * that answers requests.
 */
export function jobProgressWriter(job: RefreshJobRef): (tx: CommandTx, progress: RefreshProgress) => Promise<void> {
  let lastWrite = 0;
  return async (tx, progress) => {
    const now = Date.now();
    if (now - lastWrite < PROGRESS_EVERY_MS && progress.done < progress.total) return;
    lastWrite = now;
    const kept = job.interruptions ? { progress, interruptions: job.interruptions } : { progress };
    const result = JSON.stringify(kept);
    const updated = await tx.db.updateTable('jobs').set({ result, updated_at: tx.now }).where('id', '=', job.id).where('status', '=', 'running').where('attempts', '=', job.attempts).executeTakeFirst();
    if (Number(updated.numUpdatedRows)) await tx.record('job', job.id, 'update', { result: kept });
  };
}

/** Runs a refresh: in this process (refreshInProcess), or in the server's refresh process (runtime.ts). */
export type RefreshExecutor = (engine: Engine, companyId: string, options: { customerIds?: string[]; job: RefreshJobRef }) => Promise<RefreshReport>;

export const refreshInProcess: RefreshExecutor = (engine, companyId, { customerIds, job }) =>
  refreshIntelligence(engine, companyId, { customerIds, inChunk: jobProgressWriter(job) });

/**
 * Tries in a row cut short by the end of their process, this one included when the last try's was
 * (the worker's reclaim says so): pure, from the job's last error and kept result.
 */
export function interruptionsInARow(job: { last_error: string | null; result: string | null }): number {
  if (job.last_error !== INTERRUPTED) return 0;
  const kept = job.result ? (JSON.parse(job.result) as { interruptions?: number }) : {};
  return (kept.interruptions ?? 0) + 1;
}

/**
 * The job handler of intelligence_refresh, running each refresh with `execute`. A refresh whose
 * process was killed twice in a row under it is not tried a third time (a refresh that kills its
 * process, or a server killed at each start, would loop): it fails with a sentence saying so.
 */
export function refreshJobHandlerWith(execute: RefreshExecutor): JobHandler {
  return async (job, ctx) => {
    const payload = JSON.parse(job.payload) as RefreshPayload;
    const interruptions = interruptionsInARow(job);
    if (interruptions >= MAX_INTERRUPTIONS) throw new PermanentJobError(INTERRUPTED_TWICE);
    if (interruptions) {
      // Counted before the refresh starts: the count must be there when the process ends before any progress is written.
      await runCommand(ctx.engine, 'intelligence_progress', { actor: systemActor, companyId: job.company_id }, async (tx) => {
        const result = JSON.stringify({ interruptions });
        const updated = await tx.db.updateTable('jobs').set({ result, updated_at: tx.now }).where('id', '=', job.id).where('status', '=', 'running').where('attempts', '=', job.attempts).executeTakeFirst();
        if (Number(updated.numUpdatedRows)) await tx.record('job', job.id, 'update', { result: { interruptions } });
      });
    }
    const report = await execute(ctx.engine, job.company_id, {
      customerIds: payload.scope === 'customers' ? payload.customer_ids : undefined,
      job: { id: job.id, attempts: job.attempts, interruptions },
    });
    await ctx.succeed({ write: async () => ({ progress: { done: report.customers, total: report.customers }, report }) });
  };
}

async function saveWatermark(engine: Pick<Engine, 'db' | 'clock'>, companyId: string, seq: number): Promise<void> {
  await runCommand(engine, 'intelligence_watch', { actor: systemActor, companyId }, async (tx) => {
    await tx.db
      .insertInto('intelligence_state')
      .values({ company_id: companyId, last_change_seq: seq, last_full_refresh_date: null, updated_at: tx.now })
      .onConflict((oc) => oc.column('company_id').doUpdateSet({ last_change_seq: seq, updated_at: tx.now }))
      .execute();
  });
}

/** The refresh job as the API shows it. */
export interface RefreshJobView {
  id: string;
  status: 'queued' | 'running' | 'succeeded' | 'failed';
  reason: RefreshPayload['reason'];
  progress: RefreshProgress | null;
  report: RefreshReport | null;
  error: string | null;
  queued_at: string;
  updated_at: string;
}

export async function getRefreshJob(engine: Pick<Engine, 'db'>, companyId: string, jobId: string): Promise<RefreshJobView | null> {
  const job = await engine.db
    .selectFrom('jobs')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('kind', '=', INTELLIGENCE_REFRESH)
    .where('id', '=', jobId)
    .executeTakeFirst();
  if (!job) return null;
  const result = job.result ? (JSON.parse(job.result) as { progress?: RefreshProgress; report?: RefreshReport }) : {};
  return {
    id: job.id,
    status: job.status,
    reason: (JSON.parse(job.payload) as RefreshPayload).reason,
    progress: result.progress ?? null,
    report: result.report ?? null,
    error: job.status === 'failed' || job.status === 'queued' ? job.last_error : null,
    queued_at: job.created_at,
    updated_at: job.updated_at,
  };
}

/**
 * The scheduler of the running service: the daily catch-up at start and each day after, and the
 * change watcher every `pollMs`.
 */
export function startIntelligenceScheduler(engine: Engine, options: { pollMs?: number; onError?: (err: unknown) => void } = {}) {
  const pollMs = options.pollMs ?? 1_000;
  const onError = options.onError ?? ((err) => console.error(`ardesk: intelligence: ${err instanceof Error ? err.message : String(err)}`));
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let lastDaily = '';
  let running: Promise<void> | null = null;
  const tick = async () => {
    const day = todayOf(engine.clock);
    if (day !== lastDaily) {
      await queueDailyRefreshes(engine);
      lastDaily = day;
    }
    await watchChanges(engine);
  };
  const schedule = (delay: number) => {
    timer = setTimeout(() => {
      timer = null;
      running = tick()
        .catch(onError)
        .finally(() => {
          running = null;
          if (!stopped) schedule(pollMs);
        });
    }, delay);
    timer.unref();
  };
  schedule(0);
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      if (running) await running;
    },
  };
}
