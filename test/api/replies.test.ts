/**
 * Customers' replies against real servers on loopback: Dovecot for IMAP (messages put in with an
 * IMAP APPEND) and the SMTP fixture for what we send. The worker runs the reading jobs.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { coreJobHandlers } from '../../core/runtime/job-handlers';
import { createWorker } from '../../core/jobs/worker';
import { queueScheduledReplyReads } from '../../core/replies/sync';
import { listen } from '../support/http';
import { type ImapServer, startImap } from '../support/imap';
import { activeSequence, addCustomer, addInvoice, closedPort, type SequenceWorld, sequenceWorld } from '../support/sequence-fixtures';
import { type SmtpServer, startSmtp } from '../support/smtp';

const STEPS = [
  { label: 'First reminder', offset_time: '00:00', subject_template: 'Invoice {{invoice_number}} is overdue', body_plain_template: 'Hello {{contact_name}}, please pay.' },
  { label: 'Second reminder', offset_days: 3, subject_template: 'Still open', body_plain_template: 'Reminder' },
  { label: 'Call them', step_type: 'call', offset_days: 5 },
];

function mail(lines: string[]): string {
  return `${lines.join('\n')}\n`;
}

describe("customers' replies over IMAP", () => {
  let w: SequenceWorld;
  let imap: ImapServer;
  let smtp: SmtpServer;
  // Each test reads its own mailbox of the one server, so no test sees another's messages.
  let mailbox = '';
  let boxes = 0;
  beforeAll(async () => {
    w = await sequenceWorld();
    imap = await startImap();
    smtp = await startSmtp();
  });
  beforeEach(async () => {
    await w.fresh('2026-11-23T12:00:00.000Z');
    mailbox = `Box${++boxes}`;
    await imap.create(mailbox);
  });
  afterAll(async () => {
    await imap?.stop();
    await smtp?.close();
    await w?.dispose();
  });

  async function connection(overrides: Record<string, unknown> = {}) {
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
      ...overrides,
    });
    if (res.status !== 201) throw new Error(`connection: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.id as string;
  }

  /** A customer enrolled in a sequence whose first email went out; returns its Message-ID. */
  async function chased(name: string, email: string, sender: string) {
    const customer = await addCustomer(w.engine, w.company, { name, email, contactName: 'Pat Payables' });
    const invoice = await addInvoice(w.engine, w.company, customer, { number: `${name.slice(0, 3).toUpperCase()}-77`, total: 125_000, dueDate: '2026-10-01' });
    const seq = await activeSequence(w, `Dunning ${name}`, STEPS, { sender_connection_id: sender });
    const enrolled = await w.api('POST', w.path('/sequence-enrollments'), { sequence_id: seq.id, customer_id: customer, start_date: '2026-11-23' });
    const ready = (await w.api('GET', w.path(`/sequences/queue?customer_id=${customer}`))).body.data;
    const sent = await w.api('POST', w.path(`/sequences/queue/${ready[0].id}/send`));
    expect(sent.body.status).toBe('sent');
    return { customer, invoice, enrollment: enrolled.body.enrollment.id as string, messageId: sent.body.message_id as string, subject: sent.body.email_subject as string };
  }

  /** Asks for a reading through the API, runs the worker, and returns the job as the API shows it. */
  async function readReplies(connectionId: string) {
    const queued = await w.api('POST', w.path(`/email-connections/${connectionId}/sync-replies`));
    expect(queued.status).toBe(202);
    await createWorker(w.engine, { handlers: coreJobHandlers() }).runDueJobs();
    const job = await w.api('GET', w.path(`/jobs/${queued.body.job_id}`));
    expect(job.status).toBe(200);
    return job.body;
  }

  const inbound = () => w.api('GET', w.path('/communications?direction=inbound'));

  it('threads a reply to its invoice, keeps its text and attachment names, and pauses the sequence until answered; reading again adds nothing', async () => {
    const sender = await connection();
    const acme = await chased('Acme Corp', 'billing@acmecorp.test', sender);
    w.engine.clock.set('2026-11-23T14:00:00.000Z');
    await imap.append(
      mail([
        'From: Pat Payables <Billing@AcmeCorp.test>',
        'To: ar@acme-supply.test',
        `Subject: Re: ${acme.subject}`,
        'Date: Mon, 23 Nov 2026 13:30:00 +0000',
        'Message-ID: <reply-1@acmecorp.test>',
        `In-Reply-To: ${acme.messageId}`,
        `References: ${acme.messageId}`,
        'MIME-Version: 1.0',
        'Content-Type: multipart/mixed; boundary="b1"',
        '',
        '--b1',
        'Content-Type: text/html; charset=utf-8',
        '',
        '<html><body><p>We paid <b>half</b> today.</p><script>alert("x")</script><p>Rest next week.</p></body></html>',
        '--b1',
        'Content-Type: application/pdf; name="remittance.pdf"',
        'Content-Disposition: attachment; filename="remittance.pdf"',
        'Content-Transfer-Encoding: base64',
        '',
        Buffer.from('%PDF-1.4 fake remittance advice').toString('base64'),
        '--b1--',
      ]),
      mailbox,
    );
    const job = await readReplies(sender);
    expect(job).toMatchObject({ kind: 'email_reply_sync', status: 'succeeded', last_error: null });
    expect(job.result).toMatchObject({ mailbox, read: 1, replies: 1, auto_replies: 0, bounces: 0, unmatched: 0, enrollments_paused: 1, uid_validity_changed: false });

    const [reply] = (await inbound()).body.data;
    expect(reply).toMatchObject({
      customer: acme.customer,
      invoice: acme.invoice,
      kind: 'email',
      direction: 'inbound',
      subject: `Re: ${acme.subject}`,
      from_email: 'billing@acmecorp.test',
      author_name: 'Pat Payables',
      occurred_at: '2026-11-23T13:30:00.000Z',
      email_connection_id: sender,
      attachments: [{ name: 'remittance.pdf', size: 31 }],
    });
    expect(reply.body).toContain('We paid half today.');
    expect(reply.body).toContain('Rest next week.');
    expect(reply.body).not.toMatch(/<|alert/);

    // "We paid half today. Rest next week." commits to nothing in so many words: no promise is
    // recorded, and the reply holds the chase until someone answers it.
    expect(reply.reading).toMatchObject({ kind: 'none', promise_date: null, automatic: true });
    const enrollment = (await w.api('GET', w.path(`/sequence-enrollments/${acme.enrollment}`))).body;
    expect(enrollment).toMatchObject({ status: 'active', stop_reason: null, pause_kind: 'reply', pause_reason: 'Paused: Acme Corp replied on Nov 23 and nobody has answered yet' });
    expect(enrollment.scheduled_steps.map((s: { step_label: string; status: string; hold_reason: string | null; replied_at: string | null }) => [s.step_label, s.status, s.hold_reason, s.replied_at])).toEqual([
      ['First reminder', 'sent', null, '2026-11-23T13:30:00.000Z'],
      ['Second reminder', 'scheduled', 'paused', '2026-11-23T13:30:00.000Z'],
      ['Call them', 'scheduled', 'paused', '2026-11-23T13:30:00.000Z'],
    ]);
    const activity = (await w.api('GET', w.path(`/invoices/${acme.invoice}/activity`))).body.data;
    expect(activity[0]).toMatchObject({ kind: 'communication', type: 'email', direction: 'inbound', title: `Re: ${acme.subject}`, by: 'Pat Payables' });
    expect((await w.api('GET', w.path(`/customers/${acme.customer}`))).body.last_reply_at).toBe('2026-11-23T13:30:00.000Z');
    const connectionNow = (await w.api('GET', w.path(`/email-connections/${sender}`))).body;
    expect(connectionNow).toMatchObject({ replies_checked_at: '2026-11-23T14:00:00.000Z', replies_error: null, has_imap_password: true });
    expect(JSON.stringify(connectionNow)).not.toContain(imap.password);

    const again = await readReplies(sender);
    expect(again.result).toMatchObject({ read: 0, replies: 0 });
    expect((await inbound()).body.count).toBe(1);
  });

  it('an out-of-office does not count as a reply; a bounce marks the address failing; a stranger is ignored', async () => {
    const sender = await connection();
    const globex = await chased('Globex', 'ap@globex.test', sender);
    w.engine.clock.set('2026-11-23T14:00:00.000Z');
    const auto = (headers: string[], subject: string) =>
      mail(['From: ap@globex.test', 'To: ar@acme-supply.test', `Subject: ${subject}`, 'Date: Mon, 23 Nov 2026 13:00:00 +0000', `In-Reply-To: ${globex.messageId}`, ...headers, '', 'I am away until Monday.']);
    await imap.append(auto(['Message-ID: <ooo-1@globex.test>', 'Auto-Submitted: auto-replied'], `Re: ${globex.subject}`), mailbox);
    await imap.append(auto(['Message-ID: <ooo-2@globex.test>'], `Automatic reply: ${globex.subject}`), mailbox);
    await imap.append(auto(['Message-ID: <ooo-3@globex.test>', 'X-Autoreply: yes'], 'Away'), mailbox);
    await imap.append(
      mail([
        'From: Mail Delivery System <MAILER-DAEMON@mx.globex.test>',
        'To: ar@acme-supply.test',
        'Subject: Undelivered Mail Returned to Sender',
        'Message-ID: <bounce-1@mx.globex.test>',
        'Date: Mon, 23 Nov 2026 13:10:00 +0000',
        'MIME-Version: 1.0',
        'Content-Type: multipart/report; report-type=delivery-status; boundary="r1"',
        '',
        '--r1',
        'Content-Type: text/plain',
        '',
        'Your message could not be delivered.',
        '--r1',
        'Content-Type: message/delivery-status',
        '',
        'Reporting-MTA: dns; mx.globex.test',
        '',
        'Final-Recipient: rfc822; ap@globex.test',
        'Action: failed',
        'Status: 5.1.1',
        'Diagnostic-Code: smtp; 550 5.1.1 <ap@globex.test>: Recipient address rejected: User unknown',
        '--r1--',
      ]),
      mailbox,
    );
    await imap.append(mail(['From: someone@elsewhere.test', 'To: ar@acme-supply.test', 'Subject: Lunch?', 'Message-ID: <lunch@elsewhere.test>', '', 'Are you free?']), mailbox);

    const job = await readReplies(sender);
    expect(job.result).toMatchObject({ read: 5, replies: 0, auto_replies: 3, bounces: 1, unmatched: 1, enrollments_paused: 0 });
    expect((await inbound()).body.count).toBe(0);
    expect((await w.api('GET', w.path(`/sequence-enrollments/${globex.enrollment}`))).body).toMatchObject({ status: 'active', stop_reason: null, pause_kind: null });
    const contact = (await w.api('GET', w.path(`/customers/${globex.customer}`))).body.contacts[0];
    expect(contact).toMatchObject({ email: 'ap@globex.test', email_failing: true, email_failed_at: '2026-11-23T13:10:00.000Z' });
    expect(contact.email_failure).toContain('User unknown');

    // A new address is no longer known to fail.
    const patched = await w.api('PATCH', w.path(`/customers/${globex.customer}`), { contacts: [{ id: contact.id, name: contact.name, email: 'payables@globex.test', is_billing: true }] });
    expect(patched.status).toBe(200);
    expect(patched.body.contacts[0]).toMatchObject({ email: 'payables@globex.test', email_failing: false, email_failure: null });
  });

  it("a message without threading headers matches the customer by the sender's address, and the invoice its subject names", async () => {
    const sender = await connection();
    const umbrella = await addCustomer(w.engine, w.company, { name: 'Umbrella', email: 'ap@umbrella.test' });
    await addInvoice(w.engine, w.company, umbrella, { number: 'UMB-1', total: 10_000, dueDate: '2026-09-01' });
    const named = await addInvoice(w.engine, w.company, umbrella, { number: 'UMB-2', total: 20_000, dueDate: '2026-10-01' });
    await imap.append(mail(['From: AP@umbrella.test', 'To: ar@acme-supply.test', 'Subject: Question about UMB-2', 'Message-ID: <q@umbrella.test>', '', 'Which PO is this?']), mailbox);
    const job = await readReplies(sender);
    expect(job.result).toMatchObject({ replies: 1, unmatched: 0 });
    expect((await inbound()).body.data[0]).toMatchObject({ customer: umbrella, invoice: named, body: 'Which PO is this?', attachments: [] });
  });

  it('the schedule queues one reading per active IMAP connection per interval', async () => {
    const reading = await connection();
    await connection({ name: 'No IMAP', imap_host: null });
    await connection({ name: 'Off', is_active: false });
    const pending = () => w.engine.db.selectFrom('jobs').select('subject_id').where('kind', '=', 'email_reply_sync').where('company_id', '=', w.company).where('status', '=', 'queued').execute();
    await queueScheduledReplyReads(w.engine);
    await queueScheduledReplyReads(w.engine);
    expect(await pending()).toEqual([{ subject_id: reading }]);
    await createWorker(w.engine, { handlers: coreJobHandlers() }).runDueJobs();
    await queueScheduledReplyReads(w.engine);
    expect(await pending()).toEqual([]);
    w.engine.clock.set('2026-11-23T12:05:00.000Z');
    await queueScheduledReplyReads(w.engine);
    expect(await pending()).toEqual([{ subject_id: reading }]);
    // A shorter interval (--reply-minutes 1) has slots of its own length.
    await createWorker(w.engine, { handlers: coreJobHandlers() }).runDueJobs();
    w.engine.clock.set('2026-11-23T12:06:00.000Z');
    await queueScheduledReplyReads(w.engine);
    expect(await pending()).toEqual([]);
    await queueScheduledReplyReads(w.engine, 60_000);
    expect(await pending()).toEqual([{ subject_id: reading }]);
  });

  it('the running service reads each mailbox once at start, or only on request when its interval is 0 (--reply-minutes 0)', async () => {
    const reading = await connection();
    const readings = () => w.engine.db.selectFrom('jobs').select('subject_id').where('kind', '=', 'email_reply_sync').where('company_id', '=', w.company).execute();
    const onRequestOnly = await listen(w.engine, { replyReadIntervalMs: 0 });
    await onRequestOnly.stop();
    expect(await readings()).toEqual([]);
    const scheduled = await listen(w.engine);
    await scheduled.stop();
    expect(await readings()).toEqual([{ subject_id: reading }]);
  });

  it('a changed UIDVALIDITY reads the mailbox again without recording anything twice', async () => {
      const sender = await connection();
      const initech = await chased('Initech', 'ap@initech.test', sender);
      const reply = (id: string, text: string) =>
        mail([`From: ap@initech.test`, 'To: ar@acme-supply.test', `Subject: Re: ${initech.subject}`, `Message-ID: <${id}@initech.test>`, `In-Reply-To: ${initech.messageId}`, 'Date: Mon, 23 Nov 2026 12:30:00 +0000', '', text]);
      await imap.append(reply('r1', 'Paid.'), mailbox);
      const first = await readReplies(sender);
      expect(first.result).toMatchObject({ mailbox, replies: 1, uid_validity_changed: false });
      const before = first.result.uid_validity;

      await imap.recreate(mailbox);
      expect(await imap.uidValidity(mailbox)).not.toBe(before);
      await imap.append(reply('r1', 'Paid.'), mailbox);
      await imap.append(reply('r2', 'And the receipt is attached.'), mailbox);
      const second = await readReplies(sender);
      expect(second.result).toMatchObject({ uid_validity_changed: true, read: 2, replies: 1, duplicates: 1 });
      expect(second.result.uid_validity).not.toBe(before);
      const texts = (await inbound()).body.data.map((c: { body: string }) => c.body).sort();
      expect(texts).toEqual(['And the receipt is attached.', 'Paid.']);
      const third = await readReplies(sender);
      expect(third.result).toMatchObject({ uid_validity_changed: false, read: 0 });
  });

  it('a wrong IMAP password is a clear error on the connection, in the test endpoint and on the job', async () => {
    const sender = await connection({ imap_password: 'not-the-password' });
    const check = await w.api('POST', w.path(`/email-connections/${sender}/test`));
    expect(check.status).toBe(200);
    expect(check.body.smtp).toMatchObject({ ok: true });
    expect(check.body.imap.ok).toBe(false);
    expect(check.body.imap.message).toMatch(/^The IMAP server refused the username or password/);

    const job = await readReplies(sender);
    expect(job.status).toBe('failed');
    expect(job.last_error).toMatch(/^The IMAP server refused the username or password/);
    const shown = (await w.api('GET', w.path(`/email-connections/${sender}`))).body;
    expect(shown.replies_error).toBe(job.last_error);
    expect(shown.replies_checked_at).toBeNull();

    const fixed = await w.api('PATCH', w.path(`/email-connections/${sender}`), { imap_password: imap.password });
    expect(fixed.status).toBe(200);
    expect((await w.api('POST', w.path(`/email-connections/${sender}/test`))).body.imap).toMatchObject({ ok: true });
    const retried = await readReplies(sender);
    expect(retried.last_error).toBeNull();
    expect(retried.status).toBe('succeeded');
    expect((await w.api('GET', w.path(`/email-connections/${sender}`))).body.replies_error).toBeNull();
  });

  it('the connection test says what failed in words for each server, and refuses what it cannot do', async () => {
    const nowhere = await closedPort();
    const broken = await connection({ smtp_port: nowhere, imap_port: nowhere });
    const check = await w.api('POST', w.path(`/email-connections/${broken}/test`));
    expect(check.body.smtp).toMatchObject({ ok: false, tls: null, message: `Nothing answers at 127.0.0.1:${nowhere}: the connection was refused (check the SMTP host and port)` });
    expect(check.body.imap).toMatchObject({ ok: false, tls: null, message: `Nothing answers at 127.0.0.1:${nowhere}: the connection was refused (check the IMAP host and port)` });

    const tls = await connection({ name: 'TLS', imap_secure: true });
    expect((await w.api('POST', w.path(`/email-connections/${tls}/test`))).body.imap.message).toMatch(/^The secure \(TLS\) connection to 127\.0\.0\.1:\d+ failed/);
    const noBox = await connection({ name: 'No box', imap_mailbox: 'Missing' });
    expect((await w.api('POST', w.path(`/email-connections/${noBox}/test`))).body.imap).toMatchObject({ ok: false, message: "The mailbox does not exist on the IMAP server" });

    const smtpOnly = await connection({ name: 'SMTP only', imap_host: null });
    const plain = await w.api('POST', w.path(`/email-connections/${smtpOnly}/test`));
    expect(plain.body).toEqual({ smtp: { ok: true, message: `Connected to 127.0.0.1:${smtp.port}`, tls: 'none', certificate: null, trusted_certificate: null, can_trust: false }, imap: null });
    const noImap = await w.api('POST', w.path(`/email-connections/${smtpOnly}/sync-replies`));
    expect(noImap.status).toBe(400);
    expect(noImap.body.code).toBe('no_imap');
    const off = await connection({ name: 'Off', is_active: false });
    expect((await w.api('POST', w.path(`/email-connections/${off}/sync-replies`))).body.code).toBe('connection_inactive');

    // Another company's connection and job are not found; a viewer cannot ask for a reading.
    expect((await w.api('POST', w.path(`/email-connections/${broken}/test`, w.other), undefined, w.tokens.carol)).status).toBe(404);
    expect((await w.api('POST', w.path(`/email-connections/${broken}/sync-replies`, w.other), undefined, w.tokens.carol)).status).toBe(404);
    expect((await w.api('POST', w.path(`/email-connections/${broken}/sync-replies`), undefined, w.tokens.vic)).status).toBe(403);
    const job = await w.api('POST', w.path(`/email-connections/${broken}/sync-replies`));
    const again = await w.api('POST', w.path(`/email-connections/${broken}/sync-replies`));
    expect(again.body).toEqual({ job_id: job.body.job_id, created: false });
    expect((await w.api('GET', w.path(`/jobs/${job.body.job_id}`, w.other), undefined, w.tokens.carol)).status).toBe(404);
  });
});
