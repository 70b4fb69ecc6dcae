/**
 * The durable job queue over the `jobs` table. A job moves queued -> running (claimed) ->
 * succeeded | queued again (retry after a backoff) | failed. Every transition is one conditional
 * UPDATE, so two workers (two processes on one file) can never both own a job, and every write is
 * a command recorded in `changes`.
 *
 * The claim's fencing token is `attempts`: each claim increments it, and every later update of the
 * job requires status 'running' with the same attempts, so a worker whose claim was taken over
 * (lease expired) cannot overwrite the new owner's outcome.
 */
import { timestamp } from '../clock';
import type { Db } from '../db/connection';
import type { Updateable } from 'kysely';
import type { Job, JobStatus, JobsTable } from '../db/schema';
import { type Actor, type CommandTx, type Engine, runCommand, systemActor } from '../engine';
import { newId } from '../ids';
import { replicatedCompanies } from '../db/replicas';
import { ownerGone, ownerToken, thisProcess } from './owner';
import { chunks } from '../chunks';

export const DEFAULT_MAX_ATTEMPTS = 5;

export interface NewJob {
  companyId: string;
  kind: string;
  /** Unique across all jobs: a second enqueue with the same key returns the existing job. */
  idempotencyKey: string;
  payload: unknown;
  /** The entity the job acts on, e.g. an invoice id. */
  subjectId?: string | null;
  maxAttempts?: number;
  runAfter?: string;
}

/** Queues a job in the caller's transaction unless its idempotency key exists already. */
export async function enqueueJob(tx: CommandTx, job: NewJob): Promise<{ id: string; created: boolean }> {
  const [result] = await enqueueJobs(tx, [job]);
  return result;
}

/** Rows per INSERT: 15 columns each stays far below SQLite's bound-parameter limit. */
const INSERT_CHUNK = 200;

/**
 * Queues many jobs in the caller's transaction with a few multi-row inserts; a job whose
 * idempotency key exists already is not added. Results follow the input order.
 */
export async function enqueueJobs(tx: CommandTx, jobs: NewJob[]): Promise<Array<{ id: string; created: boolean }>> {
  const rows = jobs.map((job) => ({
    id: newId(),
    company_id: job.companyId,
    kind: job.kind,
    idempotency_key: job.idempotencyKey,
    payload: JSON.stringify(job.payload),
    subject_id: job.subjectId ?? null,
    status: 'queued' as const,
    attempts: 0,
    max_attempts: job.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
    run_after: job.runAfter ?? tx.now,
    locked_at: null,
    locked_by: null,
    last_error: null,
    result: null,
    created_at: tx.now,
    updated_at: tx.now,
  }));
  const inserted = new Set<string>();
  for (const chunk of chunks(rows, INSERT_CHUNK)) {
    const ids = await tx.db
      .insertInto('jobs')
      .values(chunk)
      .onConflict((oc) => oc.column('idempotency_key').doNothing())
      .returning('id')
      .execute();
    for (const { id } of ids) inserted.add(id);
  }
  const existing = new Map<string, string>();
  const missing = rows.filter((r) => !inserted.has(r.id)).map((r) => r.idempotency_key);
  for (const chunk of chunks(missing, INSERT_CHUNK)) {
    const found = await tx.db
      .selectFrom('jobs')
      .select(['id', 'idempotency_key'])
      .where('idempotency_key', 'in', chunk)
      .execute();
    for (const row of found) existing.set(row.idempotency_key, row.id);
  }
  const results: Array<{ id: string; created: boolean }> = [];
  for (const row of rows) {
    if (inserted.has(row.id)) {
      const { id, ...data } = row;
      await tx.record('job', id, 'insert', data);
      results.push({ id, created: true });
    } else {
      results.push({ id: existing.get(row.idempotency_key) as string, created: false });
    }
  }
  return results;
}

