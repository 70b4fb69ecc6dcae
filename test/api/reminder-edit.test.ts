/**
 * A manual reminder's text edited in its preview (issue 22): the edited subject and body reach the
 * real SMTP server on loopback as written (the body as plain text only), the attachments still go,
 * and the customer's timeline keeps the text that was sent. Edited text is for one invoice: with
 * two ids it is refused with problem+json naming the field, and nothing is queued.
 */
import { simpleParser } from 'mailparser';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { coreJobHandlers } from '../../core/runtime/job-handlers';
import { createWorker } from '../../core/jobs/worker';
import { call, useApiWorkspace } from '../support/api';
import { addBillingCustomer, addReminderInvoice, addSmtpConnection } from '../support/reminders-fixtures';
import { type SmtpServer, startSmtp } from '../support/smtp';

describe('a reminder edited in its preview (extension)', () => {
  const w = useApiWorkspace();
  let smtp: SmtpServer;

  beforeEach(async () => {
    smtp = await startSmtp();
    await addSmtpConnection(w.engine, w.company, smtp);
  });
  afterEach(() => smtp.close());

  const runJobs = () => createWorker(w.engine, { handlers: coreJobHandlers() }).runDueJobs();
  const send = (body: unknown) => call(w.app, 'POST', `${w.base}/invoices/bulk/send-reminders`, { token: w.tokens.demo, body });
  const jobCount = async () => (await w.engine.db.selectFrom('jobs').select('id').where('company_id', '=', w.company).execute()).length;

  it('sends the edited subject and body as written, with the attachments, and the timeline keeps them', async () => {
    const customer = await addBillingCustomer(w.engine, w.company, 'Κόσμος Trading', 'ap@kosmos.example');
    const invoice = await addReminderInvoice(w.engine, w.company, customer, { number: 'ED-1001', total: 1_234_500, dueDate: '2026-10-31' });
    const preview = (await call(w.app, 'GET', `${w.base}/invoices/${invoice}/reminder-preview`, { token: w.tokens.demo })).body;
    const subject = 'Invoice ED-1001: a word from Ana — 12 345 €';
    const body = `${preview.email.text.replace(/^Hello .*,/, 'Dear Pat,')}\nP.S. We agreed on Friday: <b>not</b> HTML.\n`;

    const queued = await send({ invoice_ids: [invoice], attach: ['invoice_pdf'], subject, body });
    expect(queued.status).toBe(200);
    expect(queued.body.message).toBe('1 reminder queued.');

    expect((await runJobs()).map((r) => r.status)).toEqual(['succeeded']);
    expect(smtp.messages).toHaveLength(1);
    const parsed = await simpleParser(smtp.messages[0].raw);
    expect(parsed.subject).toBe(subject);
    expect(parsed.text).toBe(body);
    // The template's HTML part would still say the template's words: an edited body goes alone.
    expect(parsed.html).toBe(false);
    expect(parsed.attachments.map((a) => a.filename)).toEqual(['Invoice-ED-1001.pdf']);

    const timeline = await call(w.app, 'GET', `${w.base}/communications?customer_id=${customer}`, { token: w.tokens.demo });
    expect(timeline.body.data).toHaveLength(1);
    expect(timeline.body.data[0]).toMatchObject({ kind: 'email', direction: 'outbound', invoice, subject, body });
  });

  it('keeps the template for what was not edited: a new subject alone leaves the body and its HTML', async () => {
    const customer = await addBillingCustomer(w.engine, w.company, 'Plain Co', 'ap@plain.example');
    const invoice = await addReminderInvoice(w.engine, w.company, customer, { number: 'ED-2' });
    const preview = (await call(w.app, 'GET', `${w.base}/invoices/${invoice}/reminder-preview`, { token: w.tokens.demo })).body;

    expect((await send({ invoice_ids: [invoice], subject: 'About invoice ED-2' })).status).toBe(200);
    await runJobs();
    const parsed = await simpleParser(smtp.messages[0].raw);
    expect(parsed.subject).toBe('About invoice ED-2');
    expect(parsed.text?.trim()).toBe(preview.email.text.trim());
    expect(parsed.html).toContain('ED-2');
  });

  it('refuses edited text with two invoices, or blank, multi-line or too long, naming the field and queuing nothing', async () => {
    const customer = await addBillingCustomer(w.engine, w.company, 'Twin Co', 'ap@twin.example');
    const a = await addReminderInvoice(w.engine, w.company, customer, { number: 'ED-3' });
    const b = await addReminderInvoice(w.engine, w.company, customer, { number: 'ED-4' });
    const bad: Array<[unknown, string]> = [
      [{ invoice_ids: [a, b], subject: 'One for both' }, 'subject'],
      [{ invoice_ids: [a, b], body: 'One for both' }, 'body'],
      [{ invoice_ids: [a], subject: '   ' }, 'subject'],
      [{ invoice_ids: [a], subject: 'Line one\r\nBcc: x@evil.example' }, 'subject'],
      [{ invoice_ids: [a], subject: 's'.repeat(301) }, 'subject'],
      [{ invoice_ids: [a], body: 'b'.repeat(20_001) }, 'body'],
      [{ invoice_ids: [a], body: 'nul \u0000 byte' }, 'body'],
    ];
    for (const [request, field] of bad) {
      const res = await send(request);
      expect(res.status, JSON.stringify(request).slice(0, 80)).toBe(400);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(Object.keys(res.body.errors)).toEqual([field]);
    }
    expect(await jobCount()).toBe(0);
    // The same two invoices without edited text are queued as before.
    expect((await send({ invoice_ids: [a, b] })).status).toBe(200);
    expect(await jobCount()).toBe(2);
  });
});
