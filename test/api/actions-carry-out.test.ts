import { spawnSync } from 'node:child_process';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { newId } from '../../core/ids';
import { ownerToken, thisProcess } from '../../core/jobs/owner';
import { claimNextJob } from '../../core/jobs/queue';
import { createApp } from '../../core/http/app';
import { coreJobHandlers } from '../../core/runtime/job-handlers';
import { createWorker, type Worker } from '../../core/jobs/worker';
import { addAction, addTeamMember } from '../support/actions-fixtures';
import { addCompany, addUser, type App, call, loginAs } from '../support/api';
import { type TestEngine, testEngine } from '../support/engine';
import { addBillingCustomer, addReminderInvoice, addSmtpConnection } from '../support/reminders-fixtures';
import { addMember } from '../support/rows';
import { closedPort } from '../support/sequence-fixtures';
import { type SmtpServer, startSmtp } from '../support/smtp';

const NOW = '2026-11-23T12:00:00.000Z';
const MINUTE = 60_000;

describe('an approved action gets done', () => {
  let engine: TestEngine;
  let app: App;
  let userId: string;
  let token: string;
  let company: string;
  let dana: string;
  let customer: string;
  let invoice: string;
  let smtp: SmtpServer;
  let worker: Worker;

  const base = () => `/api/companies/${company}/actions`;
  const api = (method: string, path: string, body?: unknown) => call(app, method, `${base()}${path}`, { token, body });
  const emailAction = () =>
    addAction(engine, company, {
      customer_id: customer,
      invoice_id: invoice,
      action_type: 'email',
      is_action_required: 1,
      description: 'Send a reminder for INV-1001',
      metadata: { draft_subject: 'Invoice INV-1001 is past due', draft_body: 'Hello,\n\nThe draft text.\n\nAcme Supply' },
    });

  beforeAll(async () => {
    engine = await testEngine(NOW);
    app = createApp(engine);
    userId = await addUser(engine, 'ana', []);
    await engine.db.updateTable('users').set({ display_name: 'Ana Collector' }).where('id', '=', userId).execute();
    token = await loginAs(app, 'ana');
  });
  afterAll(() => engine.dispose());

  beforeEach(async () => {
    engine.clock.set(NOW);
    company = await addCompany(engine, 'Acme Supply');
    await addMember(engine, company, userId, 'collector');
    dana = await addTeamMember(engine, company, 'Dana Demo', userId);
    smtp = await startSmtp();
    await addSmtpConnection(engine, company, smtp);
    customer = await addBillingCustomer(engine, company, 'Cobalt Retail', 'payables@cobalt.example');
    invoice = await addReminderInvoice(engine, company, customer, { number: 'INV-1001', total: 125_000, dueDate: '2026-10-31' });
    worker = createWorker(engine, { handlers: coreJobHandlers(), retryBaseMs: MINUTE });
  });
  afterEach(async () => {
    await worker.stop();
    await smtp.close();
    await engine.db.deleteFrom('jobs').execute();
  });

  it('approving an edited email sends the edited text once, completes the action and records the email on the invoice', async () => {
    const id = await emailAction();
    const approved = await api('POST', `/${id}/approve`, { final_content: 'Hello Pat,\n\nThe edited text.\n\nAna' });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ status: 'processing', delivery: { status: 'queued', error: null } });
    // Approving again from another desk is refused; it queues nothing more.
    expect((await api('POST', `/${id}/approve`)).status).toBe(400);
    expect(smtp.messages).toHaveLength(0);
    expect((await api('GET', '?category=in_progress')).body.data.map((a: { id: string }) => a.id)).toEqual([id]);

    engine.clock.set('2026-11-23T12:01:00.000Z');
    expect((await worker.runDueJobs()).map((r) => r.status)).toEqual(['succeeded']);
    expect(smtp.messages).toHaveLength(1);
    const mail = smtp.messages[0];
    expect(mail.to).toEqual(['payables@cobalt.example']);
    expect(mail.subject).toBe('Invoice INV-1001 is past due');
    expect(mail.text.replace(/\r\n/g, '\n').trim()).toBe('Hello Pat,\n\nThe edited text.\n\nAna');
    expect(mail.messageId).toBe(`<action.${id}@acme.example>`);

    const done = (await api('GET', `/${id}`)).body;
    expect(done).toMatchObject({ status: 'completed', executed_at: '2026-11-23T12:01:00.000Z', executed_by: 'Ana Collector', delivery: { status: 'sent', recipient: 'payables@cobalt.example' } });
    expect(done.approval_log.map((e: { operation: string; comment: string | null }) => [e.operation, e.comment])).toEqual([
      ['approve', null],
      ['complete', 'Email sent to payables@cobalt.example'],
    ]);
    expect((await api('GET', '?category=in_progress')).body.count).toBe(0);
    expect((await api('GET', '?category=history')).body.data.map((a: { id: string }) => a.id)).toEqual([id]);
    const activity = await call(app, 'GET', `/api/companies/${company}/communications?invoice_id=${invoice}`, { token });
    expect(activity.body.data).toHaveLength(1);
    expect(activity.body.data[0]).toMatchObject({ kind: 'email', direction: 'outbound', subject: 'Invoice INV-1001 is past due', author_name: 'Ana Collector' });
    expect(activity.body.data[0].body).toContain('The edited text.');
    const shown = await call(app, 'GET', `/api/companies/${company}/invoices/${invoice}`, { token });
    expect(shown.body).toMatchObject({ last_touch_date: '2026-11-23T12:01:00.000Z', last_touched_by: 'Ana Collector' });

    // Nothing more goes out, whatever runs again.
    await worker.runDueJobs();
    expect(smtp.messages).toHaveLength(1);
    expect((await api('POST', `/${id}/retry`)).status).toBe(400);
  });

  it('with the mail server unreachable the action shows failed in words; a retry after it is back sends exactly once', async () => {
    await smtp.close();
    await engine.db.updateTable('email_connections').set({ smtp_port: await closedPort() }).where('company_id', '=', company).execute();
    const id = await emailAction();
    await api('POST', `/${id}/approve`, {});
    const runs = await worker.runDueJobs();
    expect(runs.map((r) => r.status)).toEqual(['queued']);
    const failed = (await api('GET', `/${id}`)).body;
    expect(failed.status).toBe('processing');
    expect(failed.delivery).toMatchObject({ status: 'failed', may_have_been_sent: false, next_attempt_at: '2026-11-23T12:01:00.000Z' });
    expect(failed.delivery.error).toMatch(/^The mail server of "Collections mailbox" \(127\.0\.0\.1:\d+\) could not be reached\.$/);
    // Failed, it stays in the inbox's In progress list.
    expect((await api('GET', '?category=in_progress')).body.data.map((a: { id: string }) => a.id)).toEqual([id]);

    smtp = await startSmtp();
    await engine.db.updateTable('email_connections').set({ smtp_port: smtp.port }).where('company_id', '=', company).execute();
    const retried = await api('POST', `/${id}/retry`, { final_content: 'Edited after the failure.' });
    expect(retried.status).toBe(200);
    expect(retried.body.delivery).toMatchObject({ status: 'queued', error: null });
    await worker.runDueJobs();
    // The automatic retry time passes too: still one message.
    engine.clock.set('2026-11-23T13:00:00.000Z');
    await worker.runDueJobs();
    expect(smtp.messages).toHaveLength(1);
    expect(smtp.messages[0].text.trim()).toBe('Edited after the failure.');
    expect((await api('GET', `/${id}`)).body).toMatchObject({ status: 'completed', delivery: { status: 'sent' } });
    const outbox = await engine.db.selectFrom('email_outbox').selectAll().where('company_id', '=', company).execute();
    expect(outbox.map((o) => [o.status, o.send_attempts])).toEqual([['sent', 2]]);
  });

  it('refuses Retry while a live worker sends, and accepts it for a send whose process is gone', async () => {
    const id = await emailAction();
    await api('POST', `/${id}/approve`, {});
    // This process claims the send and records its intent, as a worker does right before SMTP.
    const job = (await claimNextJob(engine))!;
    await engine.db
      .insertInto('email_outbox')
      .values({ id: newId(), company_id: company, job_id: job.id, invoice_id: invoice, customer_id: customer, email_connection_id: null, message_id: '<action.x@acme.example>', to_email: 'payables@cobalt.example', subject: 'S', status: 'sending', send_attempts: 1, last_error: null, communication_id: null, started_at: NOW, sent_at: null, created_at: NOW, updated_at: NOW })
      .execute();
    const busy = await api('POST', `/${id}/retry`);
    expect(busy.status).toBe(400);
    expect(busy.body.detail).toBe('The email is being sent right now; wait for the outcome');

    // The claiming process ends (a real process, whose pid now names none).
    const ended = spawnSync(process.execPath, ['-e', '']);
    await engine.db.updateTable('jobs').set({ locked_by: ownerToken({ ...thisProcess, pid: ended.pid! }) }).where('id', '=', job.id).execute();
    const retried = await api('POST', `/${id}/retry`);
    expect(retried.status).toBe(200);
    expect(retried.body.delivery).toMatchObject({ status: 'queued', may_have_been_sent: true });
    expect(await engine.db.selectFrom('jobs').select(['status', 'locked_by']).where('id', '=', job.id).executeTakeFirst()).toEqual({ status: 'queued', locked_by: null });
    expect((await worker.runDueJobs()).map((r) => r.status)).toEqual(['succeeded']);
    expect(smtp.messages).toHaveLength(1);
  });

  it('says which is missing when there is no address or no connection, and never sends', async () => {
    const nobody = await addBillingCustomer(engine, company, 'Granite State Roofing', null);
    const noAddress = await addAction(engine, company, { customer_id: nobody, action_type: 'email', metadata: { draft_subject: 'Hello', draft_body: 'Text' } });
    await api('POST', `/${noAddress}/approve`);
    await worker.runDueJobs();
    expect((await api('GET', `/${noAddress}`)).body.delivery).toMatchObject({
      status: 'failed',
      error: 'No email address for Granite State Roofing: add a contact with an address, then Retry.',
      next_attempt_at: null,
    });

    await engine.db.updateTable('email_connections').set({ is_active: 0 }).where('company_id', '=', company).execute();
    const id = await emailAction();
    await api('POST', `/${id}/approve`);
    await worker.runDueJobs();
    expect((await api('GET', `/${id}`)).body.delivery).toMatchObject({ status: 'failed', error: 'No email connection to send from: add one in Settings › Email, then Retry.' });
    expect(smtp.messages).toHaveLength(0);
  });

  it('an approved call goes to the approver, is listed with phone numbers and evidence, and logging it completes the action', async () => {
    await engine.db.updateTable('customer_contacts').set({ phone: '+1 603 555 0100' }).where('customer_id', '=', customer).execute();
    const id = await addAction(engine, company, {
      customer_id: customer,
      invoice_id: invoice,
      action_type: 'call',
      description: 'Call about INV-1001',
      metadata: { talking_points: ['Ask for a payment date'] },
      evidence: JSON.stringify([{ label: 'Open balance', value: '$1,250.00', source: 'invoice', ref: { type: 'invoice', id: invoice } }]),
    });
    const approved = await api('POST', `/${id}/approve`);
    expect(approved.body).toMatchObject({ status: 'processing', delivery: null, metadata: { assignee: { id: dana, name: 'Dana Demo' } } });
    expect(await engine.db.selectFrom('jobs').select('id').where('company_id', '=', company).execute()).toEqual([]);

    const tasks = await call(app, 'GET', `/api/companies/${company}/action-tasks`, { token });
    expect(tasks.status).toBe(200);
    expect(tasks.body.data).toHaveLength(1);
    expect(tasks.body.data[0]).toMatchObject({
      id,
      action_type: 'call',
      invoice_number: 'INV-1001',
      balance: 1250,
      assignee: dana,
      assignee_name: 'Dana Demo',
      talking_points: ['Ask for a payment date'],
      contacts: [{ name: 'Pat Payables', phone: '+1 603 555 0100', is_billing: true }],
      evidence: [{ label: 'Open balance', value: '$1,250.00' }],
    });

    const bad = await api('POST', `/${id}/log`, { outcome: 'promised_to_pay' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toHaveProperty('promise_date');
    expect((await api('GET', `/${id}`)).body.status).toBe('processing');

    const logged = await api('POST', `/${id}/log`, { outcome: 'promised_to_pay', promise_date: '2026-12-04', promise_amount: 1250, body: 'Pat will pay on the 4th' });
    expect(logged.status).toBe(200);
    expect(logged.body).toMatchObject({ status: 'completed', executed_by: 'Ana Collector' });
    expect(logged.body.approval_log.at(-1)).toMatchObject({ operation: 'complete', comment: 'Call logged' });
    const comms = (await call(app, 'GET', `/api/companies/${company}/communications?invoice_id=${invoice}`, { token })).body.data;
    expect(comms).toHaveLength(1);
    expect(comms[0]).toMatchObject({ kind: 'call', outcome: 'promised_to_pay', promise_date: '2026-12-04', promise_amount: 1250 });
    expect((await call(app, 'GET', `/api/companies/${company}/action-tasks`, { token })).body.data).toEqual([]);
    expect((await api('POST', `/${id}/log`, {})).status).toBe(400);
  });

  it('refuses to log an email action, to retry a call, and an unknown category', async () => {
    const email = await emailAction();
    await api('POST', `/${email}/approve`);
    expect((await api('POST', `/${email}/log`, {})).body).toMatchObject({ status: 400 });
    const task = await addAction(engine, company, { customer_id: customer, action_type: 'task' });
    await api('POST', `/${task}/approve`);
    expect((await api('POST', `/${task}/retry`)).status).toBe(400);
    expect((await api('GET', '?category=in_flight')).status).toBe(400);
    expect((await api('GET', '?category=in_progress')).body.count).toBe(2);
  });
});
