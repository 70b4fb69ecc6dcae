/**
 * Issue 40, item 4: one working date. A small ledger exported on 2013-12-02 (nothing after it), the
 * company working as of that date while the clock says 2026-11-23: the invoice list, its header,
 * Customers, My work, actions, the aging, the forecast and the portfolio insight all read the same
 * open total ($2,600.00) and count days past due from the same date. A working date before the
 * ledger's last activity is refused in words and changes nothing. The headline CEI is a whole month.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refreshIntelligence } from '../../core/intelligence/runner';
import { call } from '../support/api';
import { AR_HEADER, AR_MAPPING, csv, runImport } from '../support/import-fixtures';
import { type InvoiceWorld, invoiceWorld } from '../support/invoice-fixtures';

const W = '2013-12-02';
const LEDGER = csv([
  AR_HEADER,
  // Customer ID, Customer, Country, Email, Invoice, Date, Due, Amount, Disputed, Paid, Paid on, Method
  ['G1', 'Granite State Roofing', 'US', 'ap@granite.example', 'INV-1', '9/1/2013', '10/1/2013', '1000.00', '', '400.00', '11/15/2013', 'ACH'],
  ['G1', 'Granite State Roofing', 'US', 'ap@granite.example', 'INV-2', '11/1/2013', '12/1/2013', '500.00', '', '', '', ''],
  ['H2', 'Harbor Cafe', 'US', 'owner@harbor.example', 'INV-3', '10/20/2013', '11/19/2013', '250.00', '', '250.00', '11/25/2013', 'CHECK'],
  ['H2', 'Harbor Cafe', 'US', 'owner@harbor.example', 'INV-4', '11/20/2013', '12/20/2013', '300.00', '', '', '', ''],
  ['L3', 'Lyon Outils', 'FR', 'compta@lyon.example', 'INV-5', '8/1/2013', '8/31/2013', '1200.00', '', '', '', ''],
]);
const OPEN = 2_600;
const OVERDUE = 2_300;

describe('one working date on every page', () => {
  let w: InvoiceWorld;
  const get = async (path: string) => {
    const res = await call(w.app, 'GET', `/api/companies/${w.company}${path}`, { token: w.token });
    expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(200);
    return res.body;
  };
  const sum = (values: number[]) => Math.round(values.reduce((a, b) => a + b, 0) * 100) / 100;

  beforeAll(async () => {
    w = await invoiceWorld();
    const report = await runImport(w.engine, w.company, LEDGER, AR_MAPPING);
    expect(report.errors).toEqual([]);
    // demo collects every customer: My work is the whole ledger.
    const me = (await call(w.app, 'GET', '/api/v1/auth/me/', { token: w.token })).body.user.id;
    const member = await call(w.app, 'POST', `/api/companies/${w.company}/team-members`, { token: w.token, body: { name: 'Demo Collector', role: 'ar', user_id: me } });
    const assigned = await call(w.app, 'POST', `/api/companies/${w.company}/customers/assign-ar-owner`, { token: w.token, body: { ar_owner: member.body.id, rule: { min_open_balance: 0 } } });
    expect(assigned.body.updated).toBe(3);
  });
  afterAll(() => w?.dispose());

  it("refuses a working date before the ledger's last activity, in words, and keeps none", async () => {
    const res = await call(w.app, 'PATCH', `/api/companies/${w.company}/settings`, { token: w.token, body: { as_of_date: '2013-11-24' } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('before_ledger_activity');
    expect(res.body.detail).toBe('The ledger records invoices or payments up to 2013-11-25: work as of 2013-11-25 or later (to see an earlier date, pick it on Analytics)');
    expect((await get('/settings')).as_of_date).toBeNull();
  });

  it('reads the same open total, and days past due from the same date, on every page', async () => {
    expect((await call(w.app, 'PATCH', `/api/companies/${w.company}/settings`, { token: w.token, body: { as_of_date: W } })).status).toBe(200);

    type Row = { invoice_number: string; balance: number; days_past_due: number; status: string };
    const list = (await get('/invoices?limit=500')) as { items: Row[] };
    const rows = Object.fromEntries(list.items.map((r) => [r.invoice_number, r]));
    expect(sum(list.items.map((r) => r.balance))).toBe(OPEN);
    expect(Object.fromEntries(list.items.map((r) => [r.invoice_number, r.days_past_due]))).toEqual({ 'INV-1': 62, 'INV-2': 1, 'INV-3': 0, 'INV-4': 0, 'INV-5': 93 });

    const summary = await get('/invoices/summary');
    expect(summary).toMatchObject({ as_of: W, total_open_balance: OPEN, overdue_balance: OVERDUE });
    expect(await get('/invoices/summary?ar_owner=me')).toMatchObject({ total_open_balance: OPEN, overdue_balance: OVERDUE });

    const customers = (await get('/customers?limit=100')) as { data: Array<{ open_balance: number; overdue_balance: number }> };
    expect(sum(customers.data.map((c) => c.open_balance))).toBe(OPEN);
    expect(sum(customers.data.map((c) => c.overdue_balance))).toBe(OVERDUE);

    // My work: the overdue invoices, at their balances.
    const work = (await get('/invoices?attention=true&sort=attention&ar_owner=me&limit=100')) as { items: Row[] };
    expect(work.items.map((r) => r.invoice_number).sort()).toEqual(['INV-1', 'INV-2', 'INV-5']);
    expect(sum(work.items.map((r) => r.balance))).toBe(OVERDUE);

    const aging = await get('/ar-aging/summary');
    expect(aging).toMatchObject({ as_of: W, total_balance: OPEN, overdue_balance: OVERDUE });
    const details = (await get('/ar-aging/details?page_size=100')) as { data: Array<{ invoice_number: string; balance: number }> };
    expect(sum(details.data.map((r) => r.balance))).toBe(OPEN);

    // The refresh predicts and proposes from the working date; an action reads its invoice's balance and lateness from it.
    await refreshIntelligence(w.engine, w.company);

    // The forecast's weeks start on the working date: what is not yet due (2,600 - 2,300) falls due
    // in them, and the expected inflow comes from the same open balances.
    const forecast = await get('/analytics/cashflow-forecast');
    expect(forecast.calendar.weeks[0].start_date).toBe(W);
    expect(sum(forecast.time_series.due_date_cash_inflows)).toBe(OPEN - OVERDUE);
    expect(forecast.model_predicted_total).toBeGreaterThan(0);
    expect(forecast.model_predicted_total).toBeLessThanOrEqual(OPEN);

    const actions = (await get('/actions?page_size=100')) as { data: Array<{ invoice_number: string | null; balance: number | null; days_past_due: number | null }> };
    const onInvoices = actions.data.filter((a) => a.invoice_number !== null);
    expect(onInvoices.length).toBeGreaterThan(0);
    for (const a of onInvoices) expect([a.invoice_number, a.balance, a.days_past_due]).toEqual([a.invoice_number, rows[a.invoice_number!].balance, rows[a.invoice_number!].days_past_due]);

    // The portfolio insight's overdue share is the list's: 2,300 of 2,600.
    const insights = await call(w.app, 'GET', `/api/intelligence/insights?company_id=${w.company}&target_type=portfolio&limit=100`, { token: w.token });
    expect(insights.status).toBe(200);
    const evidence = (insights.body.results as Array<{ evidence: Array<{ fact: string; value: unknown }> }>).flatMap((i) => i.evidence);
    const shares = evidence.filter((e) => e.fact === 'Overdue share today');
    expect(shares.length).toBeGreaterThan(0);
    for (const s of shares) expect(s.value).toBe('88.5%');
  }, 60_000);

  it('heads CEI with the last complete month, the month so far apart, or a chosen whole month', async () => {
    const metrics = await get('/analytics/metrics?months=3');
    expect(metrics.as_of).toBe(W);
    expect(metrics.headline_cei).toMatchObject({ month: '2013-11', period: 'last_complete_month' });
    expect(metrics.headline_cei.cei).toBe(metrics.trend.find((t: { month: string }) => t.month === '2013-11').cei);
    expect(metrics.trend.map((t: { month: string }) => t.month)).toEqual(['2013-10', '2013-11', '2013-12']);
    const october = await get('/analytics/metrics?months=1&cei_month=2013-10');
    expect(october.headline_cei).toMatchObject({ month: '2013-10', period: 'chosen_month' });
    expect(october.headline_cei.cei).toBe(metrics.trend[0].cei);
    expect(october.trend).toHaveLength(1);
    const open = await call(w.app, 'GET', `/api/companies/${w.company}/analytics/metrics?cei_month=2013-12`, { token: w.token });
    expect(open.status).toBe(400);
    expect(open.body.detail).toBe('2013-12 is not complete on 2013-12-02: pick a month that has ended');
  });
});
