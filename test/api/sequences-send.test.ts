import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { addConnection, addCustomer, addInvoice, activeSequence, closedPort, type SequenceWorld, sequenceWorld } from '../support/sequence-fixtures';
import { type SmtpServer, startSmtp } from '../support/smtp';

const EMAIL_STEP = {
  label: 'First reminder',
  offset_time: '00:00',
  subject_template: 'Invoice {{invoice_number}} is {{days_past_due}} days past due',
  body_plain_template: 'Hello {{contact_name}},\n{{customer_name}} owes {{total_overdue}}. {{#payment_link}}Pay here: {{payment_link}}{{/payment_link}}\n{{sender_name}}, {{company_name}} {{mystery}}',
  body_html_template: '<p>Hello {{contact_name}} at <b>{{customer_name}}</b></p>',
};

describe('sending queue steps over SMTP', () => {
  let w: SequenceWorld;
  let smtp: SmtpServer;
  /** When set, the SMTP server holds its reply to DATA until this resolves. */
  let gate: Promise<void> | null = null;

  beforeAll(async () => {
    w = await sequenceWorld();
    smtp = await startSmtp({ beforeReply: () => gate ?? undefined });
  });
  beforeEach(async () => {
    await w.fresh();
    smtp.messages.length = 0;
    gate = null;
  });
  afterAll(async () => {
    await smtp.close();
    await w.dispose();
  });

  async function readyStep(options: { sender?: string | null; thread?: boolean; steps?: Array<Record<string, unknown>>; customer?: Parameters<typeof addCustomer>[2] } = {}) {
    const customer = await addCustomer(w.engine, w.company, options.customer ?? { name: 'Globex & Sons', contactName: 'Hank Scorpio', email: 'ap@globex.test' });
    // An open invoice, so {{invoice_number}} and {{days_past_due}} have values (an empty one is never sent).
    await addInvoice(w.engine, w.company, customer, { number: 'INV-7', total: 70_000, dueDate: '2026-11-01' });
    const seq = await activeSequence(w, 'Dunning', options.steps ?? [EMAIL_STEP], {
      ...(options.sender ? { sender_connection_id: options.sender } : {}),
      send_followups_in_thread: options.thread ?? false,
    });
    const enrollment = await w.api('POST', w.path('/sequence-enrollments'), { sequence_id: seq.id, customer_id: customer, start_date: '2026-11-23' });
    const queue = await w.api('GET', w.path('/sequences/queue'));
    return { customer, seq, enrollment: enrollment.body.enrollment.id as string, stepId: queue.body.data[0]?.id as string };
  }

  const send = (id: string, body?: unknown, token?: string) => w.api('POST', w.path(`/sequences/queue/${id}/send`), body, token);

  it("renders the step with the customer's data, sends it from the sequence's sender and records it", async () => {
    const sender = await addConnection(w.engine, w.company, { name: 'Acme AR', port: smtp.port, fromEmail: 'ar@acme.test', fromName: 'Acme Receivables', userId: w.users.bob });
    const customer = await addCustomer(w.engine, w.company, { name: 'Globex & Sons', contactName: 'Hank Scorpio', email: 'ap@globex.test' });
    const oldest = await addInvoice(w.engine, w.company, customer, { number: 'INV-100', total: 120_000, dueDate: '2026-10-24', paymentLink: 'https://pay.test/100' });
    await addInvoice(w.engine, w.company, customer, { number: 'INV-101', total: 30_050, dueDate: '2026-11-10' });
    await addInvoice(w.engine, w.company, customer, { number: 'INV-102', total: 10_000, dueDate: '2026-12-10' });
    await addInvoice(w.engine, w.company, customer, { number: 'INV-099', total: 5_000, dueDate: '2026-09-01', closed: true });
    const seq = await activeSequence(w, 'Dunning', [EMAIL_STEP], { sender_connection_id: sender });
    await w.api('POST', w.path('/sequence-enrollments'), { sequence_id: seq.id, customer_id: customer, start_date: '2026-11-23' });
    const ready = (await w.api('GET', w.path('/sequences/queue'))).body.data[0];
    expect(ready.email_subject).toBe('Invoice INV-100 is 30 days past due');

    w.engine.clock.set('2026-11-23T14:05:00.000Z');
    const res = await send(ready.id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: ready.id,
      status: 'sent',
      sent_at: '2026-11-23T14:05:00.000Z',
      sender_connection_id: sender,
      email_subject: 'Invoice INV-100 is 30 days past due',
      message_id: `<seq.${ready.id}@acme.test>`,
      error: null,
    });

    expect(smtp.messages).toHaveLength(1);
    const mail = smtp.messages[0];
    expect(mail.to).toEqual(['ap@globex.test']);
    expect(mail.from).toBe('ar@acme.test');
    expect(mail.headers.from).toContain('Acme Receivables');
    expect(mail.subject).toBe('Invoice INV-100 is 30 days past due');
    expect(mail.messageId).toBe(`<seq.${ready.id}@acme.test>`);
    expect(mail.text.replace(/\r\n/g, '\n').trim()).toBe(
      'Hello Hank Scorpio,\nGlobex & Sons owes $1,500.50. Pay here: https://pay.test/100\nAcme Receivables, Acme Supply {{mystery}}',
    );
    expect(mail.html).toContain('<b>Globex &amp; Sons</b>');

    const comm = await w.engine.db.selectFrom('communications').selectAll().where('customer_id', '=', customer).executeTakeFirstOrThrow();
    expect(comm).toMatchObject({
      kind: 'email',
      direction: 'outbound',
      invoice_id: oldest,
      subject: 'Invoice INV-100 is 30 days past due',
      occurred_at: '2026-11-23T14:05:00.000Z',
      author_user_id: w.users.alice,
      email_connection_id: sender,
      message_id: `<seq.${ready.id}@acme.test>`,
    });
    const invoice = await w.engine.db.selectFrom('invoices').select(['last_touch_at', 'last_touched_by']).where('id', '=', oldest).executeTakeFirstOrThrow();
    expect(invoice).toEqual({ last_touch_at: '2026-11-23T14:05:00.000Z', last_touched_by: 'alice' });

    expect((await w.api('GET', w.path('/sequences/queue'))).body.count).toBe(0);
    const history = await w.api('GET', w.path('/sequences/queue?category=history'));
    expect(history.body.data.map((r: { id: string; status: string }) => [r.id, r.status])).toEqual([[ready.id, 'sent']]);

    // Retrying the HTTP call returns the current state and sends nothing more.
    w.engine.clock.set('2026-11-23T14:06:00.000Z');
    const retry = await send(ready.id, { sender_connection_id: sender });
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual(res.body);
    expect(smtp.messages).toHaveLength(1);
  });

  it("lets the caller send from their own connection, a shared one or the sequence's sender only", async () => {
    const alices = await addConnection(w.engine, w.company, { name: 'Alice', port: smtp.port, userId: w.users.alice });
    const bobs = await addConnection(w.engine, w.company, { name: 'Bob', port: smtp.port, userId: w.users.bob });
    const shared = await addConnection(w.engine, w.company, { name: 'Shared', port: smtp.port, allowShared: true });
    const companyBox = await addConnection(w.engine, w.company, { name: 'Company box', port: smtp.port });
    const inactive = await addConnection(w.engine, w.company, { name: 'Old', port: smtp.port, userId: w.users.alice, isActive: false });
    const foreign = await addConnection(w.engine, w.other, { name: 'Theirs', port: smtp.port, allowShared: true });

    const steps = [1, 2, 3, 4].map((n) => ({ ...EMAIL_STEP, label: `Step ${n}`, offset_time: `00:0${n}` }));
    const { stepId } = await readyStep({ sender: bobs, steps });
    const ids = (await w.api('GET', w.path('/sequences/queue'))).body.data.map((r: { id: string }) => r.id) as string[];
    expect(ids[0]).toBe(stepId);

    // Bob's mailbox is not shared, and it is not this sequence's sender for a new one below.
    for (const [body, status, code] of [
      [{ sender_connection_id: companyBox }, 403, 'sender_not_allowed'],
      [{ sender_connection_id: inactive }, 400, 'validation_error'],
      [{ sender_connection_id: foreign }, 400, 'validation_error'],
      [{ sender_connection_id: '0192f0c4-5f3e-7c4a-9a51-1f2e3d4c5b6a' }, 400, 'validation_error'],
    ] as const) {
      const res = await send(ids[0], body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.body.code).toBe(code);
    }
    expect(smtp.messages).toHaveLength(0);

    expect((await send(ids[0])).body).toMatchObject({ status: 'sent', sender_connection_id: bobs });
    // One chase email per customer per day: each of the others goes out on a day of its own.
    w.engine.clock.set('2026-11-24T12:00:00.000Z');
    expect((await send(ids[1], { sender_connection_id: alices })).body).toMatchObject({ status: 'sent', sender_connection_id: alices });
    w.engine.clock.set('2026-11-25T12:00:00.000Z');
    expect((await send(ids[2], { sender_connection_id: shared })).body).toMatchObject({ status: 'sent', sender_connection_id: shared });
    w.engine.clock.set('2026-11-26T12:00:00.000Z');
    // Bob may use Alice's box only if it were shared or the sequence's sender: it is neither.
    expect((await send(ids[3], { sender_connection_id: alices }, w.tokens.bob)).status).toBe(403);
    expect((await send(ids[3], { sender_connection_id: bobs }, w.tokens.bob)).body.status).toBe('sent');
    expect(smtp.messages.map((m) => m.from)).toEqual(['bob@ardesk.test', 'alice@ardesk.test', 'shared@ardesk.test', 'bob@ardesk.test']);
  });

  it('needs a sender: 400 no_sender when neither the request nor the sequence gives one', async () => {
    const { stepId } = await readyStep();
    const res = await send(stepId);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('no_sender');
    expect((await w.api('GET', w.path(`/sequences/queue/${stepId}`))).body.status).toBe('ready');
  });

  it('marks the step failed with the error when the SMTP server cannot be reached, and does not retry it', async () => {
    const dead = await addConnection(w.engine, w.company, { name: 'Dead relay', port: await closedPort(), userId: w.users.alice });
    const { stepId, enrollment } = await readyStep({ sender: dead });
    const res = await send(stepId);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('failed');
    expect(res.body.error).toMatch(/ECONNREFUSED|connect/i);
    expect(res.body.sent_at).toBeNull();
    const history = await w.api('GET', w.path('/sequences/queue?category=history'));
    expect(history.body.data.map((r: { status: string }) => r.status)).toEqual(['failed']);
    expect((await send(stepId)).body).toEqual(res.body);
    expect(await w.engine.db.selectFrom('communications').select('id').where('company_id', '=', w.company).execute()).toHaveLength(0);
    expect((await w.api('GET', w.path(`/sequence-enrollments/${enrollment}`))).body.status).toBe('completed');
    // The failed execution is history: the step can no longer be deleted.
    expect((await w.api('DELETE', w.path(`/sequences/${res.body.sequence}/steps/${res.body.step}`))).status).toBe(409);
  });

  it('refuses a customer without an email address and a step without content, leaving the step ready', async () => {
    const conn = await addConnection(w.engine, w.company, { name: 'AR', port: smtp.port, allowShared: true });
    const noEmail = await readyStep({ sender: conn, customer: { name: 'Paper only', email: null } });
    const res = await send(noEmail.stepId);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('no_recipient');

    await w.fresh();
    const conn2 = await addConnection(w.engine, w.company, { name: 'AR', port: smtp.port, allowShared: true });
    const empty = await readyStep({ sender: conn2, steps: [{ label: 'Blank', offset_time: '00:00' }] });
    const blank = await send(empty.stepId);
    expect(blank.status).toBe(400);
    expect(blank.body.code).toBe('empty_template');
    expect((await w.api('GET', w.path(`/sequences/queue/${empty.stepId}`))).body.status).toBe('ready');
    expect(smtp.messages).toHaveLength(0);
  });

  it('sends follow-ups as replies in the same thread when the sequence asks for it', async () => {
    const conn = await addConnection(w.engine, w.company, { name: 'AR', port: smtp.port, fromEmail: 'ar@acme.test' });
    const steps = [
      { ...EMAIL_STEP, subject_template: 'Your account with {{company_name}}' },
      { ...EMAIL_STEP, label: 'Second', subject_template: 'Second notice', offset_days: 1 },
    ];
    const { enrollment } = await readyStep({ sender: conn, thread: true, steps });
    const first = (await w.api('GET', w.path('/sequences/queue'))).body.data[0];
    await send(first.id);
    // The sequence's own email is no manual touch: the next step is not held by it.
    w.engine.clock.set('2026-11-24T16:00:00.000Z');
    const second = (await w.api('GET', w.path('/sequences/queue'))).body.data[0];
    expect(second.step_label).toBe('Second');
    const res = await send(second.id);
    expect(res.body).toMatchObject({ status: 'sent', email_subject: 'Re: Your account with Acme Supply' });
    const [m1, m2] = smtp.messages;
    expect(m2.headers['in-reply-to']).toBe(m1.messageId);
    expect(m2.headers.references).toBe(m1.messageId);
    expect([m1.subject, m2.subject]).toEqual(['Your account with Acme Supply', 'Re: Your account with Acme Supply']);
    expect((await w.api('GET', w.path(`/sequence-enrollments/${enrollment}`))).body.status).toBe('completed');
  });

  it('never sends twice: a concurrent send gets 409 while the first is on the wire', async () => {
    const conn = await addConnection(w.engine, w.company, { name: 'AR', port: smtp.port, allowShared: true });
    const { stepId } = await readyStep({ sender: conn });
    let release: () => void = () => undefined;
    gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const first = send(stepId);
    await smtp.waitFor(1);
    const second = await send(stepId);
    expect(second.status).toBe(409);
    expect(second.body.code).toBe('send_in_progress');
    expect((await w.api('POST', w.path(`/sequences/queue/${stepId}/complete`))).status).toBe(409);
    release();
    expect((await first).body.status).toBe('sent');
    expect((await send(stepId)).body.status).toBe('sent');
    expect(smtp.messages).toHaveLength(1);
  });

  it('retries a send left unfinished by a crash with the same Message-ID once the claim is stale', async () => {
    const conn = await addConnection(w.engine, w.company, { name: 'AR', port: smtp.port, allowShared: true, fromEmail: 'ar@acme.test' });
    const { stepId } = await readyStep({ sender: conn });
    // The state a crash between the claim and the outcome leaves behind.
    await w.engine.db
      .updateTable('scheduled_steps')
      .set({ send_started_at: '2026-11-23T11:00:00.000Z', message_id: `<seq.${stepId}@acme.test>` })
      .where('id', '=', stepId)
      .execute();
    w.engine.clock.set('2026-11-23T11:03:00.000Z');
    expect((await send(stepId)).status).toBe(409);
    w.engine.clock.set('2026-11-23T12:00:00.000Z');
    const res = await send(stepId);
    expect(res.body.status).toBe('sent');
    expect(smtp.messages.map((m) => m.messageId)).toEqual([`<seq.${stepId}@acme.test>`]);
  });
});
