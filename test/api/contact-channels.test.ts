/**
 * The one contact rule, asked by every channel that writes to a customer, over a real SMTP server:
 * a held customer or invoice gets no message and the reason is shown where the collector looks (the
 * send's 409, the reminders' held list, the action's delivery, the statement item); not held, exactly
 * one message. The table below is the whole matrix (channel x hold).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createWorker } from '../../core/jobs/worker';
import { coreJobHandlers } from '../../core/runtime/job-handlers';
import { addAction } from '../support/actions-fixtures';
import { addSmtpConnection } from '../support/reminders-fixtures';
import { fixture, insertCommunicationRow } from '../support/rows';
import { activeSequence, addCustomer, addInvoice, type SequenceWorld, sequenceWorld } from '../support/sequence-fixtures';
import { type SmtpServer, startSmtp } from '../support/smtp';

const CHANNELS = ['sequence', 'reminder', 'action', 'statement'] as const;
type Channel = (typeof CHANNELS)[number];
type Hold = 'none' | 'dispute' | 'reply_dispute' | 'promise' | 'promise_grace' | 'reply' | 'paused' | 'customer_paused' | 'do_not_contact' | 'daily_cap' | 'not_due';

/**
 * held: the words the reason must carry; null: exactly one message goes. A statement is about the
 * whole account: a dispute or promise on one invoice does not hold it. A reminder and an action's
 * draft below speak of the due date as it is ("is due on December 26"), only the sequence step
 * and the action's draft say "past due".
 */
const TABLE: Record<Hold, Record<Channel, RegExp | null>> = {
  none: { sequence: null, reminder: null, action: null, statement: null },
  dispute: { sequence: /disputed/, reminder: /disputed/, action: /disputed/, statement: null },
  // A reply the reader read as disputing INV-1: that invoice needs an answer first (the reply itself holds the customer too).
  reply_dispute: { sequence: /may dispute INV-1 \(their reply of Nov 23\)/, reminder: /may dispute INV-1/, action: /may dispute INV-1/, statement: /replied on Nov 23/ },
  promise: { sequence: /promised/, reminder: /promised/, action: /promised/, statement: null },
  // Promised for Nov 21, two days ago: still held within the company's grace days (3 by default); the sequence's pause says it in its words.
  promise_grace: { sequence: /promised payment for INV-1 by Nov 21/, reminder: /promised to pay INV-1 by Nov 21/, action: /promised to pay INV-1 by Nov 21/, statement: null },
  reply: { sequence: /replied on Nov 23/, reminder: /replied on Nov 23/, action: /replied on Nov 23/, statement: /replied on Nov 23/ },
  paused: { sequence: /Paused by/, reminder: /Paused by/, action: /Paused by/, statement: /Paused by/ },
  // A person's pause of the customer (not of one enrollment), and "do not contact": who and why.
  customer_paused: { sequence: /Paused by alice on Nov 23: Their owner calls us back Monday/, reminder: /Paused by alice on Nov 23: Their owner calls us back Monday/, action: /Paused by alice on Nov 23: Their owner calls us back Monday/, statement: /Paused by alice on Nov 23: Their owner calls us back Monday/ },
  do_not_contact: { sequence: /Do not contact, set by alice on Nov 23: Letters through their lawyer only/, reminder: /Do not contact, set by alice/, action: /Do not contact, set by alice/, statement: /Do not contact, set by alice/ },
  daily_cap: { sequence: /already got an email from us today/, reminder: /already got an email from us today/, action: /already got an email from us today/, statement: /already got an email from us today/ },
  not_due: { sequence: /not past due \(due Dec 26\)/, reminder: null, action: /not past due \(due Dec 26\)/, statement: null },
};

const NOW = '2026-11-23T12:00:00.000Z';
const PAST_DUE_STEP = { label: 'First notice', offset_time: '00:00', subject_template: 'Invoice {{invoice_number}} is past due', body_plain_template: 'Hello {{contact_name}},\n\n{{invoice_list}}\n\nThe oldest is {{days_past_due}} days past due.' };

