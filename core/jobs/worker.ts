/**
 * The background worker: claims due jobs one at a time, runs the handler for their kind, and
 * records the outcome. `runDueJobs()` is one pass (tests drive it with a fixed clock); `start()`
 * repeats passes on a timer for the running service. Scheduling reads the engine's clock, the
 * timer only sets how often to look.
 */
import type { Job, JobStatus } from '../db/schema';
import type { Actor, CommandTx, Engine } from '../engine';
import { claimNextJob, completeJob, failJob, type JobLane, LostClaimError, reclaimStaleJobs, releaseJob, renewLease, type RetryPolicy } from './queue';

/** A failure that another try cannot fix: the job fails at once, whatever attempts remain. */
export class PermanentJobError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PermanentJobError';
  }
}

/**
 * Thrown by a handler that stopped at a safe point because its worker is stopping (`signal`): the
 * job goes back to the queue without using a try, and resumes at the next start.
 */
export class StoppedJobError extends Error {
  constructor(message = 'the worker stopped; the job resumes at the next start') {
    super(message);
    this.name = 'StoppedJobError';
  }
}

export interface JobContext {
  engine: Engine;
  /** Aborted when the worker is asked to stop: a long job stops at its next safe point (StoppedJobError). */
  signal: AbortSignal;
  /**
   * Commits the job's effects (`write`) and its success in one transaction. A handler that never
   * calls it succeeds with no result when it returns.
   */
  succeed<T>(options?: { actor?: Actor; write?: (tx: CommandTx) => Promise<T> }): Promise<void>;
}

export type JobHandler = (job: Job, ctx: JobContext) => Promise<void>;

export interface WorkerOptions {
  handlers: Record<string, JobHandler>;
  /** The kinds this worker takes (absent: every kind). */
  lane?: JobLane;
  /** First retry delay; each further failure doubles it. */
  retryBaseMs: number;
  retryMaxMs: number;
  /**
   * A running job whose lease was not renewed for this long is taken to belong to a dead worker
   * and is reclaimed; the worker renews the lease of the job in hand every quarter of it.
   */
  leaseMs: number;
  /** How often the timer loop looks for due jobs. */
  pollMs: number;
  /** Where the timer loop reports its own failures (a job's failure is stored on the job). */
  onError: (err: unknown) => void;
}

export const WORKER_DEFAULTS: Omit<WorkerOptions, 'handlers'> = {
  retryBaseMs: 60_000,
  retryMaxMs: 60 * 60_000,
  // Far above the mailer's own timeouts (10 s connect + 10 s greeting + 20 s socket idle), so a
  // slow but live send is never taken over.
  leaseMs: 10 * 60_000,
  pollMs: 1_000,
  onError: (err) => console.error(`ardesk: background jobs: ${err instanceof Error ? err.message : String(err)}`),
};

export interface JobRun {
  id: string;
  kind: string;
  companyId: string;
  attempts: number;
  /** The job's status after this run: succeeded, queued (will retry) or failed. */
  status: JobStatus;
  error: string | null;
}

export interface Worker {
  /** Reclaims stale jobs, then runs every job due now, one at a time; returns what ran. */
  runDueJobs(): Promise<JobRun[]>;
  start(): void;
  /** Stops the timer and waits for the job in hand; no new job is claimed after this is called. */
  stop(): Promise<void>;
}

export function createWorker(engine: Engine, options: Partial<WorkerOptions> & Pick<WorkerOptions, 'handlers'>): Worker {
  const settings: WorkerOptions = { ...WORKER_DEFAULTS, ...options };
  const policy: RetryPolicy = { baseMs: settings.retryBaseMs, maxMs: settings.retryMaxMs };
  let stopping = false;
  const stop = new AbortController();
  let timer: NodeJS.Timeout | null = null;
  let pass: Promise<JobRun[]> | null = null;

  async function runOne(job: Job): Promise<JobRun> {
    const handler = settings.handlers[job.kind];
    let succeeded = false;
    const ctx: JobContext = {
      engine,
      signal: stop.signal,
      async succeed(opts = {}) {
        await completeJob(engine, job, opts);
        succeeded = true;
      },
    };
    const run = { id: job.id, kind: job.kind, companyId: job.company_id, attempts: job.attempts };
    const heartbeat = setInterval(() => void renewLease(engine, job).catch(settings.onError), settings.leaseMs / 4);
    heartbeat.unref();
    try {
      if (!handler) throw new PermanentJobError(`no handler for job kind "${job.kind}"`);
      await handler(job, ctx);
      if (!succeeded) await ctx.succeed();
      return { ...run, status: 'succeeded', error: null };
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      // The job now belongs to another worker, which records its outcome.
      if (err instanceof LostClaimError) return { ...run, status: 'running', error: message };
      if (err instanceof StoppedJobError) return { ...run, status: (await releaseJob(engine, job)) ? 'queued' : 'running', error: null };
      const status = await failJob(engine, job, message, err instanceof PermanentJobError, policy);
      return { ...run, status: status ?? 'running', error: message };
    } finally {
      clearInterval(heartbeat);
    }
  }

  async function runPass(): Promise<JobRun[]> {
    const runs: JobRun[] = [];
    await reclaimStaleJobs(engine, settings.leaseMs);
    while (!stopping) {
      const job = await claimNextJob(engine, settings.lane);
      if (!job) break;
      runs.push(await runOne(job));
    }
    return runs;
  }

  function runDueJobs(): Promise<JobRun[]> {
    // One pass at a time per worker: a timer tick during a manual pass joins it.
    pass ??= runPass().finally(() => {
      pass = null;
    });
    return pass;
  }

  function schedule(delay: number) {
    timer = setTimeout(async () => {
      timer = null;
      try {
        await runDueJobs();
      } catch (err) {
        settings.onError(err);
      }
      if (!stopping) schedule(settings.pollMs);
    }, delay);
    timer.unref();
  }

  return {
    runDueJobs,
    start() {
      if (timer || stopping) return;
      schedule(0);
    },
    async stop() {
      stopping = true;
      stop.abort();
      if (timer) clearTimeout(timer);
      timer = null;
      if (pass) await pass.catch(() => undefined);
    },
  };
}
