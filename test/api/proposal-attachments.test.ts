/**
 * The engine's email proposals carry their documents (issue 26): a firm reminder "with the invoice
 * attached" asks for the invoice PDF and a statement email for the statement (metadata.attach), so
 * approving the proposal as it is sends them, made at send time, to the real SMTP server on loopback.
 */
import { simpleParser } from 'mailparser';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { coreJobHandlers } from '../../core/runtime/job-handlers';
import { createWorker } from '../../core/jobs/worker';
import { call, useApiWorkspace } from '../support/api';
import { pdfText } from '../support/pdf';
import { addBillingCustomer, addReminderInvoice, addSmtpConnection } from '../support/reminders-fixtures';
import { type SmtpServer, startSmtp } from '../support/smtp';

interface ActionRow {
  id: string;
  action_type: string;
  description: string;
  metadata: Record<string, unknown>;
}

describe('engine proposals with documents attached (extension)', () => {
  const w = useApiWorkspace();
  let smtp: SmtpServer;
  beforeEach(async () => {
    smtp = await startSmtp();
    await addSmtpConnection(w.engine, w.company, smtp);
  });
  afterEach(() => smtp.close());

  const runJobs = () => createWorker(w.engine, { handlers: coreJobHandlers() }).runDueJobs();

  async function refresh(): Promise<void> {
    expect((await call(w.app, 'POST', `${w.base}/intelligence/refresh`, { token: w.tokens.demo })).status).toBe(202);
    await runJobs();
  }

  async function proposedEmail(query: string): Promise<ActionRow> {
    const list = await call(w.app, 'GET', `${w.base}/actions?${query}&page_size=100`, { token: w.tokens.demo });
    expect(list.status).toBe(200);
    const emails = (list.body.data as ActionRow[]).filter((a) => a.action_type === 'email');
    expect(emails).toHaveLength(1);
    return emails[0];
  }

  it('a firm reminder proposed for an invoice a month and more past due sends the invoice PDF when approved as it is', async () => {
    // No phone number: the email is the only way to reach them, so it is the recommendation itself.
    const customer = await addBillingCustomer(w.engine, w.company, 'Harbor Foods', 'ap@harbor.example');
    const invoice = await addReminderInvoice(w.engine, w.company, customer, { number: 'FIRM-9', total: 480_000, invoiceDate: '2026-08-15', dueDate: '2026-09-30' });
    await refresh();

    const action = await proposedEmail(`category=alternatives&invoice_id=${invoice}`);
    expect(action.description).toBe('Send a firm reminder for FIRM-9 with the invoice attached');
    expect(action.metadata).toMatchObject({ attach: ['invoice_pdf'], draft_subject: 'Invoice FIRM-9 is 54 days past due' });

    const approved = await call(w.app, 'POST', `${w.base}/actions/${action.id}/approve`, { token: w.tokens.demo, body: {} });
    expect(approved.status).toBe(200);
    expect(approved.body.metadata.attach).toEqual(['invoice_pdf']);
    expect((await runJobs()).map((r) => r.status)).toEqual(['succeeded']);

    expect(smtp.messages).toHaveLength(1);
    const parsed = await simpleParser(smtp.messages[0].raw);
    expect(parsed.subject).toBe('Invoice FIRM-9 is 54 days past due');
    expect(parsed.attachments.map((a) => [a.filename, a.contentType])).toEqual([['Invoice-FIRM-9.pdf', 'application/pdf']]);
    const pdf = parsed.attachments[0].content;
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    const text = pdfText(pdf);
    expect(text).toMatch(/Invoice\s+FIRM-9/);
    expect(text).toContain('Harbor Foods');
    expect(text).toMatch(/Open\s+\$4,800\.00/);
  });

  it('a first reminder attaches nothing; several small past-due invoices get one statement email with the statement attached', async () => {
    const fresh = await addBillingCustomer(w.engine, w.company, 'Fresh Co', 'ap@fresh.example');
    const recent = await addReminderInvoice(w.engine, w.company, fresh, { number: 'NEW-1', total: 480_000, invoiceDate: '2026-10-15', dueDate: '2026-11-10' });
    const small = await addBillingCustomer(w.engine, w.company, 'Small Parts', 'ap@small.example');
    await addReminderInvoice(w.engine, w.company, small, { number: 'SM-1', total: 20_000, invoiceDate: '2026-10-01', dueDate: '2026-11-01' });
    await addReminderInvoice(w.engine, w.company, small, { number: 'SM-2', total: 30_000, invoiceDate: '2026-10-05', dueDate: '2026-11-05' });
    await refresh();

    const first = await proposedEmail(`category=alternatives&invoice_id=${recent}`);
    expect(first.description).toBe('Send a reminder for NEW-1');
    expect(first.metadata.attach).toBeUndefined();

    const statement = await proposedEmail(`customer_id=${small}`);
    expect(statement.description).toBe('Send Small Parts a statement of 2 past-due invoices ($500.00)');
    expect(statement.metadata.attach).toEqual(['statement']);
    expect((await call(w.app, 'POST', `${w.base}/actions/${statement.id}/approve`, { token: w.tokens.demo, body: {} })).status).toBe(200);
    expect((await runJobs()).map((r) => r.status)).toEqual(['succeeded']);

    expect(smtp.messages).toHaveLength(1);
    const parsed = await simpleParser(smtp.messages[0].raw);
    expect(parsed.attachments.map((a) => a.filename)).toEqual(['Statement-Small-Parts-2026-11-23.pdf']);
    const text = pdfText(parsed.attachments[0].content);
    expect(text).toMatch(/SM-1\s+Oct 1, 2026\s+Nov 1, 2026/);
    expect(text).toMatch(/Total due\s+\$500\.00/);
  });
});
