import ExcelJS from 'exceljs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addDays } from '../../core/dates';
import { createApp } from '../../core/http/app';
import { forecastAccuracyInsight, loadAccuracyHistory } from '../../core/intelligence/forecast-accuracy';
import { refreshIntelligence } from '../../core/intelligence/runner';
import { addCompany, addUser, type App, call, loginAs } from '../support/api';
import { type TestEngine, testEngine } from '../support/engine';
import { ledger } from '../support/ledger-fixtures';

// Today is Monday 2026-11-23.
describe('AR aging and the cash flow forecast', () => {
  let engine: TestEngine;
  let app: App;
  let token: string;
  let company: string;
  let other: string;
  let acme: string;
  let birch: string;

  beforeEach(async () => {
    engine = await testEngine('2026-11-23T15:00:00.000Z');
    app = createApp(engine);
    company = await addCompany(engine, 'Acme Supply');
    other = await addCompany(engine, 'Elsewhere Inc');
    await addUser(engine, 'ana', [[company, 'collector']]);
    token = await loginAs(app, 'ana');
    const l = ledger(engine, company);
    acme = await l.customer({ name: 'Acme Hardware' });
    birch = await l.customer({ name: 'Birch Clinic', is_person: false });
    await l.invoice({ customer: acme, number: 'A-1', total: 500, dueDate: '2026-11-30' }); // current
    await l.invoice({ customer: acme, number: 'A-2', total: 200, dueDate: '2026-11-13' }); // 10 days: 1_30
    await l.invoice({ customer: birch, number: 'B-1', total: 300, dueDate: '2026-10-01' }); // 53 days: 31_60
    await l.invoice({ customer: birch, number: 'B-2', total: 50, dueDate: '2026-09-10' }); // 74 days: 61_90
    const old = await l.invoice({ customer: birch, number: 'B-3', total: 1000, invoiceDate: '2026-05-01', dueDate: '2026-06-01' }); // 175 days: 91_over
    await l.payment({ invoice: old, amount: 400, payment_date: '2026-11-01' });
    const paid = await l.invoice({ customer: acme, number: 'A-3', total: 80, dueDate: '2026-10-20' });
    await l.payment({ invoice: paid, amount: 80, payment_date: '2026-10-25' });
    await l.invoice({ customer: acme, number: 'A-4', total: 70, dueDate: '2026-08-01', closingReason: 'written_off' });
    const otherLedger = ledger(engine, other);
    const foreign = await otherLedger.customer({ name: 'Foreign Co' });
    await otherLedger.invoice({ customer: foreign, number: 'F-1', total: 9999, dueDate: '2026-11-01' });
  });
  afterEach(() => engine.dispose());

  const get = (path: string) => call(app, 'GET', `/api/companies/${company}${path}`, { token });
  /** Eight invoices of 100 due 20 days apart from 2026-02-01, the i-th paid `late` + i days after its due date. */
  const paidLateHistory = async (customer: string, prefix: string, late: number) => {
    const l = ledger(engine, company);
    for (let i = 0; i < 8; i++) {
      const inv = await l.invoice({ customer, number: `${prefix}-${i}`, total: 100, invoiceDate: addDays('2026-01-01', i * 20), dueDate: addDays('2026-02-01', i * 20) });
      await l.payment({ invoice: inv, amount: 100, payment_date: addDays('2026-02-01', i * 20 + late + i) });
    }
  };

  it('sums open balances per bucket for today, leaving out closed invoices and other companies', async () => {
    const res = await get('/ar-aging/summary');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ as_of: '2026-11-23', total_balance: 1650, overdue_balance: 1150, invoice_count: 5 });
    expect(res.body.buckets.map((b: { key: string; balance: number }) => [b.key, b.balance])).toEqual([
      ['current', 500],
      ['1_30', 200],
      ['31_60', 300],
      ['61_90', 50],
      ['91_over', 600],
    ]);
    expect(res.body.buckets.reduce((s: number, b: { percent: number }) => s + b.percent, 0)).toBeCloseTo(100, 1);
  });

  it('ages as of a past date from the payments made by then', async () => {
    const res = await get('/ar-aging/summary?as_of=2026-10-15');
    expect(res.status).toBe(200);
    // On Oct 15: A-3 (invoiced Sep 20) and A-4 (not yet written off) were open, B-3 had no payment yet.
    const buckets = Object.fromEntries(res.body.buckets.map((b: { key: string; balance: number }) => [b.key, b.balance]));
    expect(buckets).toEqual({ current: 200 + 80, '1_30': 300, '31_60': 50, '61_90': 70, '91_over': 1000 });
  });

  it('lists invoice-level aging filtered by bucket, and per customer', async () => {
    const details = await get('/ar-aging/details?bucket=91_over,31_60');
    expect(details.status).toBe(200);
    expect(details.body.count).toBe(2);
    expect(details.body.data.map((r: { invoice_number: string; days_past_due: number; balance: number }) => [r.invoice_number, r.days_past_due, r.balance])).toEqual([
      ['B-3', 175, 600],
      ['B-1', 53, 300],
    ]);
    const grouped = await get('/ar-aging/details?group_by=customer');
    expect(grouped.body.data).toEqual([
      expect.objectContaining({ customer: birch, current: 0, '31_60': 300, '61_90': 50, '91_over': 600, total: 950, invoice_count: 3 }),
      expect.objectContaining({ customer: acme, current: 500, '1_30': 200, total: 700, invoice_count: 2 }),
    ]);
  });

  it('rejects an unknown bucket, a future date and a bad page size with 400 problem+json', async () => {
    for (const query of ['/ar-aging/details?bucket=90_plus', '/ar-aging/summary?as_of=2026-12-01', '/ar-aging/summary?as_of=2026-02-30', '/ar-aging/details?page_size=5000']) {
      const res = await get(query);
      expect(res.status, query).toBe(400);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
    }
  });

  it('takes snapshots idempotently and serves their history and dates', async () => {
    const first = await call(app, 'POST', `/api/companies/${company}/ar-aging/snapshots`, { token, body: { snapshot_date: '2026-10-15' } });
    expect(first.status).toBe(201);
    expect(first.body.buckets['91_over']).toBe(1000);
    expect((await call(app, 'POST', `/api/companies/${company}/ar-aging/snapshots`, { token })).status).toBe(201);
    const again = await call(app, 'POST', `/api/companies/${company}/ar-aging/snapshots`, { token, body: { snapshot_date: '2026-10-15' } });
    expect(again.body.id).toBe(first.body.id);
    expect((await get('/ar-aging/available-dates')).body).toEqual({ dates: ['2026-11-23', '2026-10-15'] });
    const history = await get('/ar-aging/history?date_from=2026-11-01');
    expect(history.body.count).toBe(1);
    expect(history.body.data[0]).toMatchObject({ snapshot_date: '2026-11-23', total_balance: 1650, invoice_count: 5 });
  });

  it('formats a report summary and exports it as CSV and XLSX', async () => {
    const report = await get('/ar-aging/report-summary');
    expect(report.body).toMatchObject({ company_name: 'Acme Supply', as_of: '2026-11-23', total: { balance: 1650, balance_display: '$1,650.00' } });
    expect(report.body.rows[4]).toMatchObject({ label: '90+ days', balance_display: '$600.00' });

    const csv = await app.request(`/api/companies/${company}/ar-aging/report-export`, {
      method: 'POST',
      headers: { authorization: `Token ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ format: 'csv' }),
    });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-disposition')).toBe('attachment; filename="ar-aging-2026-11-23.csv"');
    const text = await csv.text();
    expect(text).toContain('B-3,Birch Clinic,2026-05-01,2026-06-01,175,91_over,600');

    const xlsx = await app.request(`/api/companies/${company}/ar-aging/report-export`, {
      method: 'POST',
      headers: { authorization: `Token ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ format: 'xlsx' }),
    });
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(await xlsx.arrayBuffer());
    expect(workbook.getWorksheet('Invoices')!.rowCount).toBe(6);
    expect(workbook.getWorksheet('Summary')!.getRow(10).values).toEqual([undefined, 'Total', 1650, 5, 1]);
  });

  it('forecasts 13 weeks from today (this week, then Monday weeks), clamping weeks and accepting request_date', async () => {
    const res = await get('/analytics/cashflow-forecast');
    expect(res.status).toBe(200);
    expect(res.body.request_date).toBe('2026-11-23');
    expect(res.body.calendar.num_weeks).toBe(13);
    expect(res.body.calendar.weeks[0]).toMatchObject({ code: 'W1', label: 'This week, from Nov 23', start_date: '2026-11-23', end_date: '2026-11-29' });
    expect(res.body.calendar.weeks[1]).toMatchObject({ code: 'W2', start_date: '2026-11-30', end_date: '2026-12-06' });
    // A-1 is due Nov 30: the only due date inside the window.
    expect(res.body.time_series.due_date_cash_inflows[1]).toBe(500);
    expect(res.body.time_series.due_date_cash_inflows.filter((v: number) => v !== 0)).toEqual([500]);
    // 480 settled in the last 26 weeks -> 18.46 a week.
    expect(res.body.time_series.trailing_6m_avg_weekly_inflows[0]).toBe(18.46);
    expect(res.body.customers[0].total_predicted).toBeGreaterThanOrEqual(res.body.customers.at(-1).total_predicted);

    expect((await get('/analytics/cashflow-forecast?weeks=40')).body.calendar.num_weeks).toBe(26);
    expect((await get('/analytics/cashflow-forecast?weeks=0')).body.calendar.num_weeks).toBe(1);
    const alias = await get('/analytics/cashflow-forecast?request_date=2026-11-25&weeks=2');
    expect(alias.body).toMatchObject({ request_date: '2026-11-25', calendar: { num_weeks: 2 } });
    // Clamped, not refused: a huge or negative whole number still gets a forecast; an empty value is the default.
    expect((await get('/analytics/cashflow-forecast?weeks=99999999999999999999')).body.calendar.num_weeks).toBe(26);
    expect((await get('/analytics/cashflow-forecast?weeks=-5')).body.calendar.num_weeks).toBe(1);
    expect((await get('/analytics/cashflow-forecast?weeks=')).body.calendar.num_weeks).toBe(13);
    expect((await get('/analytics/cashflow-forecast?weeks=abc')).status).toBe(400);
    expect((await get('/analytics/cashflow-forecast?weeks=2.5')).status).toBe(400);
    const badPage = await get('/analytics/cashflow-forecast?customer_limit=0');
    expect(badPage.status).toBe(400);
    expect(badPage.headers.get('content-type')).toMatch(/problem\+json/);
  });

  it("the forecast's total over the window is the sum of the open invoices' expected amounts from their predictions", async () => {
    // A history to learn from: Acme paid eight invoices 3-10 days late.
    await paidLateHistory(acme, 'H', 3);
    await refreshIntelligence(engine, company);
    const f = (await get('/analytics/cashflow-forecast?weeks=26')).body;
    const start = f.calendar.weeks[0].start_date;
    const end = f.calendar.weeks.at(-1).end_date;
    const rows = engine.database.sqlite
      .prepare(
        `SELECT i.balance, m.payload_json FROM invoices i JOIN insights m ON m.invoice_id = i.id AND m.insight_type = 'invoice_pay_date_prediction' AND m.valid_to IS NULL
         WHERE i.company_id = ? AND i.closing_reason IS NULL AND i.balance > 0`,
      )
      .all(company) as { balance: number; payload_json: string }[];
    expect(rows).toHaveLength(5);
    let expected = 0;
    for (const r of rows) {
      const p = JSON.parse(r.payload_json);
      if (p.predicted_date === null) expected += r.balance * p.collectible_90d;
      else for (const s of p.alternative_scenarios) if (s.date <= end) expected += r.balance * s.probability;
      expect(p.predicted_date === null || p.predicted_date >= start).toBe(true);
    }
    expect(f.model_predicted_total).toBeCloseTo(expected / 100, 1);
    expect(f.time_series.model_predicted_cash_inflows.reduce((a: number, b: number) => a + b, 0)).toBeCloseTo(expected / 100, 1);
    // B-3, 175 days past due, is neither dropped nor "today": it counts by its collectible_90d.
    expect(f.customers_total).toBeGreaterThan(0);
    expect(f.week_customers[0].customers.length).toBeLessThanOrEqual(5);
  });

  it("carries how good the forecast is: the full refresh replays the company's latest 13 weeks; the request reads what it measured", async () => {
    // A company of one steady customer: an invoice of 100 every Monday from Jan 5, due 30 days later, paid 5 days late.
    const steadyCo = await addCompany(engine, 'Steady Books');
    await addUser(engine, 'sam', [[steadyCo, 'viewer']]);
    const sam = await loginAs(app, 'sam');
    const forecast = async () => (await call(app, 'GET', `/api/companies/${steadyCo}/analytics/cashflow-forecast`, { token: sam })).body;
    expect((await forecast()).accuracy).toBeNull();
    expect((await forecast()).time_series.forecast_all_cash_in.every((v: number | null) => v === null)).toBe(true);
    const l = ledger(engine, steadyCo);
    const steady = await l.customer({ name: 'Steady Co' });
    for (let i = 0; i < 41; i++) {
      const inv = await l.invoice({ customer: steady, number: `S-${i}`, total: 100, invoiceDate: addDays('2026-01-05', 7 * i), dueDate: addDays('2026-02-04', 7 * i) });
      await l.payment({ invoice: inv, amount: 100, payment_date: addDays('2026-02-09', 7 * i) });
    }
    await refreshIntelligence(engine, steadyCo);
    const { accuracy } = await forecast();
    // The last payment is Monday Nov 16 (S-40); the last forecast replayed is the last Monday with a
    // week of cash after it known (Nov 9), the first 12 weeks before (Aug 17).
    expect(accuracy).toMatchObject({ weeks: 13, from: '2026-08-17', to: '2026-11-15', reason: null });
    expect(accuracy.horizons.map((h: { horizon_weeks: number; weeks: number }) => [h.horizon_weeks, h.weeks])).toEqual([
      [1, 13],
      [2, 12],
      [3, 11],
      [4, 10],
      [5, 9],
      [6, 8],
      [7, 7],
      [8, 6],
    ]);
    for (const h of accuracy.horizons) {
      // 100 a week, every week: the forecast lands on it; paying each invoice on its due date puts
      // the invoices due but not yet paid in the first week.
      expect(h.wape).toBeLessThan(0.02);
      expect(h.baselines.run_rate.wape).toBe(0);
    }
    expect(accuracy.horizons[0].baselines.due_date.wape).toBeGreaterThan(0.5);
    // The forecast measured, drawn beside the bars: made on this week's Monday (Nov 23) for it and
    // the 7 after, the mean of the model and the last 4 weeks' 100 a week. Nothing is open (the
    // last invoice, S-40 of Oct 12, was paid Nov 16) and an invoice is paid 5 weeks after it is
    // issued: the model has nothing for the first 5 weeks (50 shown), then the 100 a week new
    // invoices brought (100). Nothing beyond 8 weeks.
    const all = (await forecast()).time_series.forecast_all_cash_in;
    expect(all).toHaveLength(13);
    for (const v of all.slice(0, 5)) expect(v).toBeCloseTo(50, 0);
    for (const v of all.slice(5, 8)) expect(v).toBeCloseTo(100, 0);
    expect(all.slice(8)).toEqual([null, null, null, null, null]);
    // A payment recorded since (dated within the weeks replayed) changes nothing until the next full
    // refresh measures again: nothing is replayed on the request.
    const extra = await l.invoice({ customer: steady, number: 'S-X', total: 5000, invoiceDate: '2026-11-02', dueDate: '2026-11-12' });
    await l.payment({ invoice: extra, amount: 5000, payment_date: '2026-11-10' });
    expect((await forecast()).accuracy).toEqual(accuracy);
    await refreshIntelligence(engine, steadyCo);
    expect((await forecast()).accuracy.horizons[0].wape).toBeGreaterThan(0.2);
    // A company with too little history: measured as nothing, with null scores rather than 0.
    await refreshIntelligence(engine, other);
    const row = engine.database.sqlite.prepare("SELECT payload_json FROM insights WHERE company_id = ? AND insight_type = 'portfolio_forecast_accuracy' AND valid_to IS NULL").get(other) as { payload_json: string };
    expect(JSON.parse(row.payload_json)).toMatchObject({ weeks: 0, from: null, to: null, reason: expect.stringMatching(/^Too little history/) });
    expect(JSON.parse(row.payload_json).horizons.every((h: { wape: number | null }) => h.wape === null)).toBe(true);
    // A ledger larger than the replay reads is not measured, and says so.
    expect(loadAccuracyHistory(engine, steadyCo, 42)).not.toBeNull();
    expect(loadAccuracyHistory(engine, steadyCo, 41)).toBeNull();
    expect(forecastAccuracyInsight(steadyCo, 'Steady Books', null, '2026-11-23').payload).toMatchObject({ weeks: 0, horizons: [], reason: 'Not measured: more than 100,000 invoices in the weeks replayed and the year before them' });
  });

  it('the forecast reads the inflows the full refresh kept per customer and week: the same answer as from the predictions, and a customer paid in full leaves it at once', async () => {
    const l = ledger(engine, company);
    await paidLateHistory(birch, 'BH', 5);
    await refreshIntelligence(engine, company);
    const sqlite = engine.database.sqlite;
    const kept = sqlite.prepare(`SELECT customer_id, weeks FROM forecast_inflows WHERE company_id = ?`).all(company) as { customer_id: string; weeks: string }[];
    expect(new Set(kept.map((r) => r.customer_id))).toEqual(new Set([acme, birch]));
    // Weeks are Mondays (2026-11-23 is one), or '' for an amount spread over the next 90 days.
    const weeks = kept.flatMap((r) => (JSON.parse(r.weeks) as [string][]).map(([week]) => week));
    expect(weeks.length).toBeGreaterThan(0);
    for (const week of weeks) expect(week === '' || new Date(`${week}T00:00:00Z`).getUTCDay() === 1).toBe(true);
    const fromKept = (await get('/analytics/cashflow-forecast?weeks=26&request_date=2026-11-25')).body;
    const state = sqlite.prepare(`SELECT * FROM forecast_state WHERE company_id = ?`).get(company);
    sqlite.prepare(`DELETE FROM forecast_state WHERE company_id = ?`).run(company);
    const fromPredictions = (await get('/analytics/cashflow-forecast?weeks=26&request_date=2026-11-25')).body;
    expect(fromKept.model_predicted_total).toBeGreaterThan(0);
    expect(fromKept.model_predicted_total).toBeCloseTo(fromPredictions.model_predicted_total, 1);
    fromKept.time_series.model_predicted_cash_inflows.forEach((v: number, i: number) => expect(v).toBeCloseTo(fromPredictions.time_series.model_predicted_cash_inflows[i], 1));
    expect(fromKept.customers.map((c: { customer: string }) => c.customer)).toEqual(fromPredictions.customers.map((c: { customer: string }) => c.customer));
    sqlite.prepare(`INSERT INTO forecast_state (company_id, complete_at) VALUES (@company_id, @complete_at)`).run(state);
    // Kept rows emptied: read as kept, nothing is predicted; once the company is a replica's (refreshed elsewhere), they are not read.
    const keptRows = sqlite.prepare(`SELECT customer_id, weeks FROM forecast_inflows WHERE company_id = ?`).all(company) as { customer_id: string; weeks: string }[];
    sqlite.prepare(`UPDATE forecast_inflows SET weeks = '[]' WHERE company_id = ?`).run(company);
    expect((await get('/analytics/cashflow-forecast?weeks=26&request_date=2026-11-25')).body.model_predicted_total).toBe(0);
    sqlite.prepare(`INSERT INTO sync_companies (company_id) VALUES (?)`).run(company);
    expect((await get('/analytics/cashflow-forecast?weeks=26&request_date=2026-11-25')).body.model_predicted_total).toBeCloseTo(fromPredictions.model_predicted_total, 1);
    sqlite.prepare(`DELETE FROM sync_companies WHERE company_id = ?`).run(company);
    for (const r of keptRows) sqlite.prepare(`UPDATE forecast_inflows SET weeks = ? WHERE company_id = ? AND customer_id = ?`).run(r.weeks, company, r.customer_id);

    // Acme pays everything: gone from the forecast before any refresh.
    const open = sqlite.prepare(`SELECT id, balance FROM invoices WHERE customer_id = ? AND closing_reason IS NULL AND balance > 0`).all(acme) as { id: string; balance: number }[];
    for (const inv of open) await l.payment({ invoice: inv.id, amount: inv.balance / 100, payment_date: '2026-11-23' });
    const after = (await get('/analytics/cashflow-forecast?weeks=26&request_date=2026-11-25')).body;
    expect(fromKept.customers.map((c: { customer: string }) => c.customer)).toContain(acme);
    expect(after.customers.map((c: { customer: string }) => c.customer)).not.toContain(acme);
    expect(after.model_predicted_total).toBeLessThan(fromKept.model_predicted_total);
  });

  it("the concentration insight uses open balances, the Analytics figures: a written-off invoice's leftover balance counts 0", async () => {
    const lone = await addCompany(engine, 'Concentrated');
    await addUser(engine, 'cora', [[lone, 'collector']]);
    const cora = await loginAs(app, 'cora');
    const l = ledger(engine, lone);
    // Twelve customers with open invoices (not due yet, issued long ago: no overdue or DSO movement).
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const id = await l.customer({ name: `Customer ${String(i).padStart(2, '0')}` });
      ids.push(id);
      await l.invoice({ customer: id, number: `C-${i}`, total: i < 5 ? 1000 : 300, invoiceDate: '2026-05-01', dueDate: '2026-12-31' });
    }
    // A write-off with 50,000 left on its balance field: closed, so it counts 0.
    await l.invoice({ customer: ids[0], number: 'WO-1', total: 50_000, invoiceDate: '2026-04-01', dueDate: '2026-05-01', closingReason: 'written_off' });
    await refreshIntelligence(engine, lone);
    const signal = JSON.parse(
      (engine.database.sqlite.prepare("SELECT payload_json FROM insights WHERE company_id = ? AND insight_type = 'portfolio_signal' AND valid_to IS NULL").get(lone) as { payload_json: string }).payload_json,
    ).signal;
    const analytics = await call(app, 'GET', `/api/companies/${lone}/ar-aging/details?group_by=customer`, { token: cora });
    const balances: number[] = analytics.body.data.map((r: { total: number }) => r.total);
    const total = balances.reduce((a, b) => a + b, 0);
    const top5 = [...balances].sort((a, b) => b - a).slice(0, 5).reduce((a, b) => a + b, 0);
    expect(total).toBe(7100);
    expect(signal).toMatchObject({ type: 'concentration' });
    expect(signal.description).toContain(`hold ${((top5 / total) * 100).toFixed(1)}% of the open balance`);
    expect(signal.description).toContain('70.4%');
  });

  it('says whether the ledger is fresh: stale when its newest invoice and payment are both more than 60 days old', async () => {
    const fresh = await get('/analytics/ledger-freshness');
    expect(fresh.status).toBe(200);
    expect(fresh.body).toMatchObject({ newest_payment_date: '2026-11-01', stale: false, stale_after_days: 60 });
    const old = await addCompany(engine, 'Old export');
    await addUser(engine, 'olga', [[old, 'collector']]);
    const olga = await loginAs(app, 'olga');
    const l = ledger(engine, old);
    const c = await l.customer({ name: 'Old Co' });
    const inv = await l.invoice({ customer: c, number: 'O-1', total: 100, invoiceDate: '2013-12-02', dueDate: '2014-01-01' });
    await l.payment({ invoice: inv, amount: 40, payment_date: '2013-09-15' });
    const stale = await call(app, 'GET', `/api/companies/${old}/analytics/ledger-freshness`, { token: olga });
    expect(stale.body).toEqual({ newest_invoice_date: '2013-12-02', newest_payment_date: '2013-09-15', last_activity_date: '2013-12-02', stale: true, stale_after_days: 60, as_of_date: null });
    // A payment within 60 days makes it fresh again.
    await l.payment({ invoice: inv, amount: 10, payment_date: '2026-10-01' });
    expect((await call(app, 'GET', `/api/companies/${old}/analytics/ledger-freshness`, { token: olga })).body).toMatchObject({ last_activity_date: '2026-10-01', stale: false });
    expect((await call(app, 'GET', `/api/companies/${old}/analytics/ledger-freshness`, { token })).status).toBe(403);
  });

  it('lets a viewer export the report (a read) but not take a snapshot (a write)', async () => {
    await addUser(engine, 'vera', [[company, 'viewer']]);
    const viewer = await loginAs(app, 'vera');
    const exported = await call(app, 'POST', `/api/companies/${company}/ar-aging/report-export`, { token: viewer, body: { format: 'csv' } });
    expect(exported.status).toBe(200);
    const snapshot = await call(app, 'POST', `/api/companies/${company}/ar-aging/snapshots`, { token: viewer });
    expect(snapshot.status).toBe(403);
    expect(snapshot.body.code).toBe('read_only');
  });

  it('keeps another company out', async () => {
    const res = await call(app, 'GET', `/api/companies/${other}/ar-aging/summary`, { token });
    expect(res.status).toBe(403);
  });
});
