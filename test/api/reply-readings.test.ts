/**
 * Reading replies without inventing promises (issue 36), through the real path: a customer's reply
 * put into Dovecot, read by the reply job, kept with its reading and the sentence it came from; the
 * chase holds follow the reading; a person corrects it through the API; Resume and a later call
 * clear what only an automatic reading held.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createWorker } from '../../core/jobs/worker';
import { coreJobHandlers } from '../../core/runtime/job-handlers';
import { addAction } from '../support/actions-fixtures';
import { type ImapServer, startImap } from '../support/imap';
import { activeSequence, addCustomer, addInvoice, type SequenceWorld, sequenceWorld } from '../support/sequence-fixtures';
import { type SmtpServer, startSmtp } from '../support/smtp';

const STEPS = [
  { label: 'First reminder', offset_time: '00:00', subject_template: 'Invoice {{invoice_number}} is overdue', body_plain_template: 'Hello {{contact_name}}, please pay.' },
  { label: 'Second reminder', offset_days: 3, subject_template: 'Still open', body_plain_template: 'Reminder' },
];

describe('reading customers’ replies', () => {
  let w: SequenceWorld;
  let imap: ImapServer;
  let smtp: SmtpServer;
  let mailbox = '';
  let boxes = 0;
  let sender = '';
  let chase: { customer: string; invoice: string; enrollment: string; messageId: string };
  let replies = 0;

  beforeAll(async () => {
    w = await sequenceWorld();
    imap = await startImap();
    smtp = await startSmtp();
  });
  beforeEach(async () => {
    await w.fresh('2026-11-23T12:00:00.000Z');
    mailbox = `Readings${++boxes}`;
    await imap.create(mailbox);
    const created = await w.api('POST', w.path('/email-connections'), {
      name: 'AR',
      from_email: 'ar@acme-supply.test',
      smtp_host: smtp.host,
      smtp_port: smtp.port,
      imap_host: imap.host,
      imap_port: imap.port,
      imap_secure: false,
      imap_username: imap.user,
      imap_password: imap.password,
      imap_mailbox: mailbox,
    });
    expect(created.status).toBe(201);
    sender = created.body.id;
    const customer = await addCustomer(w.engine, w.company, { name: 'Granite State Roofing', email: 'ap@granite.test', contactName: 'Dana Whitfield' });
    const invoice = await addInvoice(w.engine, w.company, customer, { number: 'INV-10333', total: 360_000, dueDate: '2026-10-30' });
    const seq = await activeSequence(w, 'Dunning', STEPS, { sender_connection_id: sender });
    const enrolled = await w.api('POST', w.path('/sequence-enrollments'), { sequence_id: seq.id, customer_id: customer, start_date: '2026-11-23' });
    const ready = (await w.api('GET', w.path(`/sequences/queue?customer_id=${customer}`))).body.data;
    const sent = await w.api('POST', w.path(`/sequences/queue/${ready[0].id}/send`));
    expect(sent.body.status).toBe('sent');
    chase = { customer, invoice, enrollment: enrolled.body.enrollment.id, messageId: sent.body.message_id };
  });
  afterAll(async () => {
    await imap?.stop();
    await smtp?.close();
    await w?.dispose();
  });

  /** The customer answers our email at `at` with `text`; the reply job reads it. Returns the reply as the API lists it. */
  async function customerWrites(at: string, text: string) {
    await imap.append(
      [
        'From: Dana Whitfield <ap@granite.test>',
        'To: ar@acme-supply.test',
        `Subject: Re: Invoice INV-10333 is overdue`,
        `Date: ${new Date(at).toUTCString()}`,
        `Message-ID: <reply-${++replies}@granite.test>`,
        `In-Reply-To: ${chase.messageId}`,
        'Content-Type: text/plain; charset=utf-8',
        '',
        text,
        '',
        `On Mon, Nov 23, 2026 at 12:00 PM Acme AR <ar@acme-supply.test> wrote:`,
        '> Invoice INV-10333 for $3,600.00 was due on October 30. Please pay it by December 1.',
        '',
      ].join('\r\n'),
      mailbox,
    );
    w.engine.clock.set(new Date(new Date(at).getTime() + 60_000).toISOString());
    const queued = await w.api('POST', w.path(`/email-connections/${sender}/sync-replies`));
    expect(queued.status).toBe(202);
    await createWorker(w.engine, { handlers: coreJobHandlers() }).runDueJobs();
    const list = (await w.api('GET', w.path(`/communications?customer_id=${chase.customer}&direction=inbound`))).body.data;
    return list[0];
  }

  const enrollment = async () => (await w.api('GET', w.path(`/sequence-enrollments/${chase.enrollment}`))).body;
  const correct = (id: string, body: unknown, token?: string) => w.api('POST', w.path(`/communications/${id}/reading`), body, token);

  it('reads "charged twice … can you check before I pay?" as a proposed dispute, never a promise; a call that got through answers it', async () => {
    const said = 'I think I was charged twice for the October service, can you check before I pay?';
    const reply = await customerWrites('2026-11-24T10:00:00Z', said);
    expect(reply.body).toContain(said);
    expect(reply.reading).toEqual({ kind: 'dispute', promise_date: null, promise_amount: null, sentence: said, automatic: true, corrected_by: null, corrected_at: null });
    // The invoice's activity (the desk's panel) carries the same reading.
    const activity = (await w.api('GET', w.path(`/invoices/${chase.invoice}/activity`))).body.data;
    expect(activity.find((e: { id: string }) => e.id === reply.id).reading).toEqual(reply.reading);
    expect(activity.filter((e: { reading: unknown }) => e.reading !== null)).toHaveLength(1);
    // Held for the unanswered reply, not for a promise of October 1 next year; the dispute is only proposed.
    expect(await enrollment()).toMatchObject({ pause_kind: 'reply', pause_reason: 'Paused: Granite State Roofing replied on Nov 24 and nobody has answered yet' });
    expect((await w.api('GET', w.path(`/disputes?invoice_id=${chase.invoice}`))).body).toMatchObject({ data: [] });

    // A call that did not get through answers nothing; one that reached the customer answers the reply.
    w.engine.clock.set('2026-11-24T12:00:00.000Z');
    const missed = await w.api('POST', w.path('/communications'), { customer_id: chase.customer, kind: 'call', outcome: 'no_answer', occurred_at: '2026-11-24T11:00:00Z' });
    expect(missed.status).toBe(201);
    expect((await enrollment()).pause_kind).toBe('reply');
    const call = await w.api('POST', w.path('/communications'), { customer_id: chase.customer, kind: 'call', outcome: 'reached', body: 'Checking the October charges.', occurred_at: '2026-11-24T11:30:00Z' });
    expect(call.status).toBe(201);
    expect(await enrollment()).toMatchObject({ pause_kind: null, pause_reason: null });
  });

  it('a promise read from a reply holds until Resume; a person’s correction holds, with the year when it is not this one', async () => {
    const reply = await customerWrites('2026-11-24T10:00:00Z', 'Hi, we will pay $3,600.00 on Dec 4.\n\nDana');
    expect(reply.reading).toMatchObject({ kind: 'promise', promise_date: '2026-12-04', promise_amount: 3600, sentence: 'Hi, we will pay $3,600.00 on Dec 4.', automatic: true });
    expect(await enrollment()).toMatchObject({ pause_kind: 'promise', pause_reason: 'Paused: Granite State Roofing promised payment for INV-10333 by Dec 4' });

    // Resume clears what only the automatic reading held: no "still paused".
    const resumed = await w.api('POST', w.path(`/sequence-enrollments/${chase.enrollment}/resume`));
    expect(resumed.status).toBe(200);
    expect(resumed.body).toMatchObject({ pause_kind: null, pause_reason: null });

    // The collector corrects the date: a person's promise holds, and names its year; the engine's
    // proposal to chase the invoice is withdrawn as for a promise logged with a call.
    const proposal = await addAction(w.engine, w.company, { customer_id: chase.customer, invoice_id: chase.invoice, action_type: 'call', description: 'Call about INV-10333' });
    const corrected = await correct(reply.id, { kind: 'promise', promise_date: '2027-01-08' }, w.tokens.bob);
    expect(corrected.status).toBe(200);
    expect(corrected.body.reading).toMatchObject({ kind: 'promise', promise_date: '2027-01-08', promise_amount: null, sentence: 'Hi, we will pay $3,600.00 on Dec 4.', automatic: false, corrected_by: 'bob' });
    expect(corrected.body.reading.corrected_at).toBe(w.engine.clock.now().toISOString());
    expect(await enrollment()).toMatchObject({ pause_kind: 'promise', pause_reason: 'Paused: Granite State Roofing promised payment for INV-10333 by Jan 8, 2027' });
    expect(await w.engine.db.selectFrom('actions').select('status').where('id', '=', proposal).executeTakeFirstOrThrow()).toEqual({ status: 'cancelled' });
    expect(await w.engine.db.selectFrom('action_approvals').select('reason').where('action_id', '=', proposal).executeTakeFirstOrThrow()).toEqual({ reason: 'superseded: promise to pay on record for January 8, 2027' });

    // Not a promise after all: nothing holds the chase but the reply the resume already handled.
    const none = await correct(reply.id, { kind: 'none' }, w.tokens.bob);
    expect(none.body.reading).toMatchObject({ kind: 'none', promise_date: null, automatic: false });
    expect(await enrollment()).toMatchObject({ pause_kind: null });
  });

  it('"it is a dispute" opens the dispute on the reply’s invoice in one click, with the sentence as its reason', async () => {
    const reply = await customerWrites('2026-11-24T10:00:00Z', 'Payment will go out Friday.');
    expect(reply.reading).toMatchObject({ kind: 'promise', promise_date: '2026-11-27' });
    const disputed = await correct(reply.id, { kind: 'dispute' });
    expect(disputed.status).toBe(200);
    expect(disputed.body.reading).toMatchObject({ kind: 'dispute', promise_date: null, automatic: false, corrected_by: 'alice' });
    const open = (await w.api('GET', w.path(`/disputes?invoice_id=${chase.invoice}`))).body.data;
    expect(open).toHaveLength(1);
    expect(open[0]).toMatchObject({ status: 'open', reason: 'Raised in Dana Whitfield\'s reply: "Payment will go out Friday."' });
    expect(await enrollment()).toMatchObject({ pause_kind: 'dispute' });
    // Said again, it opens no second dispute.
    expect((await correct(reply.id, { kind: 'dispute' })).status).toBe(200);
    expect((await w.api('GET', w.path(`/disputes?invoice_id=${chase.invoice}`))).body.data).toHaveLength(1);
  });

  it('reads a numeric date the way the customer writes it: its location’s country (GB: day first), else the company’s, else month first', async () => {
    const located = await w.api('PATCH', w.path(`/customers/${chase.customer}`), { locations: [{ name: 'Head office', city: 'Leeds', country: 'GB' }] });
    expect(located.status).toBe(200);
    const british = await customerWrites('2026-11-24T10:00:00Z', 'We will pay on 4/12.');
    expect(british.reading).toMatchObject({ kind: 'promise', promise_date: '2026-12-04', sentence: 'We will pay on 4/12.' });
    // A country written in words names no code: the company's (none here), so month first: April 12, past the 120 days, no promise.
    await w.api('PATCH', w.path(`/customers/${chase.customer}`), { locations: [{ name: 'Head office', city: 'Leeds', country: 'United Kingdom' }] });
    const unknown = await customerWrites('2026-11-24T11:00:00Z', 'We will pay on 4/12.');
    expect(unknown.reading).toMatchObject({ kind: 'none', promise_date: null });
    // The company made in Germany: its country decides when the customer's does not.
    await w.engine.db.updateTable('companies').set({ country: 'DE' }).where('id', '=', w.company).execute();
    const german = await customerWrites('2026-11-24T12:00:00Z', 'We will pay on 4/12.');
    expect(german.reading).toMatchObject({ kind: 'promise', promise_date: '2026-12-04' });
  });

  it('refuses a bad correction with a problem in words and changes nothing', async () => {
    const reply = await customerWrites('2026-11-24T10:00:00Z', 'Who is this?');
    expect(reply.reading).toMatchObject({ kind: 'needs_answer', sentence: 'Who is this?' });
    w.engine.clock.set('2026-11-24T12:00:00.000Z');
    const call = (await w.api('POST', w.path('/communications'), { customer_id: chase.customer, kind: 'call', outcome: 'reached', occurred_at: '2026-11-24T11:00:00Z' })).body;
    const cases: Array<[unknown, number, string, string | null]> = [
      [{ kind: 'promise' }, 400, 'validation_error', 'promise_date'],
      [{ kind: 'promise', promise_date: '2026-11-20' }, 400, 'validation_error', 'promise_date'],
      [{ kind: 'promise', promise_date: '2026-02-30' }, 400, 'validation_error', 'promise_date'],
      [{ kind: 'none', promise_date: '2026-12-01' }, 400, 'validation_error', 'promise_date'],
      [{ kind: 'dispute', promise_amount: 10 }, 400, 'validation_error', 'promise_amount'],
      [{ kind: 'maybe' }, 400, 'validation_error', 'kind'],
      [{ kind: 'none', extra: 1 }, 400, 'validation_error', null],
    ];
    for (const [body, status, code, field] of cases) {
      const res = await correct(reply.id, body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(res.body.code, JSON.stringify(body)).toBe(code);
      if (field) expect(Object.keys(res.body.errors ?? {}), JSON.stringify(body)).toContain(field);
    }
    const notReply = await correct(call.id, { kind: 'none' });
    expect(notReply).toMatchObject({ status: 400, body: { code: 'not_a_reply' } });
    expect((await correct('0192f0c4-5f3e-7c4a-9a51-1f2e3d4c5b6a', { kind: 'none' })).status).toBe(404);
    expect((await correct(reply.id, { kind: 'none' }, w.tokens.carol)).status).toBe(403);
    expect((await correct(reply.id, { kind: 'none' }, w.tokens.vic)).status).toBe(403);
    // Another company's path finds nothing of this one's.
    expect((await w.api('POST', w.path(`/communications/${reply.id}/reading`, w.other), { kind: 'none' }, w.tokens.carol)).status).toBe(404);
    const after = (await w.api('GET', w.path(`/communications?customer_id=${chase.customer}&direction=inbound`))).body.data[0];
    expect(after.reading).toEqual(reply.reading);
  });
});
