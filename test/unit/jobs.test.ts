import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Job } from '../../core/db/schema';
import { runCommand, systemActor } from '../../core/engine';
import { newId } from '../../core/ids';
import { addMs, claimNextJob, completeJob, enqueueJob, enqueueJobs, failJob, INTERRUPTED, LostClaimError, reclaimStaleJobs, retryDelayMs } from '../../core/jobs/queue';
import { createWorker, type JobHandler, PermanentJobError, StoppedJobError } from '../../core/jobs/worker';
import { type LeaseOwner, ownerGone, ownerToken, parseOwner, thisProcess } from '../../core/jobs/owner';
import { openEngine } from '../../core/runtime/engine';
import { addCompany } from '../support/api';
import { type TestEngine, testEngine } from '../support/engine';

const NOW = '2026-11-23T12:00:00.000Z';
const MINUTE = 60_000;

describe('retryDelayMs', () => {
  it('doubles from the base after each failed try and stops at the cap', () => {
    expect([1, 2, 3, 4, 5].map((n) => retryDelayMs(n, MINUTE, 60 * MINUTE))).toEqual([MINUTE, 2 * MINUTE, 4 * MINUTE, 8 * MINUTE, 16 * MINUTE]);
    expect(retryDelayMs(7, MINUTE, 60 * MINUTE)).toBe(60 * MINUTE);
    expect(retryDelayMs(500, MINUTE, 60 * MINUTE)).toBe(60 * MINUTE);
    expect(retryDelayMs(0, MINUTE, 60 * MINUTE)).toBe(MINUTE);
  });
});

describe('ownerGone: whether a lease belongs to a process that no longer runs', () => {
  const self: LeaseOwner = { host: 'desk-1', pid: 4242, id: 'self-id' };
  const alive = (pid: number) => pid === 7;
  const token = (owner: Partial<LeaseOwner>) => ownerToken({ ...self, ...owner });

  it('reads back the token it writes', () => {
    expect(parseOwner(token({ pid: 7, id: 'a-b' }))).toEqual({ host: 'desk-1', pid: 7, id: 'a-b' });
    expect(parseOwner(ownerToken(thisProcess))).toEqual(thisProcess);
  });

  it('is gone: an earlier process that had this pid, or a pid no process of this host has', () => {
    expect(ownerGone(token({ id: 'earlier-id' }), self, alive)).toBe(true);
    expect(ownerGone(token({ pid: 8, id: 'x' }), self, alive)).toBe(true);
  });

  it('is not known to be gone: this process, a live pid, another host, or no owner recorded', () => {
    expect(ownerGone(token({}), self, alive)).toBe(false);
    expect(ownerGone(token({ pid: 7, id: 'x' }), self, alive)).toBe(false);
    expect(ownerGone(token({ host: 'desk-2', pid: 8 }), self, alive)).toBe(false);
    expect(ownerGone(null, self, alive)).toBe(false);
    expect(ownerGone('not a token', self, alive)).toBe(false);
  });
});

