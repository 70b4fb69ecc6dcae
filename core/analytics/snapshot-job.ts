/**
 * The daily aging snapshot: once a day each company's aging is stored, so history builds up by
 * itself. Durable jobs (core/jobs) do the work; days the app was closed are caught up at the next
 * start, each as the aging of its own date.
 */
import { today } from '../clock';
import { addDays, daysBetween } from '../dates';
import { type Engine, runCommand, systemActor } from '../engine';
import { enqueueJobs } from '../jobs/queue';
import { type JobHandler, PermanentJobError } from '../jobs/worker';
import { captureAgingSnapshot } from './snapshots';
import { replicatedCompanies } from '../db/replicas';

export const AGING_SNAPSHOT = 'aging_snapshot';

/** A year of catch-up at most: an older gap stays a gap rather than a year of jobs at one start. */
export const MAX_CATCH_UP_DAYS = 366;

/**
 * The dates a company still needs a snapshot of: every day after its latest snapshot up to today
 * (at most MAX_CATCH_UP_DAYS), or just today when it has none.
 */
export function snapshotDatesDue(latest: string | null, todayDate: string): string[] {
  if (latest !== null && latest >= todayDate) return [];
  const first = latest === null ? todayDate : addDays(latest, 1);
  const count = Math.min(daysBetween(first, todayDate) + 1, MAX_CATCH_UP_DAYS);
  return Array.from({ length: count }, (_, i) => addDays(todayDate, i - count + 1));
}

/** Queues the snapshot jobs every company is due (one per company and date: queuing twice adds nothing). */
export async function queueDueSnapshots(engine: Engine): Promise<number> {
  const date = today(engine.clock);
  const companies = await engine.db
    .selectFrom('companies as c')
    .leftJoin('aging_snapshots as s', 's.company_id', 'c.id')
    .select(['c.id'])
    .select((eb) => eb.fn.max('s.snapshot_date').as('latest'))
    .where('c.id', 'not in', replicatedCompanies(engine.db))
    .groupBy('c.id')
    .execute();
  const jobs = companies.flatMap((c) =>
    snapshotDatesDue(c.latest ?? null, date).map((snapshotDate) => ({
      companyId: c.id,
      kind: AGING_SNAPSHOT,
      idempotencyKey: `${AGING_SNAPSHOT}:${c.id}:${snapshotDate}`,
      payload: { snapshot_date: snapshotDate },
    })),
  );
  if (jobs.length === 0) return 0;
  const queued = await runCommand(engine, 'queue_aging_snapshots', { actor: systemActor, companyId: null }, (tx) => enqueueJobs(tx, jobs));
  return queued.filter((j) => j.created).length;
}

/** Takes the snapshot of the job's date (taking it again replaces it, so a rerun is harmless). */
export const takeAgingSnapshot: JobHandler = async (job, ctx) => {
  const { snapshot_date: date } = JSON.parse(job.payload) as { snapshot_date: string };
  const now = today(ctx.engine.clock);
  if (date > now) throw new PermanentJobError(`Snapshot date ${date} is in the future`);
  await captureAgingSnapshot(ctx.engine, job.company_id, date, now, systemActor);
};
