/**
 * Answering a customer's email from the timeline, against real peers: the sequence's email goes
 * out over the SMTP fixture, the customer's reply is read from Dovecot over IMAP, and the answer
 * goes out with In-Reply-To and References. The thread is one in the customer page's threads and
 * in the IMAP mailbox (Dovecot's THREAD=REFERENCES over the three messages); the answer lifts the
 * reply's hold; the contact rule's answer is shown before sending and a send through it needs a reason.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createWorker } from '../../core/jobs/worker';
import { coreJobHandlers } from '../../core/runtime/job-handlers';
import { type ImapServer, startImap } from '../support/imap';
import { pdfText } from '../support/pdf';
import { fixture, insertCommunicationRow } from '../support/rows';
import { activeSequence, addCustomer, addInvoice, type SequenceWorld, sequenceWorld } from '../support/sequence-fixtures';
import { type SmtpServer, startSmtp } from '../support/smtp';

const STEPS = [
  { label: 'First reminder', offset_time: '00:00', subject_template: 'Invoice {{invoice_number}} is overdue', body_plain_template: 'Hello {{contact_name}}, please pay.' },
  { label: 'Second reminder', offset_days: 3, subject_template: 'Still open', body_plain_template: 'Reminder' },
];

/** One IMAP session's THREAD=REFERENCES answer for the mailbox (imapflow has no THREAD command). */
async function imapThreads(imap: ImapServer, mailbox: string): Promise<string> {
  const socket = connect(imap.port, imap.host);
  let buffer = '';
  const waitFor = (tag: string) =>
    new Promise<string>((resolve, reject) => {
      const check = () => {
        const done = new RegExp(`^${tag} (OK|NO|BAD).*$`, 'm').exec(buffer);
        if (!done) return;
        socket.off('data', onData);
        const out = buffer;
        buffer = '';
        if (done[1] === 'OK') resolve(out);
        else reject(new Error(out));
      };
      const onData = (chunk: Buffer) => {
        buffer += chunk.toString('utf8');
        check();
      };
      socket.on('data', onData);
      check();
    });
  await new Promise<void>((resolve) => socket.once('data', () => resolve()));
  buffer = '';
  socket.write(`a1 LOGIN ${imap.user} ${imap.password}\r\n`);
  await waitFor('a1');
  socket.write(`a2 SELECT ${mailbox}\r\n`);
  await waitFor('a2');
  socket.write('a3 UID THREAD REFERENCES UTF-8 ALL\r\n');
  const answer = await waitFor('a3');
  socket.end('a4 LOGOUT\r\n');
  return /^\* THREAD (.*)$/m.exec(answer)?.[1]?.trim() ?? '';
}

