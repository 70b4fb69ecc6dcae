/**
 * A customer's reply, read from a real mailbox (Dovecot over IMAP, the sent step over the SMTP
 * fixture), holds the whole chase of that customer: their sequence pauses and the Queue lists the
 * paused step with the reason in words, and their reminders are held too (the invoice's reminder
 * preview warns, the bulk dialog leaves the invoice out), while an out-of-office holds nothing.
 * Marking the reply handled (Resume) ends both.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createWorker } from '../../core/jobs/worker';
import { coreJobHandlers } from '../../core/runtime/job-handlers';
import { type ImapServer, startImap } from '../support/imap';
import { activeSequence, addCustomer, addInvoice, type SequenceWorld, sequenceWorld } from '../support/sequence-fixtures';
import { type SmtpServer, startSmtp } from '../support/smtp';

const STEPS = [
  { label: 'First reminder', offset_time: '00:00', subject_template: 'Invoice {{invoice_number}} is overdue', body_plain_template: 'Hello {{contact_name}}, please pay.' },
  { label: 'Second reminder', offset_days: 3, subject_template: 'Still open', body_plain_template: 'Reminder' },
];

describe('a reply holds the reminders as well as the sequence', () => {
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
    mailbox = `Held${++boxes}`;
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

  /** A customer enrolled in a sequence whose first email went out over SMTP. */
  async function chased(name: string, email: string, number: string, sender: string) {
    const customer = await addCustomer(w.engine, w.company, { name, email });
    const invoice = await addInvoice(w.engine, w.company, customer, { number, total: 125_000, dueDate: '2026-10-01' });
    const seq = await activeSequence(w, `Dunning ${name}`, STEPS, { sender_connection_id: sender });
    const enrolled = await w.api('POST', w.path('/sequence-enrollments'), { sequence_id: seq.id, customer_id: customer, start_date: '2026-11-23' });
    const ready = (await w.api('GET', w.path(`/sequences/queue?customer_id=${customer}`))).body.data;
    const sent = await w.api('POST', w.path(`/sequences/queue/${ready[0].id}/send`));
    expect(sent.body.status).toBe('sent');
    return { customer, invoice, enrollment: enrolled.body.enrollment.id as string, messageId: sent.body.message_id as string, subject: sent.body.email_subject as string };
  }

  const reply = (from: string, to: { messageId: string; subject: string }, id: string, headers: string[], body: string) =>
    `${[`From: ${from}`, 'To: ar@acme-supply.test', `Subject: Re: ${to.subject}`, 'Date: Mon, 23 Nov 2026 13:30:00 +0000', `Message-ID: <${id}>`, `In-Reply-To: ${to.messageId}`, ...headers, '', body].join('\n')}\n`;

  const reminderWarnings = async (invoice: string) => (await w.api('GET', w.path(`/invoices/${invoice}/reminder-preview`))).body.warnings.filter((x: { kind: string }) => x.kind === 'reply_unanswered');

  it('pauses the sequence (the Queue says why) and holds the reminders of the customer who replied, not of one whose out-of-office came back; Resume ends both', async () => {
    const sender = await connection();
    const dover = await chased('Dover Mills', 'ap@dovermills.test', 'DOV-1', sender);
    const globex = await chased('Globex', 'ap@globex.test', 'GLX-1', sender);
    expect(smtp.messages).toHaveLength(2);
    w.engine.clock.set('2026-11-23T14:00:00.000Z');
    await imap.append(reply('Pat Payables <ap@dovermills.test>', dover, 'r-1@dovermills.test', [], 'Who approved this order? We are checking with purchasing.'), mailbox);
    await imap.append(reply('ap@globex.test', globex, 'ooo-1@globex.test', ['Auto-Submitted: auto-replied'], 'I am away until Monday.'), mailbox);
    const queued = await w.api('POST', w.path(`/email-connections/${sender}/sync-replies`));
    expect(queued.status).toBe(202);
    await createWorker(w.engine, { handlers: coreJobHandlers() }).runDueJobs();
    expect((await w.api('GET', w.path(`/jobs/${queued.body.job_id}`))).body.result).toMatchObject({ replies: 1, auto_replies: 1, enrollments_paused: 1 });

    // The sequence: paused, listed under Paused with the reason in words, never under Today or Upcoming.
    const words = 'Paused: Dover Mills replied on Nov 23 and nobody has answered yet';
    const paused = (await w.api('GET', w.path(`/sequences/queue?category=paused&customer_id=${dover.customer}`))).body.data;
    expect(paused.map((r: Record<string, unknown>) => [r.step_label, r.hold_reason, r.pause_kind, r.pause_reason])).toEqual([['Second reminder', 'paused', 'reply', words]]);
    for (const category of ['ready', 'upcoming']) expect((await w.api('GET', w.path(`/sequences/queue?category=${category}&customer_id=${dover.customer}`))).body.count).toBe(0);

    // The reminders, the next morning (the sequence emailed both customers today: one email a day):
    // the invoice's preview warns, and a bulk reminder leaves it out by default; Globex's out-of-office holds nothing.
    w.engine.clock.set('2026-11-24T09:00:00.000Z');
    expect(await reminderWarnings(dover.invoice)).toEqual([{ kind: 'reply_unanswered', message: 'Dover Mills replied on Nov 23 and nobody has answered yet.' }]);
    expect(await reminderWarnings(globex.invoice)).toEqual([]);
    const bulk = await w.api('POST', w.path('/invoices/bulk/reminder-preview'), { invoice_ids: [dover.invoice, globex.invoice] });
    expect(bulk.body.data.map((d: { invoice_number: string; held: boolean }) => [d.invoice_number, d.held])).toEqual([
      ['DOV-1', true],
      ['GLX-1', false],
    ]);
    expect((await w.api('GET', w.path(`/sequences/queue?category=paused&customer_id=${globex.customer}`))).body.count).toBe(0);

    // The collector read it and resumes: the reply is handled, so neither the sequence nor a reminder waits on it.
    const resumed = await w.api('POST', w.path(`/sequence-enrollments/${dover.enrollment}/resume`));
    expect(resumed.body).toMatchObject({ pause_kind: null, pause_reason: null });
    expect(await reminderWarnings(dover.invoice)).toEqual([]);
    expect((await w.api('POST', w.path('/invoices/bulk/reminder-preview'), { invoice_ids: [dover.invoice] })).body.data[0].held).toBe(false);
    expect((await w.api('GET', w.path(`/sequences/queue?category=paused&customer_id=${dover.customer}`))).body.count).toBe(0);
  });
});