describe('the contact rule on every channel, over SMTP', () => {
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

  let seen = 0;
  const runJobs = () => createWorker(w.engine, { handlers: coreJobHandlers() }).runDueJobs();
  /** The messages that reached SMTP since the last call. */
  function newMessages() {
    const out = smtp.messages.slice(seen);
    seen = smtp.messages.length;
    return out;
  }

  /** A customer owing INV-1 (and INV-2 when asked), enrolled in a past-due sequence whose first step is ready. */
  async function world(dueDate: string, second = false, settings: Record<string, unknown> = {}) {
    const sender = await addSmtpConnection(w.engine, w.company, smtp);
    const customer = await addCustomer(w.engine, w.company, { name: 'Granite State Roofing', email: 'ap@granite.test' });
    const invoice = await addInvoice(w.engine, w.company, customer, { number: 'INV-1', total: 360_000, dueDate });
    const other = second ? await addInvoice(w.engine, w.company, customer, { number: 'INV-2', total: 4_100_000, dueDate: '2026-10-10' }) : null;
    const seq = await activeSequence(w, 'Past-due follow-up', [PAST_DUE_STEP], { sender_connection_id: sender });
    if (Object.keys(settings).length) expect((await w.api('PATCH', w.path(`/sequences/${seq.id}`), settings)).status).toBe(200);
    const enrolled = await w.api('POST', w.path('/sequence-enrollments'), { sequence_id: seq.id, customer_id: customer, start_date: '2026-11-23' });
    expect(enrolled.status).toBe(201);
    const step = (await w.api('GET', w.path(`/sequences/queue?customer_id=${customer}`))).body.data[0];
    newMessages();
    return { customer, invoice, other, enrollment: enrolled.body.enrollment.id as string, step: step.id as string };
  }

  /** "I was charged twice for INV-1", as the reply reader reads it: a proposed dispute on the invoice. */
  const disputingReply = (g: Awaited<ReturnType<typeof world>>) =>
    fixture(w.engine, w.company, (tx) =>
      insertCommunicationRow(tx, w.company, { customer_id: g.customer, invoice_id: g.invoice, kind: 'email', direction: 'inbound', subject: 'Re: INV-1', body: 'I think we were charged twice for INV-1.', occurred_at: '2026-11-23T09:00:00.000Z', reading_kind: 'dispute', reading_sentence: 'I think we were charged twice for INV-1.' }),
    );

  async function hold(kind: Hold, g: Awaited<ReturnType<typeof world>>) {
    if (kind === 'dispute') expect((await w.api('POST', w.path('/disputes'), { invoice_id: g.invoice, reason: 'Wrong quantity' })).status).toBe(201);
    if (kind === 'promise') expect((await w.api('POST', w.path('/communications'), { customer_id: g.customer, invoice_id: g.invoice, kind: 'call', outcome: 'promised_to_pay', promise_date: '2026-12-01' })).status).toBe(201);
    if (kind === 'reply_dispute') await disputingReply(g);
    if (kind === 'reply') await fixture(w.engine, w.company, (tx) => insertCommunicationRow(tx, w.company, { customer_id: g.customer, kind: 'email', direction: 'inbound', subject: 'Re: invoice', body: 'Can you check the quantity?', occurred_at: '2026-11-23T09:00:00.000Z' }));
    if (kind === 'promise_grace') expect((await w.api('POST', w.path('/communications'), { customer_id: g.customer, invoice_id: g.invoice, kind: 'call', outcome: 'promised_to_pay', promise_date: '2026-11-21', occurred_at: '2026-11-16T10:00:00.000Z' })).status).toBe(201);
    if (kind === 'paused') expect((await w.api('POST', w.path(`/sequence-enrollments/${g.enrollment}/pause`))).status).toBe(200);
    if (kind === 'customer_paused') expect((await w.api('PUT', w.path(`/customers/${g.customer}/contact-stop`), { stop: 'paused', reason: 'Their owner calls us back Monday' })).status).toBe(200);
    if (kind === 'do_not_contact') expect((await w.api('PUT', w.path(`/customers/${g.customer}/contact-stop`), { stop: 'do_not_contact', reason: 'Letters through their lawyer only' })).status).toBe(200);
    if (kind === 'daily_cap') await fixture(w.engine, w.company, (tx) => insertCommunicationRow(tx, w.company, { customer_id: g.customer, kind: 'email', subject: 'Quick note', body: 'By hand', occurred_at: '2026-11-23T08:00:00.000Z' }));
  }

  /** Sends on the channel; returns the reason shown when held, else null. */
  async function send(channel: Channel, g: Awaited<ReturnType<typeof world>>): Promise<string | null> {
    if (channel === 'sequence') {
      const res = await w.api('POST', w.path(`/sequences/queue/${g.step}/send`));
      if (res.status === 200) return null;
      expect(res.status).toBe(409);
      return res.body.detail as string;
    }
    if (channel === 'reminder') {
      const res = await w.api('POST', w.path('/invoices/bulk/send-reminders'), { invoice_ids: [g.invoice] });
      expect(res.status).toBe(200);
      await runJobs();
      return res.body.held[0]?.reason ?? null;
    }
    if (channel === 'action') {
      const id = await addAction(w.engine, w.company, { customer_id: g.customer, invoice_id: g.invoice, action_type: 'email', is_action_required: 1, description: 'Send a reminder for INV-1', metadata: { draft_subject: 'Invoice INV-1 is past due', draft_body: 'Hello,\n\nINV-1 is past due.\n\nAcme Supply' } });
      const res = await w.api('POST', w.path(`/actions/${id}/approve`));
      if (res.status === 409) return res.body.detail as string;
      expect(res.status).toBe(200);
      await runJobs();
      const after = (await w.api('GET', w.path(`/actions/${id}`))).body;
      return after.delivery.status === 'held' ? after.delivery.error : null;
    }
    const run = await w.api('POST', w.path('/statement-runs'), { customer_ids: [g.customer] });
    expect(run.status).toBe(202);
    await runJobs();
    const item = (await w.api('GET', w.path(`/statement-runs/${run.body.id}`))).body.items[0];
    return item.status === 'sent' ? null : item.reason;
  }

  for (const [kind, row] of Object.entries(TABLE) as Array<[Hold, Record<Channel, RegExp | null>]>) {
    for (const channel of CHANNELS) {
      const expected = row[channel];
      it(`${channel} x ${kind}: ${expected ? 'held, no message, the reason shown' : 'exactly one message'}`, async () => {
        const g = await world(kind === 'not_due' ? '2026-12-26' : '2026-10-01');
        await hold(kind, g);
        const reason = await send(channel, g);
        const messages = newMessages();
        if (expected) {
          expect(reason).toMatch(expected);
          expect(messages).toEqual([]);
        } else {
          expect(reason).toBeNull();
          expect(messages.map((m) => m.to)).toEqual([['ap@granite.test']]);
          expect(messages[0].text).not.toMatch(/\b0 days past due/);
        }
      });
    }
  }

  it('an email about two invoices leaves the disputed one out and goes', async () => {
    // The sequence does not pause on disputes: its step still goes, about the invoice not disputed.
    const g = await world('2026-10-01', true, { pause_on_dispute: false });
    await hold('dispute', g);
    const res = await w.api('POST', w.path(`/sequences/queue/${g.step}/send`));
    expect(res.body).toMatchObject({ status: 'sent' });
    const [message, ...more] = newMessages();
    expect(more).toEqual([]);
    expect(message.text).toContain('INV-2, due October 10, 2026');
    expect(message.text).not.toContain('INV-1');
  });

  it('a dispute on one invoice holds that invoice only: the enrollment runs, the preview says it is left out, the email lists the other', async () => {
    const g = await world('2026-10-01', true);
    await hold('dispute', g);
    expect((await w.api('GET', w.path(`/sequence-enrollments/${g.enrollment}`))).body).toMatchObject({ status: 'active', pause_kind: null });
    const preview = (await w.api('GET', w.path(`/sequences/queue/${g.step}/preview`))).body;
    expect(preview.hold_reason).toBe('Left out: INV-1 is disputed (Wrong quantity).');
    expect(preview.body).toContain('INV-2');
    expect(preview.body).not.toContain('INV-1');
    expect((await w.api('POST', w.path(`/sequences/queue/${g.step}/send`))).body).toMatchObject({ status: 'sent' });
    const [message, ...more] = newMessages();
    expect(more).toEqual([]);
    expect(message.text).toContain('INV-2');
    expect(message.text).not.toContain('INV-1');
  });

  it('a dispute on every open invoice pauses the enrollment: nothing is left to ask for', async () => {
    const g = await world('2026-10-01', true);
    await hold('dispute', g);
    expect((await w.api('POST', w.path('/disputes'), { invoice_id: g.other, reason: 'Never delivered' })).status).toBe(201);
    expect((await w.api('GET', w.path(`/sequence-enrollments/${g.enrollment}`))).body).toMatchObject({ pause_kind: 'dispute' });
    const refused = await w.api('POST', w.path(`/sequences/queue/${g.step}/send`));
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toMatch(/disputed/);
    expect(newMessages()).toEqual([]);
  });

  it('a reply read as a dispute holds only its invoice, whatever the sequence pauses on, until a person answers', async () => {
    const g = await world('2026-10-01', true, { pause_on_reply: false });
    await disputingReply(g);
    const preview = (await w.api('GET', w.path(`/sequences/queue/${g.step}/preview`))).body;
    expect(preview.hold_reason).toBe('Left out: Granite State Roofing may dispute INV-1 (their reply of Nov 23) and nobody has answered yet.');
    // A call that reached them answers it: INV-1 may be asked for again.
    expect((await w.api('POST', w.path('/communications'), { customer_id: g.customer, invoice_id: g.invoice, kind: 'call', outcome: 'reached', occurred_at: '2026-11-23T10:00:00.000Z' })).status).toBe(201);
    expect((await w.api('GET', w.path(`/sequences/queue/${g.step}/preview`))).body.hold_reason).toBeNull();
  });

  it('the Actions list and the customer’s chase carry the rule’s answer: held and why, per action and for the customer', async () => {
    const g = await world('2026-10-01', true);
    await hold('dispute', g);
    const draft = (invoice: string, n: string) => ({ customer_id: g.customer, invoice_id: invoice, action_type: 'email' as const, is_action_required: 1 as const, description: `About ${n}`, metadata: { draft_subject: `About ${n}`, draft_body: `Hello,\n\nAbout ${n}.` } });
    const onDisputed = await addAction(w.engine, w.company, draft(g.invoice, 'INV-1'));
    const onOther = await addAction(w.engine, w.company, draft(g.other!, 'INV-2'));
    const call = await addAction(w.engine, w.company, { customer_id: g.customer, invoice_id: g.invoice, action_type: 'call', is_action_required: 1, description: 'Call about INV-1' });
    const list = (await w.api('GET', w.path(`/actions?customer_id=${g.customer}`))).body.data as Array<{ id: string; contact_hold: string | null }>;
    const holdOf = (id: string) => list.find((a) => a.id === id)?.contact_hold;
    expect(holdOf(onDisputed)).toBe('Held: INV-1 is disputed (Wrong quantity).');
    expect(holdOf(onOther)).toBeNull();
    expect(holdOf(call)).toBeNull();
    const chase = (await w.api('GET', w.path(`/customers/${g.customer}/chase`))).body;
    expect(chase.contact).toEqual({ allowed: true, reason: 'Left out: INV-1 is disputed (Wrong quantity).' });
    expect((await w.api('PUT', w.path(`/customers/${g.customer}/contact-stop`), { stop: 'do_not_contact', reason: 'Letters only' })).status).toBe(200);
    expect((await w.api('GET', w.path(`/customers/${g.customer}/chase`))).body.contact).toEqual({ allowed: false, reason: expect.stringMatching(/^Held: Do not contact, set by alice on Nov 23: Letters only; INV-1 is disputed/) });
    const after = (await w.api('GET', w.path(`/actions?customer_id=${g.customer}`))).body.data as Array<{ id: string; contact_hold: string | null }>;
    expect(after.find((a) => a.id === onOther)?.contact_hold).toMatch(/^Held: Do not contact/);
  });

  it('an action approved before a dispute is held at the door, the approver reads why, and Retry sends it once the dispute is resolved', async () => {
    const g = await world('2026-10-01');
    const id = await addAction(w.engine, w.company, { customer_id: g.customer, invoice_id: g.invoice, action_type: 'email', is_action_required: 1, description: 'Send a reminder for INV-1', metadata: { draft_subject: 'About INV-1', draft_body: 'Hello,\n\nAbout INV-1.\n\nAcme Supply' } });
    expect((await w.api('GET', w.path(`/actions/${id}`))).body.contact_hold).toBeNull();
    expect((await w.api('POST', w.path(`/actions/${id}/approve`))).status).toBe(200);
    const dispute = await w.api('POST', w.path('/disputes'), { invoice_id: g.invoice, reason: 'Wrong quantity' });
    await runJobs();
    expect(newMessages()).toEqual([]);
    const held = (await w.api('GET', w.path(`/actions/${id}`))).body;
    expect(held).toMatchObject({ status: 'processing', delivery: { status: 'held', error: 'Held: INV-1 is disputed (Wrong quantity).' } });
    // The panel reads the rule's answer before anyone asks again.
    expect(held.contact_hold).toBe('Held: INV-1 is disputed (Wrong quantity).');
    // Still disputed: Retry is refused with the reason; nothing goes.
    const refused = await w.api('POST', w.path(`/actions/${id}/retry`), {});
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toMatch(/INV-1 is disputed/);
    expect((await w.api('POST', w.path(`/disputes/${dispute.body.id}/resolve`), { resolution: 'Credited the difference' })).status).toBe(200);
    expect((await w.api('POST', w.path(`/actions/${id}/retry`), {})).status).toBe(200);
    await runJobs();
    expect(newMessages().map((m) => m.subject)).toEqual(['About INV-1']);
    expect((await w.api('GET', w.path(`/actions/${id}`))).body).toMatchObject({ status: 'completed', delivery: { status: 'sent' } });
  });

  it('a person sends a held step anyway with a reason, kept in the change log; a blank reason is refused', async () => {
    const g = await world('2026-12-26');
    expect((await w.api('POST', w.path(`/sequences/queue/${g.step}/send`))).status).toBe(409);
    expect((await w.api('POST', w.path(`/sequences/queue/${g.step}/send`), { override_reason: '  ' })).status).toBe(400);
    const sent = await w.api('POST', w.path(`/sequences/queue/${g.step}/send`), { override_reason: 'The customer asked for this notice today' });
    expect(sent.body).toMatchObject({ status: 'sent' });
    expect(newMessages()).toHaveLength(1);
    const logged = await w.engine.db.selectFrom('changes').select(['data', 'user_id']).where('entity', '=', 'contact_override').where('company_id', '=', w.company).execute();
    expect(logged).toHaveLength(1);
    expect(JSON.parse(logged[0].data)).toMatchObject({ scheduled_step_id: g.step, reason: 'The customer asked for this notice today', held: [{ kind: 'not_due', reason: 'INV-1 is not past due (due Dec 26)' }] });
    expect(logged[0].user_id).toBe(w.users.alice);
  });

  it('a reminder asked for before a sequence step emailed the customer that day is held at the door: one email a day', async () => {
    const g = await world('2026-10-01');
    const asked = await w.api('POST', w.path('/invoices/bulk/send-reminders'), { invoice_ids: [g.invoice] });
    expect(asked.body.held).toEqual([]);
    expect((await w.api('POST', w.path(`/sequences/queue/${g.step}/send`))).body.status).toBe('sent');
    await runJobs();
    expect(newMessages().map((m) => m.subject)).toEqual(['Invoice INV-1 is past due']);
    const job = await w.engine.db.selectFrom('jobs').select(['status', 'last_error']).where('company_id', '=', w.company).where('kind', '=', 'invoice_reminder').executeTakeFirstOrThrow();
    expect(job).toEqual({ status: 'failed', last_error: 'Held: Granite State Roofing already got an email from us today (one a day).' });
  });

  /** Sends on the channel anyway, with a reason; returns the HTTP status of the request that decided it. */
  async function sendAnyway(channel: Exclude<Channel, 'sequence'>, g: Awaited<ReturnType<typeof world>>, override_reason: string): Promise<number> {
    if (channel === 'reminder') return (await w.api('POST', w.path('/invoices/bulk/send-reminders'), { invoice_ids: [g.invoice], override_reason })).status;
    if (channel === 'statement') return (await w.api('POST', w.path('/statement-runs'), { customer_ids: [g.customer], override_reason })).status;
    const id = await addAction(w.engine, w.company, { customer_id: g.customer, invoice_id: g.invoice, action_type: 'email', is_action_required: 1, description: 'About INV-1', metadata: { draft_subject: 'About INV-1', draft_body: 'Hello,\n\nAbout INV-1.\n\nAcme Supply' } });
    return (await w.api('POST', w.path(`/actions/${id}/approve`), { override_reason })).status;
  }

  for (const channel of ['reminder', 'action', 'statement'] as const) {
    it(`${channel}: Send anyway with a reason goes once and is kept in the change log; a hold an owner forbids overriding is refused (403) and nothing goes`, async () => {
      const g = await world('2026-10-01');
      await hold('reply', g);
      // Forbidden by the owner: refused in words, nothing queued, nothing logged.
      expect((await w.api('PATCH', w.path('/contact-settings'), { no_override: ['reply'] })).status).toBe(200);
      const status = await sendAnyway(channel, g, 'They asked for it on the phone');
      expect(status).toBe(403);
      await runJobs();
      expect(newMessages()).toEqual([]);
      // Allowed again: it goes, once, and the change log says who sent through what, and why.
      expect((await w.api('PATCH', w.path('/contact-settings'), { no_override: [] })).status).toBe(200);
      expect(await sendAnyway(channel, g, 'They asked for it on the phone')).toBeLessThan(300);
      await runJobs();
      expect(newMessages().map((m) => m.to)).toEqual([['ap@granite.test']]);
      const logged = await w.engine.db.selectFrom('changes').select('data').where('entity', '=', 'contact_override').where('company_id', '=', w.company).execute();
      expect(logged.map((l) => JSON.parse(l.data))).toEqual([expect.objectContaining({ customer_id: g.customer, reason: 'They asked for it on the phone', held: [expect.objectContaining({ kind: 'reply' })] })]);
    });
  }

  it("the approve panel's envelope says what holds an email action and whether it may be sent anyway; with a reason it goes once", async () => {
    const g = await world('2026-10-01');
    const id = await addAction(w.engine, w.company, { customer_id: g.customer, invoice_id: g.invoice, action_type: 'email', is_action_required: 1, description: 'About INV-1', metadata: { draft_subject: 'About INV-1', draft_body: 'Hello,\n\nAbout INV-1.\n\nAcme Supply' } });
    const envelope = async () => (await w.api('GET', w.path(`/actions/${id}/envelope`))).body.hold;
    expect(await envelope()).toBeNull();
    await hold('reply', g);
    const reason = 'Held: Granite State Roofing replied on Nov 23 and nobody has answered yet.';
    expect(await envelope()).toEqual({ reason, override_refused: null });
    expect((await w.api('PATCH', w.path('/contact-settings'), { no_override: ['reply', 'dispute'] })).status).toBe(200);
    expect(await envelope()).toEqual({ reason, override_refused: 'Sending anyway is turned off for an unanswered reply: an owner decided it always holds.' });
    expect((await w.api('POST', w.path(`/actions/${id}/approve`), { override_reason: 'They asked on the phone' })).status).toBe(403);
    expect((await w.api('PATCH', w.path('/contact-settings'), { no_override: [] })).status).toBe(200);
    expect((await w.api('POST', w.path(`/actions/${id}/approve`), { override_reason: 'They asked on the phone' })).status).toBe(200);
    await runJobs();
    expect(newMessages().map((m) => m.subject)).toEqual(['About INV-1']);
  });

  it('the refusal says which hold an owner turned overriding off for; the Queue refuses it too', async () => {
    // The sequence does not pause on disputes: the rule's hold on the invoice is what the send meets.
    const g = await world('2026-10-01', false, { pause_on_dispute: false });
    await hold('dispute', g);
    expect((await w.api('PATCH', w.path('/contact-settings'), { no_override: ['dispute'] })).status).toBe(200);
    const refused = await w.api('POST', w.path(`/sequences/queue/${g.step}/send`), { override_reason: 'Urgent' });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'override_forbidden', detail: expect.stringMatching(/^Sending anyway is turned off for a dispute: an owner decided it always holds\. Held: INV-1 is disputed/) });
    expect(newMessages()).toEqual([]);
  });

  it('contact settings are an owner’s: a collector is refused; grace days 0 let a promise two days past stop holding', async () => {
    const g = await world('2026-10-01');
    await hold('promise_grace', g);
    expect((await w.api('GET', w.path('/contact-settings'))).body).toEqual({ promise_grace_days: 3, no_override: [] });
    const byCollector = await w.api('PATCH', w.path('/contact-settings'), { promise_grace_days: 0 }, w.tokens.bob);
    expect(byCollector.status).toBe(403);
    expect(byCollector.body.code).toBe('owner_only');
    for (const bad of [{ promise_grace_days: -1 }, { promise_grace_days: 61 }, { promise_grace_days: 1.5 }, { no_override: ['sometimes'] }]) {
      expect((await w.api('PATCH', w.path('/contact-settings'), bad)).status).toBe(400);
    }
    expect((await w.api('GET', w.path('/contact-settings'))).body.promise_grace_days).toBe(3);
    expect(await send('reminder', g)).toMatch(/promised to pay INV-1 by Nov 21/);
    expect((await w.api('PATCH', w.path('/contact-settings'), { promise_grace_days: 0 })).body).toEqual({ promise_grace_days: 0, no_override: [] });
    expect(await send('reminder', g)).toBeNull();
    expect(newMessages()).toHaveLength(1);
  });

  it('a stop on the customer needs a reason, a collector may set it, a viewer may not; lifting it lets the email go', async () => {
    const g = await world('2026-10-01');
    const path = w.path(`/customers/${g.customer}/contact-stop`);
    expect((await w.api('PUT', path, { stop: 'do_not_contact' })).status).toBe(400);
    expect((await w.api('PUT', path, { stop: 'do_not_contact', reason: '   ' })).status).toBe(400);
    expect((await w.api('PUT', path, { stop: 'do_not_contact', reason: 'Lawyer only' }, w.tokens.vic)).status).toBe(403);
    expect((await w.api('PUT', w.path('/customers/00000000-0000-7000-8000-000000000000/contact-stop'), { stop: 'paused', reason: 'x' })).status).toBe(404);
    expect((await w.api('GET', path)).body).toMatchObject({ stop: null, words: null });
    const set = await w.api('PUT', path, { stop: 'do_not_contact', reason: 'Lawyer only' }, w.tokens.bob);
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ stop: 'do_not_contact', reason: 'Lawyer only', by: 'bob', words: 'Do not contact, set by bob on Nov 23: Lawyer only' });
    expect(await send('sequence', g)).toMatch(/Do not contact, set by bob/);
    expect((await w.api('PUT', path, { stop: null })).body).toMatchObject({ stop: null, words: null });
    expect(await send('sequence', g)).toBeNull();
    expect(newMessages()).toHaveLength(1);
  });

  it('a held step keeps its reason on the Queue row, and goes once the hold is lifted', async () => {
    const g = await world('2026-10-01');
    await hold('reply', g);
    const refused = await w.api('POST', w.path(`/sequences/queue/${g.step}/send`));
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('contact_held');
    const row = (await w.api('GET', w.path(`/sequences/queue/${g.step}`))).body;
    expect(row).toMatchObject({ status: 'ready', error: 'Held: Granite State Roofing replied on Nov 23 and nobody has answered yet.' });
    // Resume marks the reply handled: the step goes, once.
    expect((await w.api('POST', w.path(`/sequence-enrollments/${g.enrollment}/resume`))).status).toBe(200);
    const sent = await w.api('POST', w.path(`/sequences/queue/${g.step}/send`));
    expect(sent.body).toMatchObject({ status: 'sent', error: null });
    expect(newMessages()).toHaveLength(1);
  });
});
