import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queueDueSnapshots, snapshotDatesDue } from '../../core/analytics/snapshot-job';
import { snapshotHistory } from '../../core/analytics/snapshots';
import { coreJobHandlers } from '../../core/runtime/job-handlers';
import { createWorker } from '../../core/jobs/worker';
import { startRuntime } from '../../core/runtime/server';
import { addCompany } from '../support/api';
import { type TestEngine, testEngine } from '../support/engine';
import { ledger } from '../support/ledger-fixtures';

describe('which snapshot dates are due', () => {
  it('is today for a company without snapshots, every missed day after the latest one, nothing once today is taken', () => {
    expect(snapshotDatesDue(null, '2026-03-10')).toEqual(['2026-03-10']);
    expect(snapshotDatesDue('2026-03-10', '2026-03-13')).toEqual(['2026-03-11', '2026-03-12', '2026-03-13']);
    expect(snapshotDatesDue('2026-02-27', '2026-03-01')).toEqual(['2026-02-28', '2026-03-01']);
    expect(snapshotDatesDue('2026-03-13', '2026-03-13')).toEqual([]);
  });

  it('catches up at most a year', () => {
    const due = snapshotDatesDue('2020-01-01', '2026-03-13');
    expect(due).toHaveLength(366);
    expect(due[due.length - 1]).toBe('2026-03-13');
  });
});

describe('daily aging snapshots as durable jobs, with a fixed clock', () => {
  let engine: TestEngine;
  let company: string;
  let empty: string;
  let invoice: string;

  beforeAll(async () => {
    engine = await testEngine('2026-03-10T08:00:00.000Z');
    company = await addCompany(engine, 'Acme Supply');
    empty = await addCompany(engine, 'Empty Co');
    const l = ledger(engine, company);
    const customer = await l.customer({ name: 'Globex' });
    invoice = await l.invoice({ customer, number: 'INV-1', total: 500, invoiceDate: '2026-02-01', dueDate: '2026-03-03' });
    await l.invoice({ customer, number: 'INV-2', total: 200, invoiceDate: '2026-03-01', dueDate: '2026-03-31' });
  });
  afterAll(() => engine.dispose());

  const worker = () => createWorker(engine, { handlers: coreJobHandlers() });
  const history = async (companyId: string) =>
    (await snapshotHistory(engine.db, companyId, undefined, undefined)).map((s) => [s.snapshot_date, s.total_amount, s.d1_30_amount, s.current_amount]);

  it("takes today's snapshot of every company once", async () => {
    expect(await queueDueSnapshots(engine)).toBe(2);
    expect((await worker().runDueJobs()).map((r) => r.status)).toEqual(['succeeded', 'succeeded']);
    expect(await history(company)).toEqual([['2026-03-10', 70_000, 50_000, 20_000]]);
    expect(await history(empty)).toEqual([['2026-03-10', 0, 0, 0]]);
    // Later the same day: nothing more to queue.
    engine.clock.set('2026-03-10T20:00:00.000Z');
    expect(await queueDueSnapshots(engine)).toBe(0);
  });

  it('catches up the days the app was closed, each as the aging of its own date', async () => {
    engine.clock.set('2026-03-14T09:30:00.000Z');
    // Recorded on reopening, dated the 12th: the snapshots of the 12th on see it, earlier ones not.
    await ledger(engine, company).payment({ invoice, amount: 500, payment_date: '2026-03-12' });
    expect(await queueDueSnapshots(engine)).toBe(8);
    const runs = await worker().runDueJobs();
    expect(runs).toHaveLength(8);
    expect(runs.every((r) => r.status === 'succeeded')).toBe(true);
    expect(await history(company)).toEqual([
      ['2026-03-10', 70_000, 50_000, 20_000],
      ['2026-03-11', 70_000, 50_000, 20_000],
      ['2026-03-12', 20_000, 0, 20_000],
      ['2026-03-13', 20_000, 0, 20_000],
      ['2026-03-14', 20_000, 0, 20_000],
    ]);
    expect((await history(empty)).map(([date]) => date)).toEqual(['2026-03-10', '2026-03-11', '2026-03-12', '2026-03-13', '2026-03-14']);
    expect(await queueDueSnapshots(engine)).toBe(0);
    expect(await worker().runDueJobs()).toEqual([]);
  });

  it('is started by the running service (ardesk serve, the desktop) and takes the day when it changes', async () => {
    engine.clock.set('2026-03-15T07:00:00.000Z');
    const runtime = await startRuntime(engine, { port: 0, host: '127.0.0.1', jobPollMs: 50, snapshotCheckMs: 100 });
    try {
      const until = async (date: string) => {
        for (let i = 0; i < 200 && !(await history(empty)).some(([d]) => d === date); i++) await new Promise((r) => setTimeout(r, 50));
        return (await history(empty)).map(([d]) => d);
      };
      expect(await until('2026-03-15')).toContain('2026-03-15');
      engine.clock.set('2026-03-16T00:05:00.000Z');
      expect(await until('2026-03-16')).toContain('2026-03-16');
    } finally {
      await runtime.stop();
    }
    expect((await history(company)).map(([d]) => d).slice(-2)).toEqual(['2026-03-15', '2026-03-16']);
  });
});
