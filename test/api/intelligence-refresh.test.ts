import { beforeEach, describe, expect, it } from 'vitest';
import { assessValueAtRisk } from '../../core/actions/value-at-risk';
import { addDays } from '../../core/dates';
import { INTELLIGENCE_REFRESH, queueDailyRefreshes, watchChanges } from '../../core/intelligence/jobs';
import { coreJobHandlers } from '../../core/runtime/job-handlers';
import { createWorker } from '../../core/jobs/worker';
import { call, useApiWorkspace } from '../support/api';
import { ledger } from '../support/ledger-fixtures';
import { addSmtpConnection } from '../support/reminders-fixtures';
import { fixture, insertBillingContactRow } from '../support/rows';

describe('intelligence refresh API', () => {
  const w = useApiWorkspace();
  let customer: string;
  let open: string;

  beforeEach(async () => {
    const l = ledger(w.engine, w.company);
    customer = await l.customer({ name: 'Harbor Foods' });
    // Reachable by phone and email, with a connection to send from: both a call and an email can be proposed.
    await fixture(w.engine, w.company, (tx) => insertBillingContactRow(tx, w.company, customer, { name: 'Pat Payables', email: 'ap@harbor.test' }));
    await w.engine.db.updateTable('customer_contacts').set({ phone: '+1 555 0100' }).where('customer_id', '=', customer).execute();
    await addSmtpConnection(w.engine, w.company, { host: '127.0.0.1', port: 25 });
    for (let i = 0; i < 4; i++) {
      const due = addDays('2026-05-01', i * 30);
      const inv = await l.invoice({ customer, number: `P-${i}`, total: 100, dueDate: due });
      await l.payment({ invoice: inv, amount: 100, payment_date: addDays(due, 3) });
    }
    open = await l.invoice({ customer, number: 'OPEN-1', total: 250, dueDate: '2026-11-10' });
  });

  const runJobs = () => createWorker(w.engine, { handlers: coreJobHandlers() }).runDueJobs();

  it('POST answers 202 with a job id; the job runs in the background and its progress reads back', async () => {
    const res = await call(w.app, 'POST', `${w.base}/intelligence/refresh`, { token: w.tokens.demo });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ job_id: expect.any(String), status: 'queued', created: true });
    expect(res.headers.get('location')).toBe(res.body.progress_url);
    const again = await call(w.app, 'POST', `${w.base}/intelligence/refresh`, { token: w.tokens.demo });
    expect(again.body).toMatchObject({ job_id: res.body.job_id, created: false });
    const queued = await call(w.app, 'GET', res.body.progress_url, { token: w.tokens.demo });
    expect(queued.status).toBe(200);
    expect(queued.body).toMatchObject({ id: res.body.job_id, status: 'queued', reason: 'on_demand', progress: null, report: null });
    const runs = await runJobs();
    expect(runs.filter((r) => r.kind === INTELLIGENCE_REFRESH).map((r) => r.status)).toEqual(['succeeded']);
    const done = await call(w.app, 'GET', res.body.progress_url, { token: w.tokens.demo });
    expect(done.body).toMatchObject({ status: 'succeeded', progress: { done: 1, total: 1 }, report: { customers: 1, insights_unchanged: 0 } });
    expect(done.body.report.insights_opened).toBeGreaterThanOrEqual(5);
    const insights = await call(w.app, 'GET', `/api/intelligence/insights?company_id=${w.company}&invoice_id=${open}&insight_type=pay_date`, { token: w.tokens.demo });
    expect(insights.body.count).toBe(1);
    expect(insights.body.results[0].evidence).toEqual(expect.arrayContaining([expect.objectContaining({ fact: 'Due date', value: '2026-11-10', ref: { type: 'invoice', id: open } })]));
    const actions = await call(w.app, 'GET', `${w.base}/actions?category=alternatives&invoice_id=${open}`, { token: w.tokens.demo });
    expect(actions.body.data.map((a: { action_type: string }) => a.action_type).sort()).toEqual(['call', 'email']);
    for (const a of actions.body.data) expect(a.evidence.length).toBeGreaterThan(0);
  });

  it('another company’s job is a 404; a viewer cannot start one; an outsider gets 403', async () => {
    const res = await call(w.app, 'POST', `${w.base}/intelligence/refresh`, { token: w.tokens.demo });
    const foreign = await call(w.app, 'GET', `/api/companies/${w.other}/intelligence/refresh/${res.body.job_id}`, { token: w.tokens.rival });
    expect(foreign.status).toBe(404);
    expect((await call(w.app, 'GET', `${w.base}/intelligence/refresh/not-a-uuid`, { token: w.tokens.demo })).status).toBe(404);
    expect((await call(w.app, 'POST', `${w.base}/intelligence/refresh`, { token: w.tokens.watcher })).status).toBe(403);
    expect((await call(w.app, 'POST', `${w.base}/intelligence/refresh`, { token: w.tokens.rival })).status).toBe(403);
  });

  it('a payment recorded through the API queues a debounced refresh of only its customer', async () => {
    await queueDailyRefreshes(w.engine);
    await runJobs();
    await watchChanges(w.engine);
    const l = ledger(w.engine, w.company);
    const bystander = await l.customer({ name: 'Quiet Co' });
    await l.invoice({ customer: bystander, number: 'Q-1', total: 50, dueDate: '2026-12-20' });
    expect(await watchChanges(w.engine)).toEqual([w.company]);
    w.engine.clock.set('2026-11-23T12:00:05.000Z');
    await runJobs();
    const pay = await call(w.app, 'POST', `${w.base}/payments`, { token: w.tokens.demo, body: { invoice: open, amount: 250, payment_date: '2026-11-23' } });
    expect(pay.status).toBe(201);
    expect(await watchChanges(w.engine)).toEqual([w.company]);
    const pending = () =>
      w.engine.database.sqlite.prepare(`SELECT payload, run_after FROM jobs WHERE company_id = ? AND kind = ? AND status = 'queued'`).all(w.company, INTELLIGENCE_REFRESH) as { payload: string; run_after: string }[];
    expect(pending()).toHaveLength(1);
    expect(JSON.parse(pending()[0].payload)).toEqual({ scope: 'customers', customer_ids: [customer], reason: 'changes' });
    expect(pending()[0].run_after).toBe('2026-11-23T12:00:07.000Z');
    // Not due before the debounce ends.
    expect(await runJobs()).toEqual([]);
    w.engine.clock.set('2026-11-23T12:00:10.000Z');
    expect((await runJobs()).map((r) => r.status)).toEqual(['succeeded']);
    const prediction = w.engine.database.sqlite.prepare(`SELECT count(*) AS n FROM insights WHERE invoice_id = ? AND insight_type = 'invoice_pay_date_prediction' AND valid_to IS NULL`).get(open) as { n: number };
    expect(prediction.n).toBe(0);
    // Nothing changed since: the watcher queues nothing more.
    expect(await watchChanges(w.engine)).toEqual([]);
    w.engine.clock.set('2026-11-23T12:00:00.000Z');
  });

  it("each refresh of a customer assesses its proposals' value at risk: after a part payment it is the smaller balance's", async () => {
    const proposed = () =>
      w.engine.database.sqlite.prepare(`SELECT id, value_at_risk FROM actions WHERE customer_id = ? AND status = 'proposed' ORDER BY id`).all(customer) as { id: string; value_at_risk: number | null }[];
    /** What assessing them afresh gives, put back as it was. */
    const assessedNow = async () => {
      const stored = proposed();
      await assessValueAtRisk(w.engine.db, w.company, '2026-11-23', { customerIds: [customer] });
      const fresh = proposed();
      for (const row of stored) w.engine.database.sqlite.prepare('UPDATE actions SET value_at_risk = ? WHERE id = ?').run(row.value_at_risk, row.id);
      return fresh;
    };
    const late = await ledger(w.engine, w.company).invoice({ customer, number: 'LATE-1', total: 400, dueDate: '2026-09-01' });
    await queueDailyRefreshes(w.engine);
    await runJobs();
    await watchChanges(w.engine);
    const before = proposed();
    expect(before.length).toBeGreaterThan(0);
    expect(before.every((a) => a.value_at_risk !== null && a.value_at_risk > 0)).toBe(true);
    expect(before).toEqual(await assessedNow());

    const pay = await call(w.app, 'POST', `${w.base}/payments`, { token: w.tokens.demo, body: { invoice: late, amount: 300, payment_date: '2026-11-23' } });
    expect(pay.status).toBe(201);
    expect(await watchChanges(w.engine)).toEqual([w.company]);
    w.engine.clock.set('2026-11-23T12:00:10.000Z');
    expect((await runJobs()).map((r) => r.status)).toEqual(['succeeded']);
    const after = proposed();
    expect(after.length).toBeGreaterThan(0);
    expect(after).toEqual(await assessedNow());
    expect(Math.max(...after.map((a) => a.value_at_risk!))).toBeLessThan(Math.max(...before.map((a) => a.value_at_risk!)));
    w.engine.clock.set('2026-11-23T12:00:00.000Z');
  });

  it('assessing again writes only the values that changed: none on the same day, every proposal a month later', async () => {
    await ledger(w.engine, w.company).invoice({ customer, number: 'LATE-1', total: 400, dueDate: '2026-09-01' });
    await queueDailyRefreshes(w.engine);
    await runJobs();
    const sqlite = w.engine.database.sqlite;
    const proposals = (sqlite.prepare(`SELECT count(*) AS n FROM actions WHERE customer_id = ? AND status = 'proposed' AND value_at_risk > 0`).get(customer) as { n: number }).n;
    expect(proposals).toBeGreaterThan(0);
    sqlite.exec(`CREATE TEMP TABLE assessed_writes (id TEXT);
      CREATE TEMP TRIGGER count_assessed_writes AFTER UPDATE OF value_at_risk ON actions BEGIN INSERT INTO assessed_writes VALUES (NEW.id); END`);
    const writes = async (day: string) => {
      sqlite.exec('DELETE FROM assessed_writes');
      await assessValueAtRisk(w.engine.db, w.company, day, { customerIds: [customer] });
      return (sqlite.prepare('SELECT count(*) AS n FROM assessed_writes').get() as { n: number }).n;
    };
    try {
      expect(await writes('2026-11-23')).toBe(0);
      // A month on, every overdue balance weighs more.
      expect(await writes('2026-12-23')).toBe(proposals);
      expect(await writes('2026-12-23')).toBe(0);
    } finally {
      sqlite.exec('DROP TRIGGER count_assessed_writes; DROP TABLE assessed_writes');
    }
  });

  it('a migration that forgets the last full refresh (0280) gets one the same day, after that day’s refresh ran; a plain restart does not', async () => {
    await queueDailyRefreshes(w.engine);
    await runJobs();
    expect(await queueDailyRefreshes(w.engine)).toEqual([]);
    const sqlite = w.engine.database.sqlite;
    // What 0280 left behind on an upgraded ledger: proposals without a value, the last full refresh forgotten.
    sqlite.prepare(`UPDATE actions SET value_at_risk = NULL WHERE company_id = ?`).run(w.company);
    sqlite.prepare(`UPDATE intelligence_state SET last_full_refresh_date = NULL WHERE company_id = ?`).run(w.company);
    expect(await queueDailyRefreshes(w.engine)).toEqual([w.company]);
    expect((await runJobs()).filter((r) => r.kind === INTELLIGENCE_REFRESH).map((r) => r.status)).toEqual(['succeeded']);
    const unvalued = sqlite.prepare(`SELECT count(*) AS n FROM actions WHERE company_id = ? AND status = 'proposed' AND value_at_risk IS NULL`).get(w.company) as { n: number };
    const proposed = sqlite.prepare(`SELECT count(*) AS n FROM actions WHERE company_id = ? AND status = 'proposed'`).get(w.company) as { n: number };
    expect(proposed.n).toBeGreaterThan(0);
    expect(unvalued.n).toBe(0);
    expect(await queueDailyRefreshes(w.engine)).toEqual([]);
  });
});
