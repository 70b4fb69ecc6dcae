import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createWorker } from '../../core/jobs/worker';
import { PROMISE_FOLLOWUP, queuePromiseFollowups } from '../../core/promises/job';
import { coreJobHandlers } from '../../core/runtime/job-handlers';
import { activeSequence, addConnection, addCustomer, addInvoice, type SequenceWorld, sequenceWorld } from '../support/sequence-fixtures';
import { type SmtpServer, startSmtp } from '../support/smtp';

/**
 * A promise followed with a moved clock, through the API: recorded on a call, the clock moves past
 * its date plus the grace days (3), the daily job runs on the bulk lane, and the broken one comes
 * back to the collector while the kept one closes quietly.
 */
describe('promises followed', () => {
  let w: SequenceWorld;
  let smtp: SmtpServer;

  beforeAll(async () => {
    w = await sequenceWorld();
    smtp = await startSmtp();
  });
  beforeEach(async () => {
    await w.fresh();
    smtp.messages.length = 0;
  });
  afterEach(() => w.engine.db.deleteFrom('jobs').execute());
  afterAll(async () => {
    await smtp.close();
    await w.dispose();
  });

  const logPromise = (customer: string, invoice: string, date: string, amount?: number) =>
    w.api('POST', w.path('/communications'), { customer_id: customer, invoice_id: invoice, kind: 'call', outcome: 'promised_to_pay', body: 'Will pay', promise_date: date, ...(amount ? { promise_amount: amount } : {}) });
  /** The day's job queued and run by a worker, as the server's scheduler and bulk lane would. */
  async function runDailyJob() {
    await queuePromiseFollowups(w.engine);
    const runs = await createWorker(w.engine, { handlers: coreJobHandlers() }).runDueJobs();
    return runs.filter((r) => r.kind === PROMISE_FOLLOWUP && r.companyId === w.company);
  }
  const promises = async (customer: string) => (await w.api('GET', w.path(`/customers/${customer}/promises`))).body;

  it('a broken promise comes back after its date and grace: an item in the Actions inbox and My work, the chase resumes, the rates update; a kept one closes quietly', async () => {
    const sender = await addConnection(w.engine, w.company, { name: 'Acme AR', port: smtp.port, fromEmail: 'ar@acme.test' });
    const dover = await addCustomer(w.engine, w.company, { name: 'Dover Freight', email: 'ap@dover.test' });
    const late = await addInvoice(w.engine, w.company, dover, { number: 'INV-1', total: 100_000, dueDate: '2026-11-01' });
    const elm = await addCustomer(w.engine, w.company, { name: 'Elm Bakery', email: 'ap@elm.test' });
    const paid = await addInvoice(w.engine, w.company, elm, { number: 'INV-2', total: 40_000, dueDate: '2026-11-05' });
    const seq = await activeSequence(w, 'Dunning', [{ label: 'After the promise', on_promise_missed: true, offset_time: '09:00', subject_template: 'About {{invoice_number}}', body_plain_template: 'You promised to pay {{invoice_number}}.' }], { sender_connection_id: sender });
    const enrolled = await w.api('POST', w.path('/sequence-enrollments'), { sequence_id: seq.id, customer_id: dover });

    expect((await logPromise(dover, late, '2026-11-26', 1000)).status).toBe(201);
    expect((await logPromise(elm, paid, '2026-11-25')).status).toBe(201);
    expect((await w.api('GET', w.path(`/sequence-enrollments/${enrolled.body.enrollment.id}`))).body.pause_kind).toBe('promise');
    // The promised cash is its own line of the forecast while the promises stand.
    const forecast = (await w.api('GET', w.path('/analytics/cashflow-forecast?start_date=2026-11-23&weeks=4'))).body;
    expect(forecast.time_series.promised_cash_inflows).toEqual([1400, 0, 0, 0]);

    // Within the grace days nothing is judged: Nov 26 + 3 is Nov 29.
    w.engine.clock.set('2026-11-29T15:00:00.000Z');
    expect((await w.api('POST', w.path('/payments'), { invoice: paid, amount: 400, payment_date: '2026-11-27' })).status).toBe(201);
    expect(await runDailyJob()).toHaveLength(1);
    expect((await promises(dover)).promises).toEqual([]);
    // Elm's promise (Nov 25 + 3 = Nov 28) is past: paid within grace, it closed quietly.
    expect(await promises(elm)).toMatchObject({ kept_count: 1, broken_count: 0, kept_rate: 100, promises: [{ outcome: 'kept', paid_amount: 400, action: null }] });

    w.engine.clock.set('2026-11-30T08:00:00.000Z');
    const [run] = await runDailyJob();
    expect([run.status, run.error]).toEqual(['succeeded', null]);
    const judged = await promises(dover);
    expect(judged).toMatchObject({ grace_days: 3, kept_count: 0, broken_count: 1, kept_rate: 0, promises: [{ invoice_number: 'INV-1', promised_date: '2026-11-26', promised_amount: 1000, outcome: 'broken', paid_amount: 0 }] });
    const itemId = judged.promises[0].action as string;

    // The item in the Actions inbox: a call to make, about the broken promise.
    const inbox = (await w.api('GET', w.path(`/actions?category=needs_action&customer_id=${dover}`))).body.data as Array<{ id: string; action_type: string; trigger_event_label: string; description: string }>;
    expect(inbox.find((a) => a.id === itemId)).toMatchObject({
      action_type: 'call',
      trigger_event_label: 'Promise broken',
      description: 'Dover Freight promised to pay INV-1 ($1,000.00) by Nov 26; nothing came by the end of the grace days (Nov 29). Call to ask why and for a new date.',
    });
    // And in My work, first among the pressing.
    const work = (await w.api('GET', w.path('/invoices?attention=true'))).body.items as Array<{ invoice_number: string; attention: Array<{ reason: string }> }>;
    expect(work[0].invoice_number).toBe('INV-1');
    expect(work[0].attention.map((a) => a.reason)).toContain('promise_broken');

    // The chase resumed in the job's transaction: the sequence's "promise missed" step goes out through the contact rule.
    expect((await w.api('GET', w.path(`/sequence-enrollments/${enrolled.body.enrollment.id}`))).body.pause_kind).toBeNull();
    const [step] = (await w.api('GET', w.path('/sequences/queue'))).body.data as Array<{ id: string; step_label: string }>;
    expect(step.step_label).toBe('After the promise');
    expect((await w.api('POST', w.path(`/sequences/queue/${step.id}/send`), {})).body.status).toBe('sent');
    expect((await smtp.waitFor(1))[0].subject).toBe('About INV-1');

    // The company's rate: one kept of two judged in November.
    const metrics = (await w.api('GET', w.path('/analytics/metrics?as_of=2026-11-30&months=1'))).body;
    expect(metrics.current.promise_kept_rate).toBe(50);
    expect((await w.api('GET', w.path('/analytics/cashflow-forecast?start_date=2026-11-30&weeks=4'))).body.time_series.promised_cash_inflows).toEqual([0, 0, 0, 0]);

    // Idempotent: the day's job again, or tomorrow's, judges nothing twice and makes no second item.
    await runDailyJob();
    w.engine.clock.set('2026-12-01T08:00:00.000Z');
    await runDailyJob();
    const rows = await w.engine.db.selectFrom('promise_followups').select(['outcome']).where('company_id', '=', w.company).execute();
    expect(rows.map((r) => r.outcome).sort()).toEqual(['broken', 'kept']);
    const items = await w.engine.db.selectFrom('actions').select('id').where('company_id', '=', w.company).where('trigger_event_label', '=', 'Promise broken').execute();
    expect(items).toHaveLength(1);
  });

  it('a part payment below the amount promised breaks it; a newer promise replaces the old one (void, in no rate)', async () => {
    const dover = await addCustomer(w.engine, w.company, { name: 'Dover Freight' });
    const inv = await addInvoice(w.engine, w.company, dover, { number: 'INV-9', total: 100_000, dueDate: '2026-11-01' });
    await logPromise(dover, inv, '2026-11-24', 600);
    w.engine.clock.set('2026-11-24T12:00:00.000Z');
    await w.api('POST', w.path('/payments'), { invoice: inv, amount: 250, payment_date: '2026-11-24' });
    await logPromise(dover, inv, '2026-12-10', 750);
    w.engine.clock.set('2026-11-28T12:00:00.000Z');
    await runDailyJob();
    expect(await promises(dover)).toMatchObject({ kept_rate: null, promises: [{ outcome: 'void', promised_date: '2026-11-24' }] });

    // The company's grace days (the contact rule's setting): one day, so Nov 28's promise is judged on Nov 30.
    expect((await w.api('PATCH', w.path('/contact-settings'), { promise_grace_days: 1 })).status).toBe(200);
    const elm = await addCustomer(w.engine, w.company, { name: 'Elm Bakery' });
    const other = await addInvoice(w.engine, w.company, elm, { number: 'INV-10', total: 100_000, dueDate: '2026-11-01' });
    await logPromise(elm, other, '2026-11-28', 600);
    await w.api('POST', w.path('/payments'), { invoice: other, amount: 250, payment_date: '2026-11-28' });
    w.engine.clock.set('2026-11-29T12:00:00.000Z');
    await runDailyJob();
    expect((await promises(elm)).promises).toEqual([]);
    w.engine.clock.set('2026-11-30T12:00:00.000Z');
    await runDailyJob();
    expect(await promises(elm)).toMatchObject({ grace_days: 1, kept_rate: 0, promises: [{ outcome: 'broken', paid_amount: 250 }] });
    expect((await w.api('GET', w.path('/customers/00000000-0000-7000-8000-000000000000/promises'))).status).toBe(404);
    expect((await w.api('GET', w.path(`/customers/${elm}/promises`, w.other), undefined, w.tokens.carol)).status).toBe(404);
  });
});
