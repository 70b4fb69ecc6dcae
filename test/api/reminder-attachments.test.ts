/**
 * Reminders and approved email actions with documents attached (issue 26): the preview names the files and their sizes, the
 * email that reaches the real SMTP server on loopback carries the invoice copy and the statement
 * made when it was sent (the figures of that moment), and the customer's timeline keeps their names.
 */
import { simpleParser } from 'mailparser';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { coreJobHandlers } from '../../core/runtime/job-handlers';
import { createWorker } from '../../core/jobs/worker';
import { addAction } from '../support/actions-fixtures';
import { call, useApiWorkspace } from '../support/api';
import { keepPdf, pdfText } from '../support/pdf';
import { addBillingCustomer, addReminderInvoice, addSmtpConnection } from '../support/reminders-fixtures';
import { type SmtpServer, startSmtp } from '../support/smtp';

describe('reminders with the invoice PDF and a statement attached (extension)', () => {
  const w = useApiWorkspace();
  let smtp: SmtpServer;

  beforeEach(async () => {
    smtp = await startSmtp();
    await addSmtpConnection(w.engine, w.company, smtp);
  });
  afterEach(() => smtp.close());

  const runJobs = () => createWorker(w.engine, { handlers: coreJobHandlers() }).runDueJobs();

  it('previews the files, then emails the invoice copy and the statement as they are at send time', async () => {
    const customer = await addBillingCustomer(w.engine, w.company, 'Κόσμος Trading', 'ap@kosmos.example');
    const invoice = await addReminderInvoice(w.engine, w.company, customer, { number: 'ATT-1001', total: 1_234_500, dueDate: '2026-10-31' });
    await addReminderInvoice(w.engine, w.company, customer, { number: 'ATT-1002', total: 50_000, dueDate: '2026-11-30' });

    const preview = await call(w.app, 'GET', `${w.base}/invoices/${invoice}/reminder-preview`, { token: w.tokens.demo });
    expect(preview.status).toBe(200);
    expect(preview.body.attachments.map((a: { kind: string; file_name: string }) => [a.kind, a.file_name])).toEqual([
      ['invoice_pdf', 'Invoice-ATT-1001.pdf'],
      ['statement', 'Statement-Κόσμος-Trading-2026-11-23.pdf'],
    ]);
    for (const a of preview.body.attachments) expect(a.bytes).toBeGreaterThan(5_000);

    const queued = await call(w.app, 'POST', `${w.base}/invoices/bulk/send-reminders`, { token: w.tokens.demo, body: { invoice_ids: [invoice], attach: ['statement', 'invoice_pdf'] } });
    expect(queued.status).toBe(200);
    // A payment arrives between asking and sending: the documents show it.
    await w.engine.db.updateTable('invoices').set({ paid_amount: 234_500, balance: 1_000_000 }).where('id', '=', invoice).execute();

    expect((await runJobs()).map((r) => r.status)).toEqual(['succeeded']);
    expect(smtp.messages).toHaveLength(1);
    const parsed = await simpleParser(smtp.messages[0].raw);
    expect(parsed.to && 'text' in parsed.to ? parsed.to.text : '').toContain('ap@kosmos.example');
    expect(parsed.attachments.map((a) => [a.filename, a.contentType])).toEqual([
      ['Invoice-ATT-1001.pdf', 'application/pdf'],
      ['Statement-Κόσμος-Trading-2026-11-23.pdf', 'application/pdf'],
    ]);
    const [invoicePdf, statementPdf] = parsed.attachments.map((a) => a.content);
    expect(invoicePdf.subarray(0, 5).toString()).toBe('%PDF-');
    const invoiceText = pdfText(invoicePdf);
    expect(invoiceText).toContain('Copy of invoice');
    expect(invoiceText).toMatch(/Invoice\s+ATT-1001/);
    expect(invoiceText).toMatch(/Invoice total\s+\$12,345\.00/);
    expect(invoiceText).toMatch(/Open\s+\$10,000\.00/);
    const statementText = pdfText(statementPdf);
    expect(statementText).toContain('Κόσμος Trading');
    expect(statementText).toMatch(/ATT-1001\s+Oct 1, 2026\s+Oct 31, 2026\s+23\s+\$12,345\.00\s+\$2,345\.00\s+\$10,000\.00/);
    expect(statementText).toMatch(/Total due\s+\$10,500\.00/);
    keepPdf('reminder-attached-invoice', invoicePdf, 1);

    // The customer's timeline keeps what was attached.
    const timeline = await call(w.app, 'GET', `${w.base}/communications?customer_id=${customer}`, { token: w.tokens.demo });
    expect(timeline.body.data).toHaveLength(1);
    expect(timeline.body.data[0]).toMatchObject({ kind: 'email', direction: 'outbound', invoice: invoice });
    expect(timeline.body.data[0].attachments).toEqual([
      { name: 'Invoice-ATT-1001.pdf', size: invoicePdf.length },
      { name: 'Statement-Κόσμος-Trading-2026-11-23.pdf', size: statementPdf.length },
    ]);
  });

  it('sends no attachment unless asked, and refuses an unknown document with problem+json, queuing nothing', async () => {
    const customer = await addBillingCustomer(w.engine, w.company, 'Plain Co', 'ap@plain.example');
    const invoice = await addReminderInvoice(w.engine, w.company, customer, { number: 'PL-1' });
    const bad = await call(w.app, 'POST', `${w.base}/invoices/bulk/send-reminders`, { token: w.tokens.demo, body: { invoice_ids: [invoice], attach: ['contract'] } });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toContain('application/problem+json');
    expect(await w.engine.db.selectFrom('jobs').select('id').where('company_id', '=', w.company).execute()).toEqual([]);

    expect((await call(w.app, 'POST', `${w.base}/invoices/bulk/send-reminders`, { token: w.tokens.demo, body: { invoice_ids: [invoice] } })).status).toBe(200);
    await runJobs();
    expect(smtp.messages).toHaveLength(1);
    expect((await simpleParser(smtp.messages[0].raw)).attachments).toEqual([]);
    const timeline = await call(w.app, 'GET', `${w.base}/communications?customer_id=${customer}`, { token: w.tokens.demo });
    expect(timeline.body.data[0].attachments).toEqual([]);
  });

  it('sends an approved email action with the documents chosen at approval, made when it goes out', async () => {
    const customer = await addBillingCustomer(w.engine, w.company, 'Cobalt Retail', 'payables@cobalt.example');
    const invoice = await addReminderInvoice(w.engine, w.company, customer, { number: 'ACT-77', total: 90_000, dueDate: '2026-10-31' });
    const action = await addAction(w.engine, w.company, {
      customer_id: customer,
      invoice_id: invoice,
      action_type: 'email',
      is_action_required: 1,
      description: 'Send a firm reminder with the invoice attached',
      metadata: { draft_subject: 'Invoice ACT-77 is past due', draft_body: 'Hello,\n\nPlease find the invoice attached.' },
    });
    const actions = `${w.base}/actions/${action}`;
    const bad = await call(w.app, 'POST', `${actions}/approve`, { token: w.tokens.demo, body: { attach: ['invoice_pdf', 'receipt'] } });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toContain('application/problem+json');
    expect((await call(w.app, 'GET', actions, { token: w.tokens.demo })).body.status).not.toBe('processing');

    const approved = await call(w.app, 'POST', `${actions}/approve`, { token: w.tokens.demo, body: { attach: ['invoice_pdf'] } });
    expect(approved.status).toBe(200);
    expect(approved.body.metadata.attach).toEqual(['invoice_pdf']);
    await w.engine.db.updateTable('invoices').set({ paid_amount: 40_000, balance: 50_000 }).where('id', '=', invoice).execute();

    expect((await runJobs()).map((r) => r.status)).toEqual(['succeeded']);
    expect(smtp.messages).toHaveLength(1);
    const parsed = await simpleParser(smtp.messages[0].raw);
    expect(parsed.attachments.map((a) => a.filename)).toEqual(['Invoice-ACT-77.pdf']);
    const text = pdfText(parsed.attachments[0].content);
    expect(text).toMatch(/Invoice\s+ACT-77/);
    expect(text).toMatch(/Open\s+\$500\.00/);
    const timeline = await call(w.app, 'GET', `${w.base}/communications?invoice_id=${invoice}`, { token: w.tokens.demo });
    expect(timeline.body.data[0].attachments).toEqual([{ name: 'Invoice-ACT-77.pdf', size: parsed.attachments[0].content.length }]);
  });
});
