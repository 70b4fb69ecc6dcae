/**
 * The chase pauses by itself on an unanswered reply, a standing promise or a dispute, says why, and
 * resumes when the reason ends; the collector can pause, resume, skip, snooze and edit a step.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fixture, insertCommunicationRow } from '../support/rows';
import { startSmtp, type SmtpServer } from '../support/smtp';
import { activeSequence, addConnection, addCustomer, addInvoice, type SequenceWorld, sequenceWorld } from '../support/sequence-fixtures';

interface Row {
  id: string;
  step_label: string;
  status: string;
  hold_reason: string | null;
  pause_kind: string | null;
  pause_reason: string | null;
  email_subject: string | null;
}

describe('the chase holds', () => {
  let w: SequenceWorld;
  let smtp: SmtpServer;
  beforeAll(async () => {
    w = await sequenceWorld();
    smtp = await startSmtp();
  });
  beforeEach(() => w.fresh());
  afterAll(async () => {
    await smtp.close();
    await w.dispose();
  });

  const queue = async (category = 'ready') => (await w.api('GET', w.path(`/sequences/queue?category=${category}`))).body.data as Row[];
  const enrollmentOf = async (id: string) => (await w.api('GET', w.path(`/sequence-enrollments/${id}`))).body;

  /** Tri-County in a two-step sequence started today: the first email is ready now. */
  async function chased(extra: Record<string, unknown> = {}, steps: Array<Record<string, unknown>> = []) {
    const connection = await addConnection(w.engine, w.company, { name: 'Dunning', port: smtp.port, allowShared: true });
    const seq = await activeSequence(
      w,
      'Dunning',
      [
        { label: 'Second notice', subject_template: 'Second notice: {{invoice_number}} is {{days_past_due}} days past due', body_plain_template: 'Please reply with the date we can expect payment.', offset_days: 0, offset_time: '06:00' },
        { label: 'Final notice', subject_template: 'Final notice', body_plain_template: 'Final.', offset_days: 7, offset_time: '06:00' },
        ...steps,
      ],
      { sender_connection_id: connection, ...extra },
    );
    const customer = await addCustomer(w.engine, w.company, { name: 'Tri-County' });
    const invoice = await addInvoice(w.engine, w.company, customer, { number: 'INV-10248', total: 480_000, dueDate: '2026-11-01' });
    const e = await w.api('POST', w.path('/sequence-enrollments'), { sequence_id: seq.id, customer_id: customer, start_date: '2026-11-23' });
    expect(e.status).toBe(201);
    return { seq, customer, invoice, enrollment: e.body.enrollment.id as string };
  }

  it('pauses on a real reply nobody has answered, never lists the step as ready, refuses to send it, and resumes once we answer', async () => {
    const t = await chased();
    expect((await queue()).map((r) => r.step_label)).toEqual(['Second notice']);
    await fixture(w.engine, w.company, (tx) =>
      insertCommunicationRow(tx, w.company, { customer_id: t.customer, kind: 'email', direction: 'inbound', subject: 'Re: Second notice', body: 'We are looking into it.', occurred_at: '2026-11-23T13:00:00.000Z' }),
    );
    w.engine.clock.set('2026-11-23T14:00:00.000Z');
    expect(await queue()).toEqual([]);
    const paused = await queue('paused');
    expect(paused.map((r) => [r.step_label, r.status, r.hold_reason, r.pause_kind, r.pause_reason])).toEqual([
      ['Second notice', 'ready', 'paused', 'reply', 'Paused: Tri-County replied on Nov 23 and nobody has answered yet'],
      ['Final notice', 'scheduled', 'paused', 'reply', 'Paused: Tri-County replied on Nov 23 and nobody has answered yet'],
    ]);
    expect(await queue('upcoming')).toEqual([]);
    expect(await enrollmentOf(t.enrollment)).toMatchObject({ status: 'active', pause_kind: 'reply', pause_reason: 'Paused: Tri-County replied on Nov 23 and nobody has answered yet' });

    const send = await w.api('POST', w.path(`/sequences/queue/${paused[0].id}/send`), {});
    expect(send.status).toBe(409);
    expect(send.body).toMatchObject({ code: 'enrollment_paused', detail: expect.stringContaining('Tri-County replied on Nov 23') });
    expect(smtp.messages).toHaveLength(0);

    // A week on, still unanswered: the second step stays scheduled, not ready.
    w.engine.clock.set('2026-12-01T12:00:00.000Z');
    expect(await queue()).toEqual([]);
    expect((await queue('paused')).map((r) => r.status)).toEqual(['ready', 'scheduled']);

    // The collector answers by hand: the pause ends.
    await fixture(w.engine, w.company, (tx) =>
      insertCommunicationRow(tx, w.company, { customer_id: t.customer, kind: 'email', direction: 'outbound', subject: 'Re: Second notice', body: 'Thanks, when?', occurred_at: '2026-11-25T09:00:00.000Z' }),
    );
    expect((await queue()).map((r) => [r.step_label, r.pause_reason])).toEqual([
      ['Second notice', null],
      ['Final notice', null],
    ]);
    expect(await enrollmentOf(t.enrollment)).toMatchObject({ pause_kind: null, pause_reason: null });
  });

  it('pauses on a promise logged with a call until its date passes unpaid, then resumes with the "promise missed" step', async () => {
    const t = await chased({}, [{ label: 'Promise missed', on_promise_missed: true, subject_template: 'About your promise', body_plain_template: 'We expected payment.', offset_time: '06:00' }]);
    // No grace days: the promise ends with its date (the company's grace is test/api/contact-words.test.ts's).
    expect((await w.api('PATCH', w.path('/contact-settings'), { promise_grace_days: 0 })).status).toBe(200);
    const call = await w.api('POST', w.path('/communications'), { customer_id: t.customer, invoice_id: t.invoice, kind: 'call', outcome: 'promised_to_pay', promise_date: '2026-11-27', body: 'In the Nov 27 check run' });
    expect(call.status).toBe(201);
    expect(await queue()).toEqual([]);
    expect(await enrollmentOf(t.enrollment)).toMatchObject({ pause_kind: 'promise', pause_reason: 'Paused: Tri-County promised payment for INV-10248 by Nov 27', paused_until: '2026-11-27' });
    // The promised day itself: still standing.
    w.engine.clock.set('2026-11-27T20:00:00.000Z');
    expect(await queue()).toEqual([]);
    // The day after, unpaid: the chase resumes, with the promise-missed step among the ready ones, once.
    w.engine.clock.set('2026-11-28T12:00:00.000Z');
    expect((await queue()).map((r) => r.step_label)).toEqual(['Second notice', 'Promise missed']);
    expect((await queue()).map((r) => r.step_label)).toEqual(['Second notice', 'Promise missed']);
    expect(await enrollmentOf(t.enrollment)).toMatchObject({ pause_kind: null });
  });

  it('a kept promise (the invoice paid) schedules no "promise missed" step, and a sequence set not to pause on promises keeps going', async () => {
    const t = await chased({}, [{ label: 'Promise missed', on_promise_missed: true, subject_template: 'x', body_plain_template: 'y', offset_time: '06:00' }]);
    // The customer called in (an inbound call is no touch of ours that would hold the email anyway).
    await w.api('POST', w.path('/communications'), { customer_id: t.customer, invoice_id: t.invoice, kind: 'call', direction: 'inbound', outcome: 'promised_to_pay', promise_date: '2026-11-27' });
    expect(await queue()).toEqual([]);
    await w.api('PATCH', w.path(`/sequences/${t.seq.id}`), { pause_on_promise: false });
    expect((await queue()).map((r) => r.step_label)).toEqual(['Second notice']);
    await w.api('PATCH', w.path(`/sequences/${t.seq.id}`), { pause_on_promise: true });
    expect(await queue()).toEqual([]);
    await w.engine.db.updateTable('invoices').set({ closing_reason: 'paid', balance: 0, paid_amount: 480_000 }).where('id', '=', t.invoice).execute();
    w.engine.clock.set('2026-11-28T12:00:00.000Z');
    expect((await queue()).map((r) => r.step_label)).toEqual(['Second notice']);
  });

  it('pauses on a dispute label while it is on an open invoice, and per sequence only when set to', async () => {
    const t = await chased();
    const label = await w.api('POST', w.path('/labels'), { name: 'Disputed', color: '#d64545', meaning: 'dispute' });
    expect(label.status).toBe(201);
    expect((await w.api('PATCH', w.path(`/invoices/${t.invoice}`), { label_ids: [label.body.id] })).status).toBe(200);
    expect(await queue()).toEqual([]);
    expect(await enrollmentOf(t.enrollment)).toMatchObject({ pause_kind: 'dispute', pause_reason: 'Paused: INV-10248 is disputed' });

    // Switching the dispute hold off resumes at once.
    const patched = await w.api('PATCH', w.path(`/sequences/${t.seq.id}`), { pause_on_dispute: false });
    expect(patched.body).toMatchObject({ pause_on_reply: true, pause_on_promise: true, pause_on_dispute: false });
    expect(await enrollmentOf(t.enrollment)).toMatchObject({ pause_kind: null });
    expect((await queue()).map((r) => r.step_label)).toEqual(['Second notice']);

    await w.api('PATCH', w.path(`/sequences/${t.seq.id}`), { pause_on_dispute: true });
    expect(await queue()).toEqual([]);
    await w.api('PATCH', w.path(`/invoices/${t.invoice}`), { label_ids: [] });
    expect((await queue()).map((r) => r.step_label)).toEqual(['Second notice']);
  });

  it('a label holds the chase by the meaning set for it in Settings, not by its name, and at once', async () => {
    const t = await chased();
    // Named like a dispute, but marked as nothing: only a tag.
    const tag = await w.api('POST', w.path('/labels'), { name: 'Disputed', color: '#d64545' });
    expect(tag.body.meaning).toBeNull();
    await w.api('PATCH', w.path(`/invoices/${t.invoice}`), { label_ids: [tag.body.id] });
    expect(await enrollmentOf(t.enrollment)).toMatchObject({ pause_kind: null });
    // Any name can mean a promise: marking the label pauses the chase of the invoices that carry it, in the same request.
    const marked = await w.api('PATCH', w.path(`/labels/${tag.body.id}`), { name: 'Customer says the cheque is in the post', meaning: 'promise' });
    expect(marked.body).toMatchObject({ meaning: 'promise' });
    expect(await enrollmentOf(t.enrollment)).toMatchObject({ pause_kind: 'promise', pause_reason: 'Paused: INV-10248 has a promise to pay' });
    expect(await queue()).toEqual([]);
    // The meaning taken away: the chase resumes at once.
    await w.api('PATCH', w.path(`/labels/${tag.body.id}`), { meaning: null });
    expect(await enrollmentOf(t.enrollment)).toMatchObject({ pause_kind: null });
    // Deleting a dispute label resumes it too.
    await w.api('PATCH', w.path(`/labels/${tag.body.id}`), { meaning: 'dispute' });
    expect(await enrollmentOf(t.enrollment)).toMatchObject({ pause_kind: 'dispute' });
    expect((await w.api('DELETE', w.path(`/labels/${tag.body.id}`))).status).toBe(204);
    expect(await enrollmentOf(t.enrollment)).toMatchObject({ pause_kind: null });
    expect((await queue()).map((r) => r.step_label)).toEqual(['Second notice']);
  });

  it('the collector pauses and resumes an enrollment; resuming marks replies handled', async () => {
    const t = await chased();
    const pause = await w.api('POST', w.path(`/sequence-enrollments/${t.enrollment}/pause`));
    expect(pause.status).toBe(200);
    expect(pause.body).toMatchObject({ pause_kind: 'manual', pause_reason: expect.stringMatching(/^Paused by .+ on Nov 23$/) });
    expect(await queue()).toEqual([]);
    // A manual pause holds whatever the other holds say.
    w.engine.clock.set('2026-11-23T13:00:00.000Z');
    await fixture(w.engine, w.company, (tx) =>
      insertCommunicationRow(tx, w.company, { customer_id: t.customer, kind: 'email', direction: 'inbound', subject: 'Re', body: 'Got it', occurred_at: '2026-11-23T12:30:00.000Z' }),
    );
    expect((await enrollmentOf(t.enrollment)).pause_kind).toBe('manual');
    const resume = await w.api('POST', w.path(`/sequence-enrollments/${t.enrollment}/resume`));
    expect(resume.body).toMatchObject({ pause_kind: null, pause_reason: null });
    expect((await queue()).map((r) => r.step_label)).toEqual(['Second notice']);

    // A standing dispute pauses it again at once, and says so.
    const label = await w.api('POST', w.path('/labels'), { name: 'Disputed', color: '#d64545', meaning: 'dispute' });
    await w.api('PATCH', w.path(`/invoices/${t.invoice}`), { label_ids: [label.body.id] });
    expect((await w.api('POST', w.path(`/sequence-enrollments/${t.enrollment}/resume`))).body).toMatchObject({ pause_kind: 'dispute' });
    // Another company's enrollment is not found; a completed one is refused.
    expect((await w.api('POST', w.path(`/sequence-enrollments/${t.enrollment}/pause`, w.other), undefined, w.tokens.carol)).status).toBe(404);
    await w.api('POST', w.path(`/sequence-enrollments/${t.enrollment}/stop`), {});
    const late = await w.api('POST', w.path(`/sequence-enrollments/${t.enrollment}/pause`));
    expect(late.status).toBe(400);
  });

  it('skip, snooze and edit-then-send a step; history shows it skipped or edited', async () => {
    const t = await chased();
    const [first] = await queue();
    const badDate = await w.api('POST', w.path(`/sequences/queue/${first.id}/snooze`), { date: '2026-11-23' });
    expect(badDate.status).toBe(400);
    expect(badDate.body.errors.date[0]).toMatch(/A day after today \(Nov 23\)/);
    const snoozed = await w.api('POST', w.path(`/sequences/queue/${first.id}/snooze`), { date: '2026-11-26' });
    expect(snoozed.body).toMatchObject({ status: 'scheduled', scheduled_date: '2026-11-26', scheduled_at: '2026-11-26T11:00:00.000Z' });
    expect(await queue()).toEqual([]);
    w.engine.clock.set('2026-11-26T12:00:00.000Z');
    expect((await queue()).map((r) => r.step_label)).toEqual(['Second notice']);

    const blank = await w.api('POST', w.path(`/sequences/queue/${first.id}/edit`), { subject: 'Hello', body: '  ' });
    expect(blank.status).toBe(400);
    const edited = await w.api('POST', w.path(`/sequences/queue/${first.id}/edit`), { subject: 'INV-10248: checking on the Nov 27 check run', body: 'Hi, just confirming the check run date.' });
    expect(edited.body).toMatchObject({ edited_subject: 'INV-10248: checking on the Nov 27 check run', email_subject: 'INV-10248: checking on the Nov 27 check run', edited_at: '2026-11-26T12:00:00.000Z' });
    const sent = await w.api('POST', w.path(`/sequences/queue/${first.id}/send`), {});
    expect(sent.body).toMatchObject({ status: 'sent', email_subject: 'INV-10248: checking on the Nov 27 check run', edited_at: '2026-11-26T12:00:00.000Z' });
    const [mail] = await smtp.waitFor(1);
    expect(mail.subject).toBe('INV-10248: checking on the Nov 27 check run');
    expect(mail.text.trim()).toBe('Hi, just confirming the check run date.');
    smtp.messages.length = 0;

    w.engine.clock.set('2026-12-01T12:00:00.000Z');
    const [second] = await queue();
    const skipped = await w.api('POST', w.path(`/sequences/queue/${second.id}/skip`));
    expect(skipped.body).toMatchObject({ status: 'cancelled', hold_reason: 'skipped' });
    expect((await w.api('POST', w.path(`/sequences/queue/${second.id}/skip`))).status).toBe(400);
    expect(await enrollmentOf(t.enrollment)).toMatchObject({ status: 'completed' });
    expect(smtp.messages).toHaveLength(0);
  });

  it('the subject counts days past due on the day it is sent, not the day the step became ready', async () => {
    await chased();
    const [ready] = await queue();
    expect(ready.email_subject).toBe('Second notice: INV-10248 is 22 days past due');
    w.engine.clock.set('2026-11-25T12:00:00.000Z');
    const sent = await w.api('POST', w.path(`/sequences/queue/${ready.id}/send`), {});
    expect(sent.body.email_subject).toBe('Second notice: INV-10248 is 24 days past due');
    expect((await smtp.waitFor(1))[0].subject).toBe('Second notice: INV-10248 is 24 days past due');
    smtp.messages.length = 0;
  });

  it('never sends an email with an empty placeholder outside a section, and says why; a section drops its sentence', async () => {
    const connection = await addConnection(w.engine, w.company, { name: 'Links', port: smtp.port, allowShared: true });
    const seq = await activeSequence(
      w,
      'Links',
      [
        { label: 'Bare link', subject_template: 'Invoice {{invoice_number}}', body_plain_template: 'You can pay online at {{payment_link}}.', offset_time: '06:00' },
        { label: 'Sectioned link', subject_template: 'Invoice {{invoice_number}}', body_plain_template: 'Due {{due_date}}.{{#payment_link}} You can pay online at {{payment_link}}.{{/payment_link}}', offset_time: '06:00' },
      ],
      { sender_connection_id: connection },
    );
    const customer = await addCustomer(w.engine, w.company, { name: 'Greenfield' });
    await addInvoice(w.engine, w.company, customer, { number: 'INV-10231', total: 904_357, dueDate: '2026-11-01' });
    await w.api('POST', w.path('/sequence-enrollments'), { sequence_id: seq.id, customer_id: customer, start_date: '2026-11-23' });
    const [bare, sectioned] = await queue();
    const reason =
      'The email would read with nothing in place of {{payment_link}} (the invoice has no payment link). Put that sentence in {{#payment_link}}…{{/payment_link}} so it is left out when there is no value, or fill in the value.';
    expect((await w.api('GET', w.path(`/sequences/queue/${bare.id}/preview`))).body).toMatchObject({ empty_placeholders: ['payment_link'], refused_reason: reason });
    const refused = await w.api('POST', w.path(`/sequences/queue/${bare.id}/send`), {});
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: 'empty_placeholder', detail: reason });
    expect((await w.api('GET', w.path(`/sequences/queue/${bare.id}`))).body).toMatchObject({ status: 'ready', sent_at: null, email_subject: 'Invoice INV-10231' });

    const builder = await w.api('POST', w.path(`/sequences/${seq.id}/preview`), { customer_id: customer, subject_template: 'Hi', body_plain_template: 'Pay at {{payment_link}}' });
    expect(builder.body.refused_reason).toBe(reason);

    expect((await w.api('POST', w.path(`/sequences/queue/${sectioned.id}/send`), {})).body.status).toBe('sent');
    const [mail] = await smtp.waitFor(1);
    expect(mail.text.trim()).toBe('Due November 1, 2026.');
    smtp.messages.length = 0;
  });
});
