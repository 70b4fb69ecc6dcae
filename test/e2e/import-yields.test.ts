import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../core/runtime/server';
import { addCompany, addUser } from '../support/api';
import { type TestEngine, testEngine } from '../support/engine';
import { listen, loginOverHttp } from '../support/http';
import { AR_HEADER, csv, rowCount } from '../support/import-fixtures';

const MAPPING = {
  entity: 'ar-rows',
  formats: { date: 'M/D/YYYY' },
  customers: { remote_id: 'Customer ID', name: 'Customer', country: 'Country' },
  invoices: { invoice_number: 'Invoice', invoice_date: 'Date', due_date: 'Due', total_amount: 'Amount', labels: [{ label: 'Disputed', column: 'Disputed' }] },
  payments: { amount: 'Paid', payment_date: 'Paid on', payment_method: 'Method', remote_id: { template: 'pay-{Invoice}' } },
};

function rows(count: number, prefix: string, badLast = false): string {
  const out: Array<Array<string | number>> = [AR_HEADER];
  for (let i = 0; i < count; i++) {
    const amount = badLast && i === count - 1 ? 'not a number' : 100 + i;
    out.push([`C${i % 500}`, `Customer ${i % 500}`, 'US', '', `${prefix}-${i}`, '1/5/2026', '2/4/2026', amount, i % 7 ? '' : 'Yes', i % 2 ? 50 : '', i % 2 ? '1/20/2026' : '', 'check']);
  }
  return csv(out);
}

describe('a 6,000-row import over HTTP lets other requests through', () => {
  let engine: TestEngine;
  let server: Runtime;
  let token: string;
  let company: string;

  beforeAll(async () => {
    engine = await testEngine();
    company = await addCompany(engine, 'Home');
    await addUser(engine, 'ana', [[company, 'owner']]);
    server = await listen(engine);
    token = JSON.parse((await loginOverHttp(server.url, 'ana', 'ana-pw')).body).token;
  });
  afterAll(async () => {
    await server.stop();
    await engine.dispose();
  });

  function startImport(content: string): Promise<{ status: number; body: any }> {
    const form = new FormData();
    form.set('file', new File([content], 'rows.csv', { type: 'text/csv' }));
    form.set('mapping', JSON.stringify(MAPPING));
    return fetch(`${server.url}/api/companies/${company}/imports`, { method: 'POST', headers: { authorization: `Token ${token}` }, body: form }).then(async (r) => ({
      status: r.status,
      body: await r.json(),
    }));
  }

  /**
   * Pings (an authenticated read) one after another until `until` settles; the latencies of those
   * that finished first. `onFirst` runs once a ping was answered while `until` still ran.
   */
  async function pingWhile(until: Promise<unknown>, onFirst?: () => void): Promise<{ beforeDone: number[]; maxMs: number }> {
    let done = false;
    void until.finally(() => (done = true));
    const beforeDone: number[] = [];
    let maxMs = 0;
    while (!done) {
      const t = performance.now();
      const res = await fetch(`${server.url}/api/v1/auth/me/`, { headers: { authorization: `Token ${token}` } });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      const ms = performance.now() - t;
      maxMs = Math.max(maxMs, ms);
      if (!done) {
        beforeDone.push(ms);
        if (beforeDone.length === 1) onFirst?.();
      }
    }
    return { beforeDone, maxMs };
  }

  it('answers reads while the import runs, and a write made meanwhile waits for it and succeeds', async () => {
    const content = rows(6000, 'A');
    let answered = false;
    const importing = startImport(content).finally(() => (answered = true));
    // The write goes out once a read was answered while the import ran, so it surely met the import.
    let label: Promise<Response> | null = null;
    let labelSentMeanwhile = false;
    const pings = await pingWhile(importing, () => {
      labelSentMeanwhile = !answered;
      label = fetch(`${server.url}/api/companies/${company}/labels`, {
        method: 'POST',
        headers: { authorization: `Token ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Made meanwhile', color: '#336699' }),
      });
    });
    const result = await importing;
    expect(result.status).toBe(200);
    expect(result.body.counts.invoices.created).toBe(6000);
    expect(labelSentMeanwhile).toBe(true);
    expect((await (label as Promise<Response> | null))?.status).toBe(201);
    console.log(`pings answered during the import: ${pings.beforeDone.length}, slowest ${pings.maxMs.toFixed(0)} ms`);
    expect(pings.beforeDone.length).toBeGreaterThanOrEqual(3);
    expect(rowCount(engine, 'invoices')).toBe(6000);
  });

  it('stays all or nothing: an error in the last row writes none of the 6,000, and reads went on meanwhile', async () => {
    const invoicesBefore = rowCount(engine, 'invoices');
    const changesBefore = rowCount(engine, 'changes');
    const importing = startImport(rows(6000, 'B', true));
    const pings = await pingWhile(importing);
    const result = await importing;
    expect(result.status).toBe(400);
    expect(result.body.code).toBe('import_rejected');
    expect(pings.beforeDone.length).toBeGreaterThanOrEqual(1);
    expect(rowCount(engine, 'invoices')).toBe(invoicesBefore);
    expect(rowCount(engine, 'changes')).toBe(changesBefore);
  });
});
