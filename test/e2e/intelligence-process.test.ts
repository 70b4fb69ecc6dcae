import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../core/runtime/server';
import { seedDatabase } from '../../core/seed';
import { addUser } from '../support/api';
import { type TestEngine, testEngine } from '../support/engine';
import { listen, loginOverHttp } from '../support/http';

/**
 * The server's intelligence refresh runs in a process of its own: requests are answered all
 * through it. The ledger is few customers with many invoices each (the shape that once held the
 * server for seconds: a chunk was a number of customers, whatever their invoices).
 */
describe('the intelligence refresh runs beside the server, not in it', () => {
  let engine: TestEngine;
  let server: Runtime;
  let token: string;
  let company: string;

  beforeAll(async () => {
    engine = await testEngine();
    const seeded = await seedDatabase(engine, { demo: false, invoices: 12_000, customers: 2 });
    company = seeded.companies[0].id;
    await addUser(engine, 'ana', [[company, 'owner']]);
    server = await listen(engine, { jobPollMs: 100 });
    token = JSON.parse((await loginOverHttp(server.url, 'ana', 'ana-pw')).body).token;
  });
  afterAll(async () => {
    await server?.stop();
    await engine?.dispose();
  });

  const refreshStatus = () =>
    engine.database.sqlite.prepare(`SELECT status FROM jobs WHERE company_id = ? AND kind = 'intelligence_refresh' AND subject_id = 'full'`).pluck().get(company) as string | undefined;

  it('answers requests all through the start-up refresh, takes a write meanwhile, and the refresh completes', async () => {
    const headers = { authorization: `Token ${token}` };
    const pings: Array<{ ms: number; during: boolean }> = [];
    let firstRunning: number | null = null;
    let label: Promise<Response> | null = null;
    for (;;) {
      const status = refreshStatus();
      if (status === 'running') {
        firstRunning ??= performance.now();
        label ??= fetch(`${server.url}/api/companies/${company}/labels`, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'Made meanwhile', color: '#336699' }),
        });
      }
      if (status === 'succeeded' || status === 'failed') break;
      const t = performance.now();
      const res = await fetch(`${server.url}/api/companies/${company}/invoices/summary`, { headers });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      pings.push({ ms: performance.now() - t, during: status === 'running' && refreshStatus() === 'running' });
    }
    const refreshMs = performance.now() - (firstRunning ?? performance.now());
    expect(refreshStatus()).toBe('succeeded');
    // It ran in another process, which stays for the next refresh.
    expect(server.refreshProcessId()).toEqual(expect.any(Number));
    expect(server.refreshProcessId()).not.toBe(process.pid);

    const during = pings.filter((p) => p.during);
    const slowest = Math.max(...during.map((p) => p.ms));
    console.log(`refresh ${refreshMs.toFixed(0)} ms; ${during.length} requests answered during it, slowest ${slowest.toFixed(0)} ms`);
    // Answered all through it, not in a few gaps between long holds: no request waited a sizeable
    // part of the refresh (relative, so a loaded machine slows both alike).
    expect(during.length).toBeGreaterThanOrEqual(5);
    expect(slowest).toBeLessThan(refreshMs / 4);
    expect((await label!).status).toBe(201);

    const report = JSON.parse(engine.database.sqlite.prepare(`SELECT result FROM jobs WHERE company_id = ? AND subject_id = 'full'`).pluck().get(company) as string).report;
    const open = engine.database.sqlite.prepare(`SELECT count(*) FROM insights WHERE company_id = ? AND valid_to IS NULL`).pluck().get(company) as number;
    expect(report.customers).toBe(2);
    expect(open).toBe(report.insights_opened);
    expect(open).toBeGreaterThan(1_000);
  });
});
