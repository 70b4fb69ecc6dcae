import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agingBucketRows } from '../../core/analytics/aging';
import { receivablesAt } from '../../core/analytics/metrics-report';
import { addDays } from '../../core/dates';
import { seedDatabase } from '../../core/seed';
import { createApp } from '../../core/http/app';
import { followPromises } from '../../core/promises/followup';
import { addAction } from '../support/actions-fixtures';
import { addCompany, addUser, type App, call, loginAs } from '../support/api';
import { type TestEngine, testEngine } from '../support/engine';
import { ledger } from '../support/ledger-fixtures';

/**
 * A small ledger whose metrics are worked out by hand (today 2026-03-15):
 *   D 100.00 issued 2025-12-20, due 2026-01-19, paid 2026-01-05
 *   A 310.00 issued 2026-01-10, due 2026-02-09, paid 2026-02-20
 *   B 560.00 issued 2026-02-05, due 2026-03-07, unpaid (8 days past due on the 15th)
 *   C 300.00 issued 2026-03-02, due 2026-04-01, unpaid (current)
 * Receivables (total / current): Dec 31 100/100, Jan 31 310/310, Feb 28 560/560, Mar 15 860/300.
 */
describe('GET /api/companies/{id}/analytics/metrics (extension)', () => {
  let engine: TestEngine;
  let app: App;
  let token: string;
  let viewerToken: string;
  let company: string;
  let other: string;

  beforeAll(async () => {
    engine = await testEngine('2026-03-15T12:00:00.000Z');
    app = createApp(engine);
    company = await addCompany(engine, 'Acme Supply');
    other = await addCompany(engine, 'Borealis Foods');
    await addUser(engine, 'dana', [[company, 'owner']]);
    await addUser(engine, 'vera', [[company, 'viewer']]);
    token = await loginAs(app, 'dana');
    viewerToken = await loginAs(app, 'vera');
    const l = ledger(engine, company);
    const customer = await l.customer({ name: 'Globex' });
    const d = await l.invoice({ customer, number: 'D', total: 100, invoiceDate: '2025-12-20', dueDate: '2026-01-19' });
    const a = await l.invoice({ customer, number: 'A', total: 310, invoiceDate: '2026-01-10', dueDate: '2026-02-09' });
    const b = await l.invoice({ customer, number: 'B', total: 560, invoiceDate: '2026-02-05', dueDate: '2026-03-07' });
    const c = await l.invoice({ customer, number: 'C', total: 300, invoiceDate: '2026-03-02', dueDate: '2026-04-01' });
    await l.payment({ invoice: d, amount: 100, payment_date: '2026-01-05' });
    await l.payment({ invoice: a, amount: 310, payment_date: '2026-02-20' });
    const promise = (invoice: string, commitment_date: string, extra: Record<string, unknown> = {}) =>
      addAction(engine, company, { customer_id: customer, invoice_id: invoice, action_type: 'task', metadata: { commitment_date }, ...extra });
    await promise(a, '2026-02-15'); // broken: paid on the 20th
    await promise(a, '2026-02-25'); // kept
    await promise(b, '2026-03-10'); // broken: unpaid
    await promise(c, '2026-03-20'); // not due yet
    await promise(b, '2026-03-12', { deleted_at: '2026-03-13T00:00:00.000Z' }); // deleted: not a promise
    await addAction(engine, company, { customer_id: customer, invoice_id: b, metadata: { note: 'no date' } });
    // The rate reads the promises judged by the daily follow-up (their date plus 3 days of grace passed).
    await followPromises(engine, company);
  });
  afterAll(() => engine.dispose());

  const path = (query = '') => `/api/companies/${company}/analytics/metrics${query}`;

  it('gives DSO, best possible DSO, days delinquent, CEI and promise rate per month, the month of as_of as current', async () => {
    const res = await call(app, 'GET', path('?months=3'), { token });
    expect(res.status).toBe(200);
    const march = { dso: 43, best_possible_dso: 15, average_days_delinquent: 28, cei: 0, promise_kept_rate: 0 };
    expect(res.body).toEqual({
      as_of: '2026-03-15',
      currency: 'USD',
      current: march,
      // The headline is a whole month: March is not over on the 15th, so February's.
      headline_cei: { month: '2026-02', cei: 100, period: 'last_complete_month' },
      trend: [
        { month: '2026-01', dso: 31, best_possible_dso: 31, average_days_delinquent: 0, cei: 100, promise_kept_rate: null },
        { month: '2026-02', dso: 28, best_possible_dso: 28, average_days_delinquent: 0, cei: 100, promise_kept_rate: 50 },
        { month: '2026-03', ...march },
      ],
    });
  });

  it('computes a past as_of from the payments dated by then, and defaults to 12 months', async () => {
    const past = await call(app, 'GET', path('?as_of=2026-02-28&months=1'), { token: viewerToken });
    expect(past.body).toEqual({
      as_of: '2026-02-28',
      currency: 'USD',
      current: { dso: 28, best_possible_dso: 28, average_days_delinquent: 0, cei: 100, promise_kept_rate: 50 },
      // On its last day February is complete.
      headline_cei: { month: '2026-02', cei: 100, period: 'last_complete_month' },
      trend: [{ month: '2026-02', dso: 28, best_possible_dso: 28, average_days_delinquent: 0, cei: 100, promise_kept_rate: 50 }],
    });
    const year = await call(app, 'GET', path(), { token });
    expect(year.body.trend.map((m: { month: string }) => m.month)).toEqual([
      '2025-04', '2025-05', '2025-06', '2025-07', '2025-08', '2025-09', '2025-10', '2025-11', '2025-12', '2026-01', '2026-02', '2026-03',
    ]);
    // Before the first sale nothing is defined. December: D's 100.00 is December's sales and still
    // owed at its end (31 days); nothing was collectable, so no CEI.
    expect(year.body.trend[0]).toEqual({ month: '2025-04', dso: null, best_possible_dso: null, average_days_delinquent: null, cei: null, promise_kept_rate: null });
    expect(year.body.trend[8]).toEqual({ month: '2025-12', dso: 31, best_possible_dso: 31, average_days_delinquent: 0, cei: null, promise_kept_rate: null });
  });

  it('refuses a future as_of and months outside 1..24 with a 400, and other companies with a 403', async () => {
    for (const query of ['?as_of=2026-03-16', '?months=0', '?months=25', '?months=two', '?as_of=2026-02-30']) {
      const res = await call(app, 'GET', path(query), { token });
      expect(res.status, query).toBe(400);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
    }
    expect((await call(app, 'GET', `/api/companies/${other}/analytics/metrics`, { token })).status).toBe(403);
  });
});

