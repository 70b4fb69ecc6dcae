import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../core/http/app';
import { refreshIntelligence } from '../../core/intelligence/runner';
import { addCompany, addUser, type App, call, loginAs } from '../support/api';
import { type TestEngine, testEngine } from '../support/engine';
import { ibmCutCsv } from '../support/import-fixtures';

const CUT = '2013-09-30';
const TODAY = '2026-11-26';

async function importCut(app: App, companyId: string, token: string) {
  const form = new FormData();
  form.append('file', new Blob([ibmCutCsv(CUT)]), 'cut.csv');
  form.append('preset', 'ibm-ar');
  return app.request(`/api/companies/${companyId}/imports`, { method: 'POST', body: form, headers: { authorization: `Token ${token}` } });
}

/** The active pay-date predictions of the company's open invoices. */
function predictions(engine: TestEngine, companyId: string): Array<{ predicted_date: string | null; reason?: string }> {
  return (
    engine.database.sqlite
      .prepare("SELECT payload_json FROM insights WHERE company_id = ? AND insight_type = 'invoice_pay_date_prediction' AND valid_to IS NULL")
      .all(companyId) as { payload_json: string }[]
  ).map((r) => JSON.parse(r.payload_json));
}

describe('the company setting "as of": a stale ledger (the IBM file cut at 2013-09-30) read as of its last activity', () => {
  let engine: TestEngine;
  let app: App;
  let company: string;
  let token: string;
  let viewer: string;
  const get = (path: string, as = token) => call(app, 'GET', `/api/companies/${company}${path}`, { token: as });
  const patch = (body: unknown, as = token) => call(app, 'PATCH', `/api/companies/${company}/settings`, { token: as, body });

  beforeAll(async () => {
    engine = await testEngine(`${TODAY}T12:00:00.000Z`);
    app = createApp(engine);
    company = await addCompany(engine, 'IBM cut');
    await addUser(engine, 'cutter', [[company, 'collector']]);
    await addUser(engine, 'watcher', [[company, 'viewer']]);
    token = await loginAs(app, 'cutter');
    viewer = await loginAs(app, 'watcher');
    expect((await importCut(app, company, token)).status).toBe(200);
  }, 120_000);
  afterAll(() => engine.dispose());

  it('is unset at first: the ledger is stale, and aging, DSO and predictions count from today', async () => {
    expect((await get('/settings')).body).toEqual({ as_of_date: null });
    const fresh = (await get('/analytics/ledger-freshness')).body;
    expect(fresh).toMatchObject({ stale: true, as_of_date: null, last_activity_date: CUT });
    const aging = (await get('/ar-aging/summary')).body;
    expect(aging.as_of).toBe(TODAY);
    expect(aging.overdue_balance).toBe(aging.total_balance);
    const metrics = (await get('/analytics/metrics')).body;
    expect(metrics.as_of).toBe(TODAY);
    expect(metrics.current.average_days_delinquent).toBeGreaterThan(1000);
    await refreshIntelligence(engine, company);
    const open = predictions(engine, company);
    expect(open.length).toBeGreaterThan(50);
    // Years past due from today: no date, with the reason.
    expect(open.every((p) => p.predicted_date === null && /no reliable date$/.test(p.reason ?? ''))).toBe(true);
  }, 120_000);

  it('refuses a viewer, a future or impossible date, a missing or unknown field: 4xx problem+json, nothing changed', async () => {
    const refused = [
      await patch({ as_of_date: CUT }, viewer),
      await patch({ as_of_date: '2026-11-27' }),
      await patch({ as_of_date: '2013-02-30' }),
      await patch({ as_of_date: '30/09/2013' }),
      await patch({}),
      await patch({ as_of_date: CUT, stale: true }),
      await patch('not json'),
    ];
    expect(refused.map((r) => r.status)).toEqual([403, 400, 400, 400, 400, 400, 400]);
    for (const r of refused) expect(r.headers.get('content-type')).toMatch(/problem\+json/);
    expect(refused[1].body.errors?.as_of_date?.[0]).toMatch(/today or earlier/);
    expect((await get('/settings')).body).toEqual({ as_of_date: null });
  });

  it('set to the last activity: aging, DSO, the forecast and a refresh of the predictions count from 2013-09-30, until cleared', async () => {
    const set = await patch({ as_of_date: CUT });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ as_of_date: CUT });
    expect((await get('/settings', viewer)).body).toEqual({ as_of_date: CUT });
    expect((await get('/analytics/ledger-freshness')).body).toMatchObject({ stale: true, as_of_date: CUT });
    // The intelligence is made again from that date.
    const job = engine.database.sqlite.prepare("SELECT status FROM jobs WHERE company_id = ? AND kind = 'intelligence_refresh' AND subject_id = 'full'").get(company) as
      | { status: string }
      | undefined;
    expect(job?.status).toBe('queued');

    const aging = (await get('/ar-aging/summary')).body;
    expect(aging.as_of).toBe(CUT);
    // As of the cut most open invoices were not yet due, none years late.
    expect(aging.overdue_balance).toBeLessThan(aging.total_balance);
    expect(aging.buckets.find((b: { key: string }) => b.key === '91_over')?.invoice_count ?? 0).toBe(0);
    const metrics = (await get('/analytics/metrics')).body;
    expect(metrics.as_of).toBe(CUT);
    expect(metrics.current.dso).toBeGreaterThan(0);
    expect(metrics.current.dso).toBeLessThan(120);
    expect(metrics.current.average_days_delinquent).toBeLessThan(30);
    // An explicit date still wins over the setting.
    expect((await get(`/ar-aging/summary?as_of=${TODAY}`)).body.as_of).toBe(TODAY);
    const forecast = (await get('/analytics/cashflow-forecast')).body;
    expect(forecast.calendar.weeks[0].start_date).toBe(CUT);

    await refreshIntelligence(engine, company);
    const open = predictions(engine, company);
    const dated = open.filter((p) => p.predicted_date !== null);
    // Dated as the ledger stood: on or after the cut, within months of it, never in 2026.
    expect(dated.length).toBeGreaterThan(open.length * 0.8);
    for (const p of dated) {
      expect(p.predicted_date! >= CUT).toBe(true);
      expect(p.predicted_date! < '2014-06-01').toBe(true);
    }
    // The forecast now has money in its weeks.
    expect((await get('/analytics/cashflow-forecast')).body.model_predicted_total).toBeGreaterThan(0);

    const cleared = await patch({ as_of_date: null });
    expect(cleared.body).toEqual({ as_of_date: null });
    expect((await get('/ar-aging/summary')).body.as_of).toBe(TODAY);
    expect((await get('/analytics/ledger-freshness')).body.as_of_date).toBeNull();
  }, 120_000);
});