/** The ids of `subjectIds` that already have a job of `kind` queued or running. */
export async function subjectsWithPendingJobs(db: Db, companyId: string, kind: string, subjectIds: string[]): Promise<Set<string>> {
  if (subjectIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('jobs')
    .select('subject_id')
    .where('company_id', '=', companyId)
    .where('kind', '=', kind)
    .where('status', 'in', ['queued', 'running'])
    .where('subject_id', 'in', subjectIds)
    .execute();
  return new Set(rows.map((r) => r.subject_id).filter((id): id is string => id !== null));
}

/**
 * Delay before the next try after `attempts` failed tries: base, 2*base, 4*base, ... capped at max.
 */
export function retryDelayMs(attempts: number, baseMs: number, maxMs: number): number {
  const exponent = Math.max(0, attempts - 1);
  return Math.min(maxMs, baseMs * 2 ** Math.min(exponent, 30));
}

export function addMs(iso: string, ms: number): string {
  return new Date(Date.parse(iso) + ms).toISOString();
}

/**
 * The kinds of job a worker takes: these only, or all but these. Customer-facing sends run in a lane
 * of their own so that they never wait behind a long bulk job (a statement run, a refresh).
 */
export type JobLane = { kinds: readonly string[] } | { otherThan: readonly string[] };

/**
 * Claims the oldest due job (of the lane, if given) of a company this database runs jobs for:
 * queued -> running, attempts + 1, locked now by this process. Null when none is due.
 */
export async function claimNextJob(engine: Pick<Engine, 'db' | 'clock'>, lane?: JobLane): Promise<Job | null> {
  for (;;) {
    const now = timestamp(engine.clock);
    let look = engine.db
      .selectFrom('jobs')
      .select(['id', 'company_id'])
      .where('status', '=', 'queued')
      .where('run_after', '<=', now);
    if (lane && 'kinds' in lane) look = look.where('kind', 'in', [...lane.kinds]);
    if (lane && 'otherThan' in lane && lane.otherThan.length) look = look.where('kind', 'not in', [...lane.otherThan]);
    const candidate = await look
      // A synced company's jobs (emails, reply reading, insights) run on the team server only; the
      // desktop shows their outcome after pulling (core/sync).
      .where('company_id', 'not in', replicatedCompanies(engine.db))
      .orderBy('run_after')
      .orderBy('id')
      .limit(1)
      .executeTakeFirst();
    if (!candidate) return null;
    const claimed = await runCommand(engine, 'claim_job', { actor: systemActor, companyId: candidate.company_id }, async (tx) => {
      const row = await tx.db
        .updateTable('jobs')
        .set((eb) => ({ status: 'running', locked_at: tx.now, locked_by: ownerToken(thisProcess), attempts: eb('attempts', '+', 1), updated_at: tx.now }))
        .where('id', '=', candidate.id)
        .where('status', '=', 'queued')
        .returningAll()
        .executeTakeFirst();
      if (row) await tx.record('job', row.id, 'update', { status: 'running', attempts: row.attempts, locked_at: tx.now, locked_by: row.locked_by });
      return row ?? null;
    });
    // Another worker took it between the look and the claim: look again.
    if (claimed) return claimed;
  }
}

/**
 * Updates a job only while it is still the claim `job` describes (running, same attempts): the
 * fencing check every transition after the claim makes, each of which ends the lease. False when
 * the claim was lost.
 */
async function updateClaimed(tx: CommandTx, job: Pick<Job, 'id' | 'attempts'>, set: Updateable<JobsTable>): Promise<boolean> {
  const updated = await tx.db
    .updateTable('jobs')
    .set({ ...set, locked_by: null, updated_at: tx.now })
    .where('id', '=', job.id)
    .where('status', '=', 'running')
    .where('attempts', '=', job.attempts)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) > 0;
}

/**
 * Renews the lease of a job this worker has in hand (locked now), so a long job (a statement run
 * of thousands of customers, a refresh) is never taken for abandoned while it runs. False when
 * the claim was lost.
 */
export async function renewLease(engine: Pick<Engine, 'db' | 'clock'>, job: Pick<Job, 'id' | 'attempts' | 'company_id'>): Promise<boolean> {
  return runCommand(engine, 'renew_job_lease', { actor: systemActor, companyId: job.company_id }, async (tx) => {
    const renewed = await tx.db.updateTable('jobs').set({ locked_at: tx.now }).where('id', '=', job.id).where('status', '=', 'running').where('attempts', '=', job.attempts).executeTakeFirst();
    if (Number(renewed.numUpdatedRows) === 0) return false;
    await tx.record('job', job.id, 'update', { locked_at: tx.now });
    return true;
  });
}

/** Raised when a job's claim was taken over (its lease expired) before the worker finished it. */
export class LostClaimError extends Error {
  constructor(jobId: string) {
    super(`job ${jobId} is no longer claimed by this worker`);
    this.name = 'LostClaimError';
  }
}

/**
 * Marks a claimed job succeeded, in the same transaction as `write` (the job's own effects), so the
 * effects and the success are committed together or not at all.
 */