describe('receivables at many dates in one pass', () => {
  it('equal the aging of each date (incl. overpaid, written-off and credit-memo invoices) on a generated ledger', async () => {
    const engine = await testEngine('2026-11-23T12:00:00.000Z');
    try {
      const { companies } = await seedDatabase(engine, { demo: false, invoices: 3000, customers: 200, seed: 7 });
      const dates = Array.from({ length: 30 }, (_, i) => addDays('2026-11-23', -19 * i));
      for (const { id } of companies) {
        const states = engine.database.sqlite.prepare('SELECT closing_reason AS r, count(*) AS n FROM invoices WHERE company_id = ? GROUP BY 1').all(id) as Array<{ r: string | null }>;
        expect(states.map((s) => s.r)).toEqual(expect.arrayContaining([null, 'paid', 'overpaid', 'credit_memo', 'written_off']));
        const batched = receivablesAt(engine, id, dates, '2026-11-23');
        for (const date of dates) {
          const rows = agingBucketRows(engine, id, date, '2026-11-23');
          const expected = { total: rows.reduce((sum, r) => sum + r.balance, 0), current: rows.find((r) => r.bucket === 'current')?.balance ?? 0 };
          expect(batched.get(date), date).toEqual(expected);
        }
      }
    } finally {
      await engine.dispose();
    }
  }, 120_000);
});
