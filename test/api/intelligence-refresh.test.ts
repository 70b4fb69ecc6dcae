import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { addDays } from '../../core/dates';
import { INTELLIGENCE_REFRESH, queueDailyRefreshes, watchChanges } from '../../core/intelligence/jobs';
import { coreJobHandlers } from '../../core/runtime/job-handlers';
import { createWorker } from '../../core/jobs/worker';
import { type ApiUsers, apiUsers, call, twoCompanies } from '../support/api';
import { ledger } from '../support/ledger-fixtures';
import { addSmtpConnection } from '../support/reminders-fixtures';
import { fixture, insertBillingContactRow } from '../support/rows';

describe('intelligence refresh API', () => {
  let u: ApiUsers;
  let company: string;
  let other: string;
  let base: string;
  let customer: string;
  let open: string;

  beforeAll(async () => {
    u = await apiUsers();
  });
  afterAll(() => u.engine.dispose());
  beforeEach(async () => {
    ({ company, other, base } = await twoCompanies(u.engine));
    const l = ledger(u.engine, company);
    customer = await l.customer({ name: 'Harbor Foods' });
    // Reachable by phone and email, with a connection to send from: both a call and an email can be proposed.
    await fixture(u.engine, company, (tx) => insertBillingContactRow(tx, company, customer, { name: 'Pat Payables', email: 'ap@harbor.test' }));
    await u.engine.db.updateTable('customer_contacts').set({ phone: '+1 555 0100' }).where('customer_id', '=', customer).execute();
    await addSmtpConnection(u.engine, company, { host: '127.0.0.1', port: 25 });
    for (let i = 0; i < 4; i++) {
      const due = addDays('2026-05-01', i * 30);
      const inv = await l.invoice({ customer, number: `P-${i}`, total: 100, dueDate: due });
      await l.payment({ invoice: inv, amount: 100, payment_date: addDays(due, 3) });
    }
    open = await l.invoice({ customer, number: 'OPEN-1', total: 250, dueDate: '2026-11-10' });
  });

  const runJobs = () => createWorker(u.engine, { handlers: coreJobHandlers() }).runDueJobs();

  it('POST answers 202 with a job id; the job runs in the background and its progress reads back', async () => {
    const res = await call(u.app, 'POST', `${base}/intelligence/refresh`, { token: u.tokens.demo });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ job_id: expect.any(String), status: 'queued', created: true });
    expect(res.headers.get('location')).toBe(res.body.progress_url);
    const again = await call(u.app, 'POST', `${base}/intelligence/refresh`, { token: u.tokens.demo });
    expect(again.body).toMatchObject({ job_id: res.body.job_id, created: false });
    const queued = await call(u.app, 'GET', res.body.progress_url, { token: u.tokens.demo });
    expect(queued.status).toBe(200);
    expect(queued.body).toMatchObject({ id: res.body.job_id, status: 'queued', reason: 'on_demand', progress: null, report: null });
    const runs = await runJobs();
    expect(runs.filter((r) => r.kind === INTELLIGENCE_REFRESH).map((r) => r.status)).toEqual(['succeeded']);
    const done = await call(u.app, 'GET', res.body.progress_url, { token: u.tokens.demo });
    expect(done.body).toMatchObject({ status: 'succeeded', progress: { done: 1, total: 1 }, report: { customers: 1, insights_unchanged: 0 } });
    expect(done.body.report.insights_opened).toBeGreaterThanOrEqual(5);
    const insights = await call(u.app, 'GET', `/api/intelligence/insights?company_id=${company}&invoice_id=${open}&insight_type=pay_date`, { token: u.tokens.demo });
    expect(insights.body.count).toBe(1);
    expect(insights.body.results[0].evidence).toEqual(expect.arrayContaining([expect.objectContaining({ fact: 'Due date', value: '2026-11-10', ref: { type: 'invoice', id: open } })]));
    const actions = await call(u.app, 'GET', `${base}/actions?category=alternatives&invoice_id=${open}`, { token: u.tokens.demo });
    expect(actions.body.data.map((a: { action_type: string }) => a.action_type).sort()).toEqual(['call', 'email']);
    for (const a of actions.body.data) expect(a.evidence.length).toBeGreaterThan(0);
  });

  it('another company’s job is a 404; a viewer cannot start one; an outsider gets 403', async () => {
    const res = await call(u.app, 'POST', `${base}/intelligence/refresh`, { token: u.tokens.demo });
    const foreign = await call(u.app, 'GET', `/api/companies/${other}/intelligence/refresh/${res.body.job_id}`, { token: u.tokens.rival });
    expect(foreign.status).toBe(404);
    expect((await call(u.app, 'GET', `${base}/intelligence/refresh/not-a-uuid`, { token: u.tokens.demo })).status).toBe(404);
    expect((await call(u.app, 'POST', `${base}/intelligence/refresh`, { token: u.tokens.watcher })).status).toBe(403);
    expect((await call(u.app, 'POST', `${base}/intelligence/refresh`, { token: u.tokens.rival })).status).toBe(403);
  });

  it('a payment recorded through the API queues a debounced refresh of only its customer', async () => {
    await queueDailyRefreshes(u.engine);
    await runJobs();
    await watchChanges(u.engine);
    const l = ledger(u.engine, company);
    const bystander = await l.customer({ name: 'Quiet Co' });
    await l.invoice({ customer: bystander, number: 'Q-1', total: 50, dueDate: '2026-12-20' });
    expect(await watchChanges(u.engine)).toEqual([company]);
    u.engine.clock.set('2026-11-23T12:00:05.000Z');
    await runJobs();
    const pay = await call(u.app, 'POST', `${base}/payments`, { token: u.tokens.demo, body: { invoice: open, amount: 250, payment_date: '2026-11-23' } });
    expect(pay.status).toBe(201);
    expect(await watchChanges(u.engine)).toEqual([company]);
    const pending = () =>
      u.engine.database.sqlite.prepare(`SELECT payload, run_after FROM jobs WHERE company_id = ? AND kind = ? AND status = 'queued'`).all(company, INTELLIGENCE_REFRESH) as { payload: string; run_after: string }[];
    expect(pending()).toHaveLength(1);
    expect(JSON.parse(pending()[0].payload)).toEqual({ scope: 'customers', customer_ids: [customer], reason: 'changes' });
    expect(pending()[0].run_after).toBe('2026-11-23T12:00:07.000Z');
    // Not due before the debounce ends.
    expect(await runJobs()).toEqual([]);
    u.engine.clock.set('2026-11-23T12:00:10.000Z');
    expect((await runJobs()).map((r) => r.status)).toEqual(['succeeded']);
    const prediction = u.engine.database.sqlite.prepare(`SELECT count(*) AS n FROM insights WHERE invoice_id = ? AND insight_type = 'invoice_pay_date_prediction' AND valid_to IS NULL`).get(open) as { n: number };
    expect(prediction.n).toBe(0);
    // Nothing changed since: the watcher queues nothing more.
    expect(await watchChanges(u.engine)).toEqual([]);
    u.engine.clock.set('2026-11-23T12:00:00.000Z');
  });
});