describe('answering a reply from the timeline', () => {
  let w: SequenceWorld;
  let imap: ImapServer;
  let smtp: SmtpServer;
  let mailbox = '';
  let boxes = 0;
  beforeAll(async () => {
    w = await sequenceWorld();
    imap = await startImap();
    smtp = await startSmtp();
  });
  beforeEach(async () => {
    await w.fresh('2026-11-23T12:00:00.000Z');
    smtp.messages.length = 0;
    mailbox = `Answer${++boxes}`;
    await imap.create(mailbox);
  });
  afterAll(async () => {
    await imap?.stop();
    await smtp?.close();
    await w?.dispose();
  });

  async function connection() {
    const res = await w.api('POST', w.path('/email-connections'), {
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
    expect(res.status).toBe(201);
    return res.body.id as string;
  }

  /** Dover is chased: the sequence's first email goes out, and Dover answers it; the reply is read over IMAP. */
  async function doverReplied() {
    const sender = await connection();
    const customer = await addCustomer(w.engine, w.company, { name: 'Dover Mills', email: 'ap@dovermills.test' });
    const invoice = await addInvoice(w.engine, w.company, customer, { number: 'DOV-1', total: 125_000, dueDate: '2026-10-01' });
    const seq = await activeSequence(w, 'Dunning', STEPS, { sender_connection_id: sender });
    const enrolled = await w.api('POST', w.path('/sequence-enrollments'), { sequence_id: seq.id, customer_id: customer, start_date: '2026-11-23' });
    const ready = (await w.api('GET', w.path(`/sequences/queue?customer_id=${customer}`))).body.data;
    const sent = await w.api('POST', w.path(`/sequences/queue/${ready[0].id}/send`));
    expect(sent.body.status).toBe('sent');
    const ours = smtp.messages[0];
    await imap.append(ours.raw, mailbox);
    w.engine.clock.set('2026-11-23T14:00:00.000Z');
    const reply = [
      'From: Pat Payables <ap@dovermills.test>',
      'To: ar@acme-supply.test',
      `Subject: Re: ${ours.subject}`,
      'Date: Mon, 23 Nov 2026 13:30:00 +0000',
      'Message-ID: <r-1@dovermills.test>',
      `In-Reply-To: ${ours.messageId}`,
      `References: ${ours.messageId}`,
      '',
      'Could you send us a copy of the invoice? Our AP system lost it.',
    ].join('\r\n');
    await imap.append(`${reply}\r\n`, mailbox);
    const queued = await w.api('POST', w.path(`/email-connections/${sender}/sync-replies`));
    await createWorker(w.engine, { handlers: coreJobHandlers() }).runDueJobs();
    expect((await w.api('GET', w.path(`/jobs/${queued.body.job_id}`))).body.result).toMatchObject({ replies: 1 });
    const threads = (await w.api('GET', w.path(`/email-threads?customer_id=${customer}`))).body.data;
    const inbound = threads[0].messages.find((m: { direction: string }) => m.direction === 'inbound');
    return { customer, invoice, enrollment: enrolled.body.enrollment.id as string, ours, inbound: inbound.id as string };
  }

  it('sends the answer in the thread (In-Reply-To, References, the invoice PDF), lifts the reply hold, and the mailbox threads all three as one', async () => {
    const dover = await doverReplied();
    const pausedBefore = (await w.api('GET', w.path(`/sequences/queue?category=paused&customer_id=${dover.customer}`))).body.data;
    expect(pausedBefore.map((r: { pause_kind: string }) => r.pause_kind)).toEqual(['reply']);

    // The draft: who, from where, the thread headers, and the rule's answer: the sequence emailed Dover today.
    const draft = await w.api('GET', w.path(`/communications/${dover.inbound}/reply`));
    expect(draft.status).toBe(200);
    expect(draft.body).toMatchObject({
      to: 'ap@dovermills.test',
      from: 'ar@acme-supply.test',
      subject: `Re: ${dover.ours.subject}`,
      in_reply_to: '<r-1@dovermills.test>',
      references: [dover.ours.messageId, '<r-1@dovermills.test>'],
      invoice_number: 'DOV-1',
      attach_options: ['invoice_pdf', 'statement'],
      contact: { allowed: false, reason: 'Held: Dover Mills already got an email from us today (one a day).' },
    });
    expect(draft.body.contact.held.map((h: { kind: string }) => h.kind)).toEqual(['daily_cap']);

    // Without a reason the rule holds it, and nothing goes out or is recorded.
    const refused = await w.api('POST', w.path(`/communications/${dover.inbound}/reply`), { body: 'Attached.', attach: ['invoice_pdf'] });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'contact_held', detail: 'Held: Dover Mills already got an email from us today (one a day).' });
    expect(smtp.messages).toHaveLength(1);

    const answer = await w.api('POST', w.path(`/communications/${dover.inbound}/reply`), { body: 'Here is the copy you asked for.', attach: ['invoice_pdf'], override_reason: 'They asked for the copy' });
    expect(answer.status).toBe(201);
    const [, sent] = await smtp.waitFor(2);
    expect(sent.to).toEqual(['ap@dovermills.test']);
    expect(sent.headers['in-reply-to']).toBe('<r-1@dovermills.test>');
    expect(sent.headers.references.split(/\s+/)).toEqual([dover.ours.messageId, '<r-1@dovermills.test>']);
    expect(sent.subject).toBe(`Re: ${dover.ours.subject}`);
    expect(sent.text.trim()).toBe('Here is the copy you asked for.');
    const { simpleParser } = await import('mailparser');
    const parsed = await simpleParser(sent.raw);
    expect(parsed.attachments.map((a) => a.filename)).toEqual(['Invoice-DOV-1.pdf']);
    expect(pdfText(parsed.attachments[0].content)).toContain('DOV-1');
    expect(answer.body).toMatchObject({ direction: 'outbound', kind: 'email', invoice_number: 'DOV-1', thread_id: dover.ours.messageId, attachments: [{ name: 'Invoice-DOV-1.pdf' }] });

    // One thread on the customer page and the invoice panel, in order: ours, theirs, our answer.
    for (const query of [`customer_id=${dover.customer}`, `invoice_id=${dover.invoice}`]) {
      const threads = (await w.api('GET', w.path(`/email-threads?${query}`))).body.data;
      expect(threads.map((t: { messages: Array<{ direction: string }> }) => t.messages.map((m) => m.direction))).toEqual([['outbound', 'inbound', 'outbound']]);
    }

    // The reply is answered: the sequence no longer waits on it.
    expect((await w.api('GET', w.path(`/sequences/queue?category=paused&customer_id=${dover.customer}`))).body.count).toBe(0);
    const enrollment = (await w.api('GET', w.path(`/sequence-enrollments/${dover.enrollment}`))).body;
    expect(enrollment.pause_kind ?? null).toBeNull();

    // The customer's mail client sees one conversation: Dovecot threads the three messages as one.
    await imap.append(sent.raw, mailbox);
    expect(await imapThreads(imap, mailbox)).toBe('(1 2 3)');
  });

  it('refuses what cannot be answered, with nothing sent', async () => {
    const dover = await doverReplied();
    const ours = (await w.api('GET', w.path(`/email-threads?customer_id=${dover.customer}`))).body.data[0].messages[0];
    const notReply = await w.api('POST', w.path(`/communications/${ours.id}/reply`), { body: 'Hello' });
    expect(notReply.status).toBe(409);
    expect(notReply.body.code).toBe('not_a_reply');
    const blank = await w.api('POST', w.path(`/communications/${dover.inbound}/reply`), { body: '   ', override_reason: 'x' });
    expect(blank.status).toBe(400);
    expect((await w.api('GET', w.path('/email-threads'))).status).toBe(400);
    const other = await w.api('GET', `/api/companies/${w.other}/communications/${dover.inbound}/reply`);
    expect([403, 404]).toContain(other.status);
    expect(smtp.messages).toHaveLength(1);
    // A reply recorded without its sender's address (an import, the demo) is answered to the billing contact.
    const anonymous = await fixture(w.engine, w.company, (tx) =>
      insertCommunicationRow(tx, w.company, { customer_id: dover.customer, kind: 'email', direction: 'inbound', subject: 'Re: statement', body: 'Where is it?', occurred_at: '2026-11-23T13:45:00.000Z', message_id: '<r-2@dovermills.test>' }),
    );
    expect((await w.api('GET', w.path(`/communications/${anonymous}/reply`))).body).toMatchObject({ to: 'ap@dovermills.test', in_reply_to: '<r-2@dovermills.test>', attach_options: ['statement'] });
  });
});
