import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../core/dates';
import { createApp } from '../../core/http/app';
import { refreshIntelligence } from '../../core/intelligence/runner';
import { OLD_INVOICE_DAYS, WRITE_OFF_MAX } from '../../core/intelligence/thresholds';
import { seedDemo } from '../../core/seed';
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

/** The engine's open proposals: customer, invoice, trigger key, whether recommended. */
function proposals(engine: TestEngine, companyId: string): Array<{ customer_id: string; invoice_id: string | null; trigger_key: string; top_recommendation: string }> {
  return engine.database.sqlite
    .prepare("SELECT customer_id, invoice_id, trigger_key, top_recommendation FROM actions WHERE company_id = ? AND status = 'proposed' AND trigger_key IS NOT NULL")
    .all(companyId) as Array<{ customer_id: string; invoice_id: string | null; trigger_key: string; top_recommendation: string }>;
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
    // Every open invoice is years old: no call or email about any of them, one review per customer.
    const proposed = proposals(engine, company);
    expect(proposed.filter((p) => p.invoice_id !== null)).toEqual([]);
    const recommended = proposed.filter((p) => p.top_recommendation === 'recommended');
    const withOpen = engine.database.sqlite.prepare('SELECT count(DISTINCT customer_id) AS n FROM invoices WHERE company_id = ? AND closing_reason IS NULL AND balance > 0').get(company) as { n: number };
    expect(withOpen.n).toBeGreaterThan(10);
    expect(recommended.length).toBe(withOpen.n);
    expect(new Set(recommended.map((p) => p.customer_id)).size).toBe(withOpen.n);
    expect(recommended.every((p) => p.trigger_key.startsWith('old_balances:'))).toBe(true);
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
    // As of the cut the invoices are recent: chased one by one again, the reviews withdrawn.
    const proposed = proposals(engine, company);
    expect(proposed.some((p) => p.trigger_key.startsWith('old_balances:'))).toBe(false);
    expect(proposed.filter((p) => p.invoice_id !== null).length).toBeGreaterThan(0);
    // The forecast now has money in its weeks.
    expect((await get('/analytics/cashflow-forecast')).body.model_predicted_total).toBeGreaterThan(0);

    const cleared = await patch({ as_of_date: null });
    expect(cleared.body).toEqual({ as_of_date: null });
    expect((await get('/ar-aging/summary')).body.as_of).toBe(TODAY);
    expect((await get('/analytics/ledger-freshness')).body.as_of_date).toBeNull();
  }, 120_000);
});

describe('on the demo: old balances reviewed per customer, and the risk a collector means', () => {
  let engine: TestEngine;

  beforeAll(async () => {
    engine = await testEngine(`${TODAY}T12:00:00.000Z`);
    await seedDemo(engine);
  }, 240_000);
  afterAll(() => engine.dispose());

  it('invoices issued more than a year ago: no proposal names one; each customer with one has a single recommended review, write-off first when small', () => {
    const sqlite = engine.database.sqlite;
    const yearAgo = addDays(TODAY, -OLD_INVOICE_DAYS);
    const old = sqlite
      // decided: the demo already has an open decision for it (one decision per invoice: the review leaves it to that one).
      .prepare(
        `SELECT id, company_id, customer_id, balance,
           EXISTS (SELECT 1 FROM actions a WHERE a.invoice_id = i.id AND a.trigger_key IS NULL AND a.status IN ('proposed', 'scheduled') AND a.deleted_at IS NULL) AS decided
         FROM invoices i WHERE closing_reason IS NULL AND balance > 0 AND invoice_date < ?`,
      )
      .all(yearAgo) as Array<{ id: string; company_id: string; customer_id: string; balance: number; decided: number }>;
    expect(old.length, 'the demo has open invoices more than a year old').toBeGreaterThan(0);
    const oldIds = new Set(old.map((o) => o.id));
    const companies = [...new Set(old.map((o) => o.company_id))];
    const all = companies.flatMap((c) => proposals(engine, c));
    expect(all.filter((p) => p.invoice_id !== null && oldIds.has(p.invoice_id))).toEqual([]);
    const byCustomer = new Map<string, number>();
    for (const o of old) byCustomer.set(o.customer_id, (byCustomer.get(o.customer_id) ?? 0) + (o.decided ? 0 : o.balance));
    for (const [customerId, total] of byCustomer) {
      const reviews = all.filter((p) => p.customer_id === customerId && p.trigger_key.startsWith('old_balances:'));
      // Every old invoice of the customer already decided: no review repeats those decisions.
      if (!old.some((o) => o.customer_id === customerId && !o.decided)) {
        expect(reviews, customerId).toEqual([]);
        continue;
      }
      expect(reviews.filter((p) => p.top_recommendation === 'recommended'), customerId).toHaveLength(1);
      const first = sqlite.prepare("SELECT metadata FROM actions WHERE customer_id = ? AND status = 'proposed' AND top_recommendation = 'recommended' AND trigger_key LIKE 'old_balances:%'").get(customerId) as {
        metadata: string;
      };
      expect(JSON.parse(first.metadata).recommendation, customerId).toBe(total <= WRITE_OFF_MAX ? 'write_off' : 'statement');
    }
  });

  it("the Customers list's risk says what a collector means: Tri-County, thousands 90+ days late, is high risk and says why", async () => {
    const app = createApp(engine);
    const login = await call(app, 'POST', '/api/v1/auth/login/', { body: { username: 'demo', password: 'demo' } });
    const acme = login.body.companies.find((c: { name: string }) => c.name === 'Acme Industrial Supply').id;
    const list = await call(app, 'GET', `/api/companies/${acme}/customers?search=Tri-County`, { token: login.body.token });
    expect(list.status).toBe(200);
    const tri = list.body.data[0];
    expect(tri.name).toBe('Tri-County Building Supply');
    const days = Math.round((Date.parse(TODAY) - Date.parse(tri.oldest_open_due_date)) / 86_400_000);
    expect(days).toBeGreaterThan(90);
    expect(tri.overdue_balance).toBeGreaterThan(10_000);
    expect(tri.risk).toBe('high');
    expect(tri.risk_reason).toMatch(new RegExp(`^\\$[\\d,]+\\.\\d\\d past due, the oldest ${days} days late`));
    // Every customer with money past due has a level and a reason; none "nothing past due".
    const page = await call(app, 'GET', `/api/companies/${acme}/customers?limit=200`, { token: login.body.token });
    for (const c of page.body.data) {
      if (c.overdue_balance > 0) expect(c.risk, c.name).not.toBeNull();
      else if (c.risk === null) expect(c.risk_reason).toBe('Nothing past due');
    }
  });
});
