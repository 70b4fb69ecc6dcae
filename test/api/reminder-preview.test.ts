import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeSendError } from '../../core/email/health';
import { createApp } from '../../core/http/app';
import { coreJobHandlers } from '../../core/runtime/job-handlers';
import { createWorker } from '../../core/jobs/worker';
import { newId } from '../../core/ids';
import { recentEmailWarning } from '../../core/reminders/preview';
import { addCompany, addUser, type App, call, loginAs } from '../support/api';
import { type TestEngine, testEngine } from '../support/engine';
import { addBillingCustomer, addReminderInvoice, addSmtpConnection } from '../support/reminders-fixtures';
import { addMember } from '../support/rows';
import { closedPort } from '../support/sequence-fixtures';
import { type SmtpServer, startSmtp } from '../support/smtp';

const NOW = '2026-11-23T12:00:00.000Z';

describe('reminder preview and email health', () => {
  let engine: TestEngine;
  let app: App;
  let token: string;
  let company: string;
  let customer: string;
  let invoice: string;
  let closed: string;
  let smtp: SmtpServer;
  const get = (path: string) => call(app, 'GET', `/api/companies/${company}${path}`, { token });

  beforeAll(async () => {
    engine = await testEngine(NOW);
    app = createApp(engine);
    const user = await addUser(engine, 'ana', []);
    company = await addCompany(engine, 'Acme Supply');
    await addMember(engine, company, user, 'collector');
    token = await loginAs(app, 'ana');
    customer = await addBillingCustomer(engine, company, 'Cobalt Retail', 'payables@cobalt.example');
    invoice = await addReminderInvoice(engine, company, customer, { number: 'INV-1001', total: 125_000, paid: 25_000, dueDate: '2026-10-31' });
    closed = await addReminderInvoice(engine, company, customer, { number: 'INV-1002', closingReason: 'written_off' });
    smtp = await startSmtp();
  });
  afterAll(async () => {
    await smtp?.close();
    await engine.dispose();
  });

  it('says what is missing before a connection exists, and previews the email as it will be sent', async () => {
    expect((await get('/email-health')).body).toMatchObject({ status: 'missing', message: 'No default email connection is set up: reminders cannot be sent.' });
    const before = await get(`/invoices/${invoice}/reminder-preview`);
    expect(before.body.blockers).toEqual(['No default email connection is set up to send from.']);
    await addSmtpConnection(engine, company, { host: '127.0.0.1', port: smtp.port });
    const res = await get(`/invoices/${invoice}/reminder-preview`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ to: 'payables@cobalt.example', contact_name: 'Pat Payables', from: 'Acme Receivables <ar@acme.example>', blockers: [], warnings: [] });
    expect(res.body.email.subject).toContain('INV-1001');
    expect(res.body.email.text).toContain('Hello Pat Payables,');
    expect(res.body.email.text).toContain('$1,000.00 outstanding');
    expect(res.body.email.text).toContain('is 23 days past due');
    const shut = await get(`/invoices/${closed}/reminder-preview`);
    expect(shut.body).toMatchObject({ email: null, blockers: ['The invoice is closed: it gets no reminder.'] });
    expect((await get(`/invoices/${newId()}/reminder-preview`)).status).toBe(404);
  });

  it('warns of double dunning: a recent email to the customer, a ready sequence step, a reminder already asked for today', async () => {
    const s = engine.database.sqlite;
    s.prepare(
      `INSERT INTO communications (id, company_id, customer_id, invoice_id, kind, direction, subject, occurred_at, created_at) VALUES (?, ?, ?, NULL, 'email', 'outbound', 'Statement of account', ?, ?)`,
    ).run(newId(), company, customer, '2026-11-20T09:00:00.000Z', NOW);
    const [sequence, step, enrollment] = [newId(), newId(), newId()];
    s.prepare(`INSERT INTO sequences (id, company_id, name, timezone, status, created_at, updated_at) VALUES (?, ?, 'Past due', 'UTC', 'active', ?, ?)`).run(sequence, company, NOW, NOW);
    s.prepare(
      `INSERT INTO sequence_steps (id, company_id, sequence_id, position, step_type, label, offset_days, offset_time, created_at, updated_at) VALUES (?, ?, ?, 1, 'reminder', 'Second notice', 0, '09:00', ?, ?)`,
    ).run(step, company, sequence, NOW, NOW);
    s.prepare(`INSERT INTO sequence_enrollments (id, company_id, sequence_id, customer_id, status, start_date, created_at, updated_at) VALUES (?, ?, ?, ?, 'active', '2026-11-23', ?, ?)`).run(
      enrollment, company, sequence, customer, NOW, NOW,
    );
    s.prepare(
      `INSERT INTO scheduled_steps (id, company_id, enrollment_id, sequence_id, step_id, customer_id, scheduled_date, scheduled_at, status, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, '2026-11-23', '2026-11-23T09:00:00.000Z', 'ready', ?, ?)`,
    ).run(newId(), company, enrollment, sequence, step, customer, NOW, NOW);
    expect((await call(app, 'POST', `/api/companies/${company}/invoices/bulk/send-reminders`, { token, body: { invoice_ids: [invoice] } })).status).toBe(200);
    const res = await get(`/invoices/${invoice}/reminder-preview`);
    expect(res.body.warnings).toEqual([
      { kind: 'recent_email', message: 'Cobalt Retail was emailed 3 days ago (“Statement of account”).' },
      { kind: 'dunning_step_ready', message: 'The dunning step “Second notice” of the sequence “Past due” is ready for this customer: sending this reminder as well emails them twice.' },
      { kind: 'reminder_today', message: 'A reminder for this invoice was already queued today: asking again sends nothing.' },
    ]);
    expect(recentEmailWarning({ occurred_at: '2026-11-15T09:00:00.000Z', subject: null }, 'Cobalt Retail', '2026-11-23')).toBeNull();
  });

  it('warns, before chasing, of a dispute on the invoice, a standing promise to pay and a reply nobody has answered', async () => {
    const s = engine.database.sqlite;
    const other = await addReminderInvoice(engine, company, customer, { number: 'INV-1003', total: 50_000, dueDate: '2026-10-15' });
    const label = newId();
    s.prepare(`INSERT INTO labels (id, company_id, name, color, meaning, created_at, updated_at) VALUES (?, ?, 'Disputed', '#d64545', 'dispute', ?, ?)`).run(label, company, NOW, NOW);
    s.prepare(`INSERT INTO invoice_labels (company_id, invoice_id, label_id, created_at) VALUES (?, ?, ?, ?)`).run(company, invoice, label, NOW);
    s.prepare(
      `INSERT INTO communications (id, company_id, customer_id, invoice_id, kind, direction, outcome, promise_date, occurred_at, created_at) VALUES (?, ?, ?, ?, 'call', 'inbound', 'promised_to_pay', '2026-11-27', ?, ?)`,
    ).run(newId(), company, customer, other, '2026-11-21T15:00:00.000Z', NOW);
    s.prepare(
      `INSERT INTO communications (id, company_id, customer_id, invoice_id, kind, direction, subject, body, occurred_at, created_at) VALUES (?, ?, ?, ?, 'email', 'inbound', 'Re: INV-1001', 'We are checking the quantities.', ?, ?)`,
    ).run(newId(), company, customer, invoice, '2026-11-22T10:00:00.000Z', NOW);
    const kinds = async (id: string) => (await get(`/invoices/${id}/reminder-preview`)).body.warnings.filter((w: { kind: string }) => ['dispute', 'promise', 'reply_unanswered'].includes(w.kind));
    expect(await kinds(invoice)).toEqual([
      { kind: 'dispute', message: 'INV-1001 is disputed.' },
      { kind: 'reply_unanswered', message: 'Cobalt Retail replied on Nov 22 and nobody has answered yet.' },
    ]);
    expect(await kinds(other)).toEqual([
      { kind: 'promise', message: 'Cobalt Retail promised payment for INV-1003 by Nov 27.' },
      { kind: 'reply_unanswered', message: 'Cobalt Retail replied on Nov 22 and nobody has answered yet.' },
    ]);
  });

  it('reports a connection that refuses in words, until a send succeeds again', async () => {
    // The holds of the test before are lifted (the dispute label taken off, the reply answered by a
    // call), or the contact rule would hold the reminder and it would never reach a server.
    const s = engine.database.sqlite;
    s.prepare(`DELETE FROM invoice_labels WHERE invoice_id = ?`).run(invoice);
    s.prepare(`INSERT INTO communications (id, company_id, customer_id, kind, direction, occurred_at, created_at) VALUES (?, ?, ?, 'call', 'outbound', ?, ?)`).run(newId(), company, customer, '2026-11-22T11:00:00.000Z', NOW);
    const port = await closedPort();
    await engine.db.updateTable('email_connections').set({ smtp_port: port }).where('company_id', '=', company).execute();
    const worker = createWorker(engine, { handlers: coreJobHandlers(), retryBaseMs: 60_000 });
    await worker.runDueJobs();
    const failing = await get('/email-health');
    expect(failing.body).toMatchObject({ status: 'failing', connection_name: 'Collections mailbox', message: `The mail server 127.0.0.1:${port} refused the connection: it is not running or not reachable.` });
    await engine.db.updateTable('email_connections').set({ smtp_port: smtp.port }).where('company_id', '=', company).execute();
    engine.clock.set('2026-11-23T12:05:00.000Z');
    await worker.runDueJobs();
    expect(smtp.messages).toHaveLength(1);
    expect((await get('/email-health')).body).toMatchObject({ status: 'ok', message: null });
    await worker.stop();
  });

  it('words the usual mail errors', () => {
    const at = { host: 'mail.example', port: 587 };
    expect(describeSendError('getaddrinfo ENOTFOUND mail.example', at)).toBe('The mail server name mail.example could not be found.');
    expect(describeSendError('Invalid login: 535 5.7.8 Error', at)).toBe('The mail server mail.example:587 refused the username or password.');
    expect(describeSendError('Connection timeout', at)).toBe('The mail server mail.example:587 did not answer in time.');
  });
});