describe('the durable job queue and worker', () => {
  let engine: TestEngine;
  let companyId: string;

  beforeEach(async () => {
    engine = await testEngine(NOW);
    companyId = await addCompany(engine, 'Acme Supply');
  });
  afterEach(() => engine.dispose());

  function enqueue(key: string, payload: unknown = {}, options: { kind?: string; maxAttempts?: number; runAfter?: string } = {}) {
    return runCommand(engine, 'test_enqueue', { actor: systemActor, companyId }, (tx) =>
      enqueueJob(tx, { companyId, kind: options.kind ?? 'test', idempotencyKey: key, payload, maxAttempts: options.maxAttempts, runAfter: options.runAfter }),
    );
  }
  const job = (id: string) => engine.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  it('queues a piece of work once per idempotency key', async () => {
    const first = await enqueue('k1', { n: 1 });
    const again = await enqueue('k1', { n: 2 });
    expect(first.created).toBe(true);
    expect(again).toEqual({ id: first.id, created: false });
    const rows = await engine.db.selectFrom('jobs').selectAll().execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: 'queued', attempts: 0, max_attempts: 5, run_after: NOW, payload: '{"n":1}' });
    const changes = await engine.db.selectFrom('changes').selectAll().where('entity', '=', 'job').execute();
    expect(changes.map((c) => c.op)).toEqual(['insert']);
  });

  it('queues many jobs at once, in order, skipping the keys that exist', async () => {
    const earlier = await enqueue('key-7');
    const keys = Array.from({ length: 450 }, (_, i) => `key-${i}`);
    const results = await runCommand(engine, 'test_enqueue', { actor: systemActor, companyId }, (tx) =>
      enqueueJobs(tx, keys.map((key, i) => ({ companyId, kind: 'test', idempotencyKey: key, payload: { i }, subjectId: `subject-${i}` }))),
    );
    expect(results).toHaveLength(450);
    expect(results[7]).toEqual({ id: earlier.id, created: false });
    expect(results.filter((r) => r.created)).toHaveLength(449);
    const rows = await engine.db.selectFrom('jobs').select(['id', 'idempotency_key', 'subject_id']).execute();
    expect(rows).toHaveLength(450);
    const byId = new Map(rows.map((r) => [r.id, r]));
    keys.forEach((key, i) => expect(byId.get(results[i].id)?.idempotency_key).toBe(key));
    expect(byId.get(results[300].id)?.subject_id).toBe('subject-300');
    expect(await engine.db.selectFrom('changes').where('entity', '=', 'job').select((eb) => eb.fn.countAll().as('n')).executeTakeFirst()).toEqual({ n: 450 });
  });

  it('runs due jobs oldest first, and a later job only once the clock reaches it', async () => {
    const seen: string[] = [];
    const handler: JobHandler = async (j) => {
      seen.push(JSON.parse(j.payload).name);
    };
    await enqueue('a', { name: 'a' });
    await enqueue('later', { name: 'later' }, { runAfter: addMs(NOW, 5 * MINUTE) });
    await enqueue('b', { name: 'b' });
    const worker = createWorker(engine, { handlers: { test: handler } });
    const runs = await worker.runDueJobs();
    expect(seen).toEqual(['a', 'b']);
    expect(runs.map((r) => [r.status, r.attempts])).toEqual([
      ['succeeded', 1],
      ['succeeded', 1],
    ]);
    expect(await worker.runDueJobs()).toEqual([]);
    engine.clock.set(addMs(NOW, 5 * MINUTE));
    await worker.runDueJobs();
    expect(seen).toEqual(['a', 'b', 'later']);
    const rows = await engine.db.selectFrom('jobs').select(['status', 'locked_at', 'last_error']).execute();
    expect(rows.every((r) => r.status === 'succeeded' && r.locked_at === null && r.last_error === null)).toBe(true);
  });

  it('retries a failing job with exponential backoff, then fails it with the last error', async () => {
    let calls = 0;
    const handler: JobHandler = async () => {
      calls++;
      throw new Error(`mail server down (try ${calls})`);
    };
    const { id } = await enqueue('flaky', {}, { maxAttempts: 4 });
    const worker = createWorker(engine, { handlers: { test: handler }, retryBaseMs: MINUTE, retryMaxMs: 60 * MINUTE });
    let at = NOW;
    const schedule: number[] = [];
    for (let attempt = 1; attempt <= 3; attempt++) {
      const [run] = await worker.runDueJobs();
      expect(run).toMatchObject({ status: 'queued', attempts: attempt, error: `mail server down (try ${attempt})` });
      const row = await job(id);
      schedule.push(Date.parse(row.run_after) - Date.parse(at));
      // Not due a millisecond before its time.
      engine.clock.set(addMs(row.run_after, -1));
      expect(await worker.runDueJobs()).toEqual([]);
      at = row.run_after;
      engine.clock.set(at);
    }
    expect(schedule).toEqual([MINUTE, 2 * MINUTE, 4 * MINUTE]);
    const [last] = await worker.runDueJobs();
    expect(last).toMatchObject({ status: 'failed', attempts: 4 });
    expect(await job(id)).toMatchObject({ status: 'failed', attempts: 4, last_error: 'mail server down (try 4)', locked_at: null });
    engine.clock.set(addMs(at, 24 * 60 * MINUTE));
    expect(await worker.runDueJobs()).toEqual([]);
    expect(calls).toBe(4);
  });

  it('fails at once on a permanent error or an unknown kind', async () => {
    const permanent = await enqueue('p');
    const orphan = await enqueue('o', {}, { kind: 'nobody-runs-this' });
    const worker = createWorker(engine, {
      handlers: {
        test: async () => {
          throw new PermanentJobError('invoice is closed');
        },
      },
    });
    await worker.runDueJobs();
    expect(await job(permanent.id)).toMatchObject({ status: 'failed', attempts: 1, last_error: 'invoice is closed' });
    expect(await job(orphan.id)).toMatchObject({ status: 'failed', attempts: 1, last_error: 'no handler for job kind "nobody-runs-this"' });
  });

  it('commits a job\'s effects and its success together, or neither', async () => {
    const handler: JobHandler = async (j, ctx) => {
      const { label, fail } = JSON.parse(j.payload);
      await ctx.succeed({
        write: async (tx) => {
          await tx.db.insertInto('labels').values({ id: newId(), company_id: companyId, name: label, color: '#000000', created_at: tx.now, updated_at: tx.now }).execute();
          if (fail) throw new Error('constraint broke after the insert');
          return { label };
        },
      });
    };
    const good = await enqueue('good', { label: 'Disputed' });
    const bad = await enqueue('bad', { label: 'Promise', fail: true });
    await createWorker(engine, { handlers: { test: handler } }).runDueJobs();
    expect(await job(good.id)).toMatchObject({ status: 'succeeded', result: '{"label":"Disputed"}' });
    expect(await job(bad.id)).toMatchObject({ status: 'queued', last_error: 'constraint broke after the insert' });
    const labels = await engine.db.selectFrom('labels').select('name').execute();
    expect(labels.map((l) => l.name)).toEqual(['Disputed']);
  });

  it('reclaims a job left running by a dead worker once its lease is over, and runs it once', async () => {
    const { id } = await enqueue('orphaned');
    // A worker claims the job and dies before finishing it.
    const dead = await claimNextJob(engine);
    expect(dead).toMatchObject({ id, status: 'running', attempts: 1, locked_at: NOW });
    let runs = 0;
    const worker = createWorker(engine, { handlers: { test: async () => void runs++ }, leaseMs: 10 * MINUTE });
    engine.clock.set(addMs(NOW, 10 * MINUTE));
    expect(await worker.runDueJobs()).toEqual([]);
    expect((await job(id)).status).toBe('running');
    engine.clock.set(addMs(NOW, 10 * MINUTE + 1));
    const [run] = await worker.runDueJobs();
    expect(run).toMatchObject({ id, status: 'succeeded', attempts: 2 });
    expect(runs).toBe(1);
    const changes = await engine.db.selectFrom('changes').select('command').where('entity_id', '=', id).orderBy('seq').execute();
    expect(changes.map((c) => c.command)).toEqual(['test_enqueue', 'claim_job', 'reclaim_job', 'claim_job', 'complete_job']);
  });

  it('takes back at once a job whose claiming process is gone, and runs it once', async () => {
    const { id } = await enqueue('dead-owner');
    const claimed = (await claimNextJob(engine))!;
    expect(claimed.locked_by).toBe(ownerToken(thisProcess));
    // A real process that has ended: its pid names no process now.
    const ended = spawnSync(process.execPath, ['-e', '']);
    expect(ended.status).toBe(0);
    await engine.db.updateTable('jobs').set({ locked_by: ownerToken({ ...thisProcess, pid: ended.pid! }) }).where('id', '=', id).execute();
    const ran: string[] = [];
    const worker = createWorker(engine, { handlers: { test: async (j) => void ran.push(j.id) } });
    // No lease to wait out: the clock has not moved.
    expect((await worker.runDueJobs()).map((r) => [r.id, r.status, r.attempts])).toEqual([[id, 'succeeded', 2]]);
    expect(ran).toEqual([id]);
    expect(await job(id)).toMatchObject({ status: 'succeeded', locked_by: null, last_error: null });
  });

  it('renews the lease of the job in hand, so a job running longer than the lease is not taken over', async () => {
    const { id } = await enqueue('long');
    const later = addMs(NOW, 1_000);
    let reclaimedMeanwhile: string[] | null = null;
    const handler: JobHandler = async () => {
      // A second past the 400 ms lease: only the renewal keeps the job this worker's.
      engine.clock.set(later);
      await expect.poll(async () => (await job(id)).locked_at).toBe(later);
      reclaimedMeanwhile = await reclaimStaleJobs(engine, 400);
    };
    const worker = createWorker(engine, { handlers: { test: handler }, leaseMs: 400 });
    expect((await worker.runDueJobs()).map((r) => [r.status, r.attempts])).toEqual([['succeeded', 1]]);
    expect(reclaimedMeanwhile).toEqual([]);
  });

  it('leaves a job claimed by this process (alive) to its lease', async () => {
    const { id } = await enqueue('live-owner');
    await claimNextJob(engine);
    expect(await reclaimStaleJobs(engine, 10 * MINUTE)).toEqual([]);
    expect(await job(id)).toMatchObject({ status: 'running', locked_by: ownerToken(thisProcess) });
  });

  it('runs each lane\'s kinds only, so a long bulk job does not hold up a send', async () => {
    await enqueue('bulk', {}, { kind: 'statement_send' });
    await enqueue('send', {}, { kind: 'action_email' });
    let bulkStarted: () => void = () => undefined;
    const started = new Promise<void>((resolve) => (bulkStarted = resolve));
    let finishBulk: () => void = () => undefined;
    const handlers: Record<string, JobHandler> = {
      statement_send: () => {
        bulkStarted();
        return new Promise<void>((resolve) => (finishBulk = resolve));
      },
      action_email: async () => undefined,
    };
    const bulkWorker = createWorker(engine, { handlers, lane: { otherThan: ['action_email'] } });
    const sendWorker = createWorker(engine, { handlers, lane: { kinds: ['action_email'] } });
    const bulkPass = bulkWorker.runDueJobs();
    await started;
    // The bulk job is still running: the send lane takes its job all the same, and only its own.
    expect((await sendWorker.runDueJobs()).map((r) => [r.kind, r.status])).toEqual([['action_email', 'succeeded']]);
    finishBulk();
    expect((await bulkPass).map((r) => [r.kind, r.status])).toEqual([['statement_send', 'succeeded']]);
  });

  it('fails a stale job that had used its last attempt instead of running it again', async () => {
    const { id } = await enqueue('spent', {}, { maxAttempts: 1 });
    await claimNextJob(engine);
    engine.clock.set(addMs(NOW, 11 * MINUTE));
    expect(await reclaimStaleJobs(engine, 10 * MINUTE)).toEqual([id]);
    expect(await job(id)).toMatchObject({ status: 'failed', last_error: INTERRUPTED });
  });

  it('keeps a slow worker from overwriting the outcome once its claim was taken over', async () => {
    const { id } = await enqueue('slow');
    const slow = (await claimNextJob(engine)) as Job;
    engine.clock.set(addMs(NOW, 11 * MINUTE));
    await createWorker(engine, { handlers: { test: async () => undefined }, leaseMs: 10 * MINUTE }).runDueJobs();
    expect(await job(id)).toMatchObject({ status: 'succeeded', attempts: 2 });
    await expect(completeJob(engine, slow, {})).rejects.toBeInstanceOf(LostClaimError);
    expect(await failJob(engine, slow, 'late failure', false, { baseMs: MINUTE, maxMs: MINUTE })).toBeNull();
    expect(await job(id)).toMatchObject({ status: 'succeeded', attempts: 2, last_error: null });
  });

  it('lets two workers on one file, each with its own connection, share a queue without running a job twice', async () => {
    const ran: string[] = [];
    for (let i = 0; i < 20; i++) await enqueue(`job-${i}`, { i });
    const handler: JobHandler = async (j) => {
      ran.push(j.id);
      await new Promise((resolve) => setTimeout(resolve, 1));
    };
    const second = await openEngine({ file: join(engine.dir, 'ardesk.sqlite'), clock: engine.clock });
    try {
      expect(second.database.sqlite).not.toBe(engine.database.sqlite);
      const a = createWorker(engine, { handlers: { test: handler } });
      const b = createWorker(second, { handlers: { test: handler } });
      const [ra, rb] = await Promise.all([a.runDueJobs(), b.runDueJobs()]);
      expect(ra.length + rb.length).toBe(20);
      // Both connections took jobs: the claims really met on the file, not in one connection.
      expect(ra.length).toBeGreaterThan(0);
      expect(rb.length).toBeGreaterThan(0);
      expect(new Set(ran).size).toBe(20);
      expect(ran).toHaveLength(20);
      expect((await engine.db.selectFrom('jobs').select(['status', 'attempts']).execute()).every((j) => j.status === 'succeeded' && j.attempts === 1)).toBe(true);
    } finally {
      await second.close();
    }
  });

  it('stops after the job in hand: the rest stay queued for the next worker', async () => {
    for (let i = 0; i < 3; i++) await enqueue(`stop-${i}`, { i });
    let release: () => void = () => undefined;
    const started: number[] = [];
    const handler: JobHandler = async (j) => {
      started.push(JSON.parse(j.payload).i);
      if (started.length === 1) await new Promise<void>((resolve) => (release = resolve));
    };
    const worker = createWorker(engine, { handlers: { test: handler }, pollMs: 5 });
    worker.start();
    while (started.length === 0) await new Promise((resolve) => setTimeout(resolve, 2));
    const stopped = worker.stop();
    release();
    await stopped;
    expect(started).toEqual([0]);
    const statuses = await engine.db.selectFrom('jobs').select('status').orderBy('id').execute();
    expect(statuses.map((s) => s.status)).toEqual(['succeeded', 'queued', 'queued']);
    const next = createWorker(engine, { handlers: { test: handler } });
    expect((await next.runDueJobs()).map((r) => r.status)).toEqual(['succeeded', 'succeeded']);
    expect(started).toEqual([0, 1, 2]);
  });

  it('hands a long job back when its worker stops: it resumes at the next start without using a try', async () => {
    const { id } = await enqueue('long-run');
    const done: number[] = [];
    let reached: () => void = () => undefined;
    const halfway = new Promise<void>((resolve) => (reached = resolve));
    const handler: JobHandler = async (_job, ctx) => {
      for (let item = done.length; item < 6; item++) {
        if (ctx.signal.aborted) throw new StoppedJobError();
        done.push(item);
        if (item === 2) reached();
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const first = createWorker(engine, { handlers: { test: handler }, pollMs: 5 });
    first.start();
    await halfway;
    await first.stop();
    expect(done.length).toBeLessThan(6);
    expect(await job(id)).toMatchObject({ status: 'queued', attempts: 1, max_attempts: 6, locked_by: null });
    const next = createWorker(engine, { handlers: { test: handler } });
    expect((await next.runDueJobs()).map((r) => [r.status, r.attempts])).toEqual([['succeeded', 2]]);
    expect(done).toEqual([0, 1, 2, 3, 4, 5]);
  });
});