export async function completeJob<T>(
  engine: Pick<Engine, 'db' | 'clock'>,
  job: Job,
  options: { actor?: Actor; write?: (tx: CommandTx) => Promise<T> },
): Promise<T | null> {
  return runCommand(engine, 'complete_job', { actor: options.actor ?? systemActor, companyId: job.company_id }, async (tx) => {
    const result = options.write ? await options.write(tx) : null;
    const resultText = result === null || result === undefined ? null : JSON.stringify(result);
    if (!(await updateClaimed(tx, job, { status: 'succeeded', locked_at: null, last_error: null, result: resultText }))) throw new LostClaimError(job.id);
    await tx.record('job', job.id, 'update', { status: 'succeeded', result: resultText });
    return result ?? null;
  });
}

export interface RetryPolicy {
  baseMs: number;
  maxMs: number;
}

/**
 * Records a failed try: back to queued after the backoff, or failed for good when the error is
 * permanent or the job has used its attempts. Returns the new status, or null if the claim was lost.
 */
export async function failJob(
  engine: Pick<Engine, 'db' | 'clock'>,
  job: Job,
  error: string,
  permanent: boolean,
  policy: RetryPolicy,
): Promise<JobStatus | null> {
  return runCommand(engine, 'fail_job', { actor: systemActor, companyId: job.company_id }, async (tx) => {
    const final = permanent || job.attempts >= job.max_attempts;
    const status: JobStatus = final ? 'failed' : 'queued';
    const runAfter = final ? job.run_after : addMs(tx.now, retryDelayMs(job.attempts, policy.baseMs, policy.maxMs));
    if (!(await updateClaimed(tx, job, { status, run_after: runAfter, locked_at: null, last_error: error }))) return null;
    await tx.record('job', job.id, 'update', { status, run_after: runAfter, last_error: error });
    return status;
  });
}

/**
 * Puts a job its worker stopped at a safe point back in the queue, to run now: the stop does not
 * use one of its tries. False when the claim was lost.
 */
export async function releaseJob(engine: Pick<Engine, 'db' | 'clock'>, job: Job): Promise<boolean> {
  return runCommand(engine, 'release_job', { actor: systemActor, companyId: job.company_id }, async (tx) => {
    const changes = { status: 'queued' as const, run_after: tx.now, locked_at: null, max_attempts: job.max_attempts + 1 };
    if (!(await updateClaimed(tx, job, changes))) return false;
    await tx.record('job', job.id, 'update', changes);
    return true;
  });
}

export const INTERRUPTED = 'interrupted: the worker stopped while running this job';

/**
 * A running job whose worker died (crash, kill, power loss): its lease's owner is known to be gone
 * (core/jobs/owner.ts), or it is older than the lease.
 */
export function leaseAbandoned(job: Pick<Job, 'status' | 'locked_at' | 'locked_by'>, cutoff: string): boolean {
  if (job.status !== 'running') return false;
  return (job.locked_at !== null && job.locked_at < cutoff) || ownerGone(job.locked_by, thisProcess);
}

/**
 * Jobs whose lease was abandoned go back to the queue at once, to be run again (their handler
 * decides what a second run may do), or to failed when they had used their last attempt. A worker
 * does this before each pass, so a job left by a crash is taken back as the next process starts.
 */
export async function reclaimStaleJobs(engine: Pick<Engine, 'db' | 'clock'>, leaseMs: number): Promise<string[]> {
  const cutoff = addMs(timestamp(engine.clock), -leaseMs);
  const running = await engine.db
    .selectFrom('jobs')
    .select(['id', 'company_id', 'attempts', 'max_attempts', 'status', 'locked_at', 'locked_by'])
    .where('status', '=', 'running')
    // A synced company's jobs belong to the team server, which reclaims its own.
    .where('company_id', 'not in', replicatedCompanies(engine.db))
    .execute();
  const reclaimed: string[] = [];
  for (const job of running.filter((j) => leaseAbandoned(j, cutoff))) {
    const done = await runCommand(engine, 'reclaim_job', { actor: systemActor, companyId: job.company_id }, async (tx) => {
      const status: JobStatus = job.attempts >= job.max_attempts ? 'failed' : 'queued';
      if (!(await updateClaimed(tx, job, { status, run_after: tx.now, locked_at: null, last_error: INTERRUPTED }))) return false;
      await tx.record('job', job.id, 'update', { status, run_after: tx.now, last_error: INTERRUPTED });
      return true;
    });
    if (done) reclaimed.push(job.id);
  }
  return reclaimed;
}
