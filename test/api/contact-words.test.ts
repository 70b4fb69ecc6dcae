/**
 * Words that match the facts: a held customer's step never reads "ready" (the invoice panel's plan
 * says why it waits, My work lists no "Dunning step ready"), and "Last touch" counts every email
 * that went out, whatever invoices it spoke of (a statement, an email listing several invoices).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createWorker } from '../../core/jobs/worker';
import { coreJobHandlers } from '../../core/runtime/job-handlers';
import { nextStepWords } from '../../renderer/src/desk/glance-words';
import { holdWords, type QueueRow } from '../../renderer/src/queue/words';
import { addSmtpConnection } from '../support/reminders-fixtures';
import { fixture, insertCommunicationRow } from '../support/rows';
import { activeSequence, addCustomer, addInvoice, type SequenceWorld, sequenceWorld } from '../support/sequence-fixtures';
import { type SmtpServer, startSmtp } from '../support/smtp';

const NOW = '2026-11-23T12:00:00.000Z';
const STEP = { label: 'Friendly reminder', offset_time: '00:00', subject_template: 'Your open invoices', body_plain_template: 'Hello {{contact_name}},\n\n{{invoice_list}}' };

describe('words that match the facts', () => {
  let w: SequenceWorld;
  let smtp: SmtpServer;
  beforeAll(async () => {
    w = await sequenceWorld();
    smtp = await startSmtp();
  });
  afterAll(async () => {
    await smtp?.close();
    await w?.dispose();
  });
  beforeEach(() => w.fresh(NOW));

  async function enrolled() {
    const sender = await addSmtpConnection(w.engine, w.company, smtp);
    const customer = await addCustomer(w.engine, w.company, { name: 'Granite State Roofing', email: 'ap@granite.test' });
    const first = await addInvoice(w.engine, w.company, customer, { number: 'INV-10333', total: 360_000, dueDate: '2026-10-01' });
    const second = await addInvoice(w.engine, w.company, customer, { number: 'INV-10334', total: 4_100_000, dueDate: '2026-10-10' });
    const seq = await activeSequence(w, 'Standard follow-up', [STEP], { sender_connection_id: sender });
    expect((await w.api('POST', w.path('/sequence-enrollments'), { sequence_id: seq.id, customer_id: customer, start_date: '2026-11-23' })).status).toBe(201);
    const step = (await w.api('GET', w.path(`/sequences/queue?customer_id=${customer}`))).body.data[0].id as string;
    return { customer, first, second, step };
  }

  const attention = async (invoice: string) => {
    const items = (await w.api('GET', w.path('/invoices?attention=true'))).body.items as Array<{ id: string; attention: Array<{ reason: string; label: string }> }>;
    return items.find((i) => i.id === invoice)?.attention.map((a) => a.label) ?? [];
  };

  it('a disputed customer’s step reads on hold with the reason in the panel, and My work has no "Dunning step ready" for it', async () => {
    const g = await enrolled();
    const plan = async (invoice: string) => (await w.api('GET', w.path(`/invoices/${invoice}`))).body.dunning_plan;
    expect(nextStepWords(await plan(g.first))).toBe('Friendly reminder, ready to go');
    expect(await attention(g.first)).toContain('Dunning step ready: Friendly reminder');

    expect((await w.api('POST', w.path('/disputes'), { invoice_id: g.first, reason: 'Charged twice' })).status).toBe(201);
    const [held] = await plan(g.first);
    expect(held).toMatchObject({ status: 'ready', held_reason: expect.stringMatching(/INV-10333 is disputed/) });
    expect(nextStepWords([held])).toMatch(/^Friendly reminder, on hold \(INV-10333 is disputed/);
    expect(await attention(g.first)).not.toContain('Dunning step ready: Friendly reminder');
  });

  it('a customer a person stopped: the panel, My work and the Queue say on hold in the rule’s words, never ready, until the stop is lifted', async () => {
    const g = await enrolled();
    const plan = async () => (await w.api('GET', w.path(`/invoices/${g.first}`))).body.dunning_plan;
    const queue = async (category: string) => (await w.api('GET', w.path(`/sequences/queue?category=${category}&customer_id=${g.customer}`))).body.data as QueueRow[];
    expect((await w.api('PUT', w.path(`/customers/${g.customer}/contact-stop`), { stop: 'do_not_contact', reason: 'Letters through their lawyer only' })).status).toBe(200);

    const words = 'Do not contact, set by alice on Nov 23: Letters through their lawyer only';
    // The rule's own answer, as a send would get it now: the panel and the Queue say the same.
    expect((await w.api('GET', w.path(`/sequences/queue/${g.step}/preview`))).body.hold_reason).toBe(`Held: ${words}.`);
    const [next] = await plan();
    expect(next).toMatchObject({ status: 'ready', held_reason: `Held: ${words}.` });
    expect(nextStepWords([next])).toBe(`Friendly reminder, on hold (${words})`);
    expect(await attention(g.first)).not.toContain('Dunning step ready: Friendly reminder');
    expect(await queue('ready')).toEqual([]);
    const [paused] = await queue('paused');
    expect(paused).toMatchObject({ id: g.step, hold_reason: 'stopped', pause_reason: words });
    expect(holdWords(paused)).toBe(`On hold: ${words}`);

    expect((await w.api('PUT', w.path(`/customers/${g.customer}/contact-stop`), { stop: null })).status).toBe(200);
    expect(nextStepWords(await plan())).toBe('Friendly reminder, ready to go');
    expect((await queue('ready')).map((r) => r.id)).toEqual([g.step]);
    expect(await attention(g.first)).toContain('Dunning step ready: Friendly reminder');
  });

  it('a promise pauses the chase through the company’s grace days, as the rule holds it: the panel never says ready while a send would be held', async () => {
    const sender = await addSmtpConnection(w.engine, w.company, smtp);
    const customer = await addCustomer(w.engine, w.company, { name: 'Tri-County Supply', email: 'ap@tricounty.test' });
    const invoice = await addInvoice(w.engine, w.company, customer, { number: 'INV-10400', total: 120_000, dueDate: '2026-10-01' });
    const seq = await activeSequence(w, 'Standard follow-up', [STEP], { sender_connection_id: sender });
    // The call was days ago: no quiet days after a touch, only the promise holds.
    const call = await w.api('POST', w.path('/communications'), { customer_id: customer, invoice_id: invoice, kind: 'call', outcome: 'promised_to_pay', promise_date: '2026-11-24', occurred_at: '2026-11-16T15:00:00.000Z' });
    expect(call.status).toBe(201);
    await w.api('POST', w.path('/sequence-enrollments'), { sequence_id: seq.id, customer_id: customer, start_date: '2026-11-23' });
    const stepOf = async () => (await w.api('GET', w.path(`/sequences/queue?category=paused&customer_id=${customer}`))).body.data as Array<{ id: string; pause_kind: string | null; pause_reason: string | null }>;
    const next = async () => nextStepWords((await w.api('GET', w.path(`/invoices/${invoice}`))).body.dunning_plan);
    expect(await stepOf()).toMatchObject([{ pause_kind: 'promise', pause_reason: 'Paused: Tri-County Supply promised payment for INV-10400 by Nov 24' }]);

    // The day after the promise, within the 3 grace days: the rule still holds the send, so the chase stays paused.
    w.engine.clock.set('2026-11-25T12:00:00.000Z');
    const [held] = await stepOf();
    expect(held).toMatchObject({ pause_kind: 'promise' });
    expect((await w.api('GET', w.path(`/sequences/queue/${held.id}/preview`))).body.hold_reason).toBe('Held: Tri-County Supply promised to pay INV-10400 by Nov 24.');
    expect(await next()).toBe('Friendly reminder, on hold (Tri-County Supply promised payment for INV-10400 by Nov 24)');

    // The day after the grace ends the promise is broken: the chase goes on, and the rule lets the send go.
    w.engine.clock.set('2026-11-28T12:00:00.000Z');
    expect(await stepOf()).toEqual([]);
    expect((await w.api('GET', w.path(`/sequences/queue/${held.id}/preview`))).body.hold_reason).toBeNull();
    expect(await next()).toBe('Friendly reminder, ready to go');
  });

  it('a past-due step for a customer whose only invoice is not yet due: the preview says it is held and why, the send sends nothing', async () => {
    const sender = await addSmtpConnection(w.engine, w.company, smtp);
    const customer = await addCustomer(w.engine, w.company, { name: 'Lakeside Veterinary', email: 'ap@lakeside.test' });
    await addInvoice(w.engine, w.company, customer, { number: 'INV-10360', total: 90_000, dueDate: '2026-12-26' });
    const seq = await activeSequence(w, 'Standard past-due follow-up', [{ label: 'Second notice', offset_time: '00:00', subject_template: 'Invoice {{invoice_number}} is past due', body_plain_template: '{{invoice_number}} is {{days_past_due}} days past due.' }], { sender_connection_id: sender });
    await w.api('POST', w.path('/sequence-enrollments'), { sequence_id: seq.id, customer_id: customer, start_date: '2026-11-23' });
    const step = (await w.api('GET', w.path(`/sequences/queue?customer_id=${customer}`))).body.data[0].id as string;
    const preview = (await w.api('GET', w.path(`/sequences/queue/${step}/preview`))).body;
    expect(preview.hold_reason).toBe('Held: INV-10360 is not past due (due Dec 26).');
    const before = smtp.messages.length;
    const sent = await w.api('POST', w.path(`/sequences/queue/${step}/send`));
    expect(sent.status).toBe(409);
    expect(smtp.messages).toHaveLength(before);
  });

  it('the preview of an email about two invoices, one disputed, says which is left out and lists only the other', async () => {
    const g = await enrolled();
    await w.api('PATCH', w.path(`/sequences/${(await w.api('GET', w.path(`/sequences/queue/${g.step}`))).body.sequence}`), { pause_on_dispute: false });
    await w.api('POST', w.path('/disputes'), { invoice_id: g.first, reason: 'Charged twice' });
    const preview = (await w.api('GET', w.path(`/sequences/queue/${g.step}/preview`))).body;
    expect(preview.hold_reason).toBe('Left out: INV-10333 is disputed (Charged twice).');
    expect(preview.body).toContain('INV-10334');
    expect(preview.body).not.toContain('INV-10333');
  });

  it("the bulk reminder dialog's preview holds a customer a person paused, saying who, and the request queues nothing for it", async () => {
    const g = await enrolled();
    const enrollment = (await w.api('GET', w.path(`/sequences/queue/${g.step}`))).body.enrollment;
    expect((await w.api('POST', w.path(`/sequence-enrollments/${enrollment}/pause`))).status).toBe(200);
    const preview = (await w.api('POST', w.path('/invoices/bulk/reminder-preview'), { invoice_ids: [g.first] })).body;
    expect(preview.held_count).toBe(1);
    expect(preview.data[0].warnings).toContainEqual({ kind: 'contact_held', message: 'On hold: Paused by alice on Nov 23. No reminder goes today.' });
    const sent = (await w.api('POST', w.path('/invoices/bulk/send-reminders'), { invoice_ids: [g.first] })).body;
    expect(sent).toMatchObject({ message: '0 reminders queued; 1 invoice is on hold and got none.', held: [{ invoice_id: g.first, reason: 'Held: Paused by alice on Nov 23.' }] });
  });

  it('the statement dialog says before sending who is held and why, and how many will go', async () => {
    const g = await enrolled();
    const other = await addCustomer(w.engine, w.company, { name: 'Lakeside Veterinary', email: 'ap@lakeside.test' });
    await fixture(w.engine, w.company, (tx) => insertCommunicationRow(tx, w.company, { customer_id: g.customer, kind: 'email', direction: 'inbound', subject: 'Re: invoice', body: 'Which invoice is this?', occurred_at: '2026-11-23T09:00:00.000Z' }));
    const preview = await w.api('POST', w.path('/statement-runs/preview'), { customer_ids: [g.customer, other] });
    expect(preview.status).toBe(200);
    expect(preview.body).toEqual({ total: 2, will_send: 1, held: [{ customer_id: g.customer, customer_name: 'Granite State Roofing', reason: 'Held: Granite State Roofing replied on Nov 23 and nobody has answered yet.' }] });
    // Another company's customer is refused, naming nothing of it.
    const foreign = await addCustomer(w.engine, w.other, { name: 'Borealis Buyer' });
    expect((await w.api('POST', w.path('/statement-runs/preview'), { customer_ids: [foreign] })).status).toBe(400);
  });

  it('a statement and an email listing two invoices are the last touch of every invoice they spoke of', async () => {
    const g = await enrolled();
    const sent = await w.api('POST', w.path(`/sequences/queue/${g.step}/send`));
    expect(sent.body.status).toBe('sent');
    for (const invoice of [g.first, g.second]) expect((await w.api('GET', w.path(`/invoices/${invoice}`))).body.last_touch_date).toBe(NOW);

    w.engine.clock.set('2026-11-24T12:00:00.000Z');
    const run = await w.api('POST', w.path('/statement-runs'), { customer_ids: [g.customer] });
    await createWorker(w.engine, { handlers: coreJobHandlers() }).runDueJobs();
    expect((await w.api('GET', w.path(`/statement-runs/${run.body.id}`))).body.items[0].status).toBe('sent');
    for (const invoice of [g.first, g.second]) expect((await w.api('GET', w.path(`/invoices/${invoice}`))).body.last_touch_date).toBe('2026-11-24T12:00:00.000Z');
  });
});
