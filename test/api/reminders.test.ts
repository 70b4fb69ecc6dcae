import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fixedClock } from '../../core/clock';
import { openEngine } from '../../core/runtime/engine';
import { createApp } from '../../core/http/app';
import { coreJobHandlers } from '../../core/runtime/job-handlers';
import { addMs, claimNextJob } from '../../core/jobs/queue';
import { createWorker, type Worker } from '../../core/jobs/worker';
import { INVOICE_REMINDER } from '../../core/reminders/queue';
import { OUTCOME_UNKNOWN } from '../../core/reminders/send';
import { addCompany, addUser, type App, call, loginAs } from '../support/api';
import { startServe } from '../support/cli';
import { type TestEngine, testEngine } from '../support/engine';
import { addBillingCustomer, addReminderInvoice, addSmtpConnection, spawnWorkerPass } from '../support/reminders-fixtures';
import { addMember } from '../support/rows';
import { type SmtpOptions, type SmtpServer, startSmtp } from '../support/smtp';

const NOW = '2026-11-23T12:00:00.000Z';
const MINUTE = 60_000;
const AUTH = { user: 'ar@acme.example', pass: 'smtp-secret' };

describe('invoice reminders over real SMTP', () => {
  let engine: TestEngine;
  let app: App;
  let userId: string;
  let company: string;
  let other: string;
  let token: string;
  let smtp: SmtpServer;
  let customer: string;
  let invoices: string[];
  let worker: Worker;

  const path = (companyId = company) => `/api/companies/${companyId}/invoices/bulk/send-reminders`;
  const send = (ids: unknown, as = token, companyId = company) => call(app, 'POST', path(companyId), { token: as, body: { invoice_ids: ids } });
  const jobs = () => engine.db.selectFrom('jobs').selectAll().where('company_id', '=', company).orderBy('created_at').orderBy('id').execute();
  const invoice = (id: string) => engine.db.selectFrom('invoices').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const communications = () => engine.db.selectFrom('communications').selectAll().where('company_id', '=', company).orderBy('invoice_id').execute();
  const outbox = () => engine.db.selectFrom('email_outbox').where('company_id', '=', company);

  async function useSmtp(options: SmtpOptions = {}) {
    await smtp?.close();
    smtp = await startSmtp({ auth: AUTH, ...options });
    await engine.db.updateTable('email_connections').set({ smtp_port: smtp.port }).where('company_id', '=', company).execute();
  }

  // One engine and login for the suite (password hashing is slow on purpose); each test gets its
  // own companies, mail server and worker, and leaves no job behind for the next.
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
    other = await addCompany(engine, 'Borealis Foods');
    await addMember(engine, company, userId, 'collector');
    await addMember(engine, other, userId, 'collector');
    smtp = await startSmtp({ auth: AUTH });
    await addSmtpConnection(engine, company, smtp, { auth: AUTH });
    customer = await addBillingCustomer(engine, company, 'Cobalt Retail', 'payables@cobalt.example');
    invoices = [
      await addReminderInvoice(engine, company, customer, { number: 'INV-1001', total: 125_000, paid: 25_000, dueDate: '2026-10-31', paymentLink: 'https://pay.acme.example/INV-1001' }),
      await addReminderInvoice(engine, company, customer, { number: 'INV-1002', total: 50_000, dueDate: '2026-12-01' }),
    ];
    worker = createWorker(engine, { handlers: coreJobHandlers(), retryBaseMs: MINUTE, leaseMs: 10 * MINUTE });
  });
  afterEach(async () => {
    await worker.stop();
    await smtp.close();
    await engine.db.deleteFrom('jobs').execute();
  });

  it('queues one job per invoice, then emails each billing contact once and records the touch', async () => {
    const res = await send(invoices);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'queued', invoice_ids: invoices, message: '2 reminders queued.', warnings: [], held: [] });
    const queued = await jobs();
    expect(queued.map((j) => [j.kind, j.status, j.subject_id, j.idempotency_key])).toEqual(invoices.map((id) => ['invoice_reminder', 'queued', id, `invoice_reminder:${id}:2026-11-23`]));
    // Nothing leaves before the worker runs: the request only records the work.
    expect(smtp.messages).toHaveLength(0);

    engine.clock.set('2026-11-23T12:05:00.000Z');
    const runs = await worker.runDueJobs();
    expect(runs.map((r) => r.status)).toEqual(['succeeded', 'succeeded']);
    expect(smtp.messages).toHaveLength(2);
    const [first, second] = smtp.messages;
    expect(first.to).toEqual(['payables@cobalt.example']);
    expect(first.from).toBe('ar@acme.example');
    expect(first.headers.from).toBe('Acme Receivables <ar@acme.example>');
    expect(first.subject).toBe('Payment reminder: invoice INV-1001 is 23 days past due ($1,000.00)');
    expect(first.text).toContain('Hello Pat Payables,');
    expect(first.text).toContain('invoice INV-1001 from Acme Supply is 23 days past due, with $1,000.00 outstanding.');
    expect(first.text).toContain('Pay online: https://pay.acme.example/INV-1001');
    expect(first.html).toContain('<a href="https://pay.acme.example/INV-1001">');
    expect(first.messageId).toBe(`<reminder.${queued[0].id}@acme.example>`);
    expect(second.subject).toBe('Payment reminder: invoice INV-1002 is due on December 1, 2026 ($500.00)');

    const comms = await communications();
    expect(comms).toHaveLength(2);
    const byInvoice = new Map(comms.map((c) => [c.invoice_id, c]));
    expect(byInvoice.get(invoices[0])).toMatchObject({
      company_id: company,
      customer_id: customer,
      kind: 'email',
      direction: 'outbound',
      subject: first.subject,
      author_name: 'Ana Collector',
      message_id: first.messageId,
      occurred_at: '2026-11-23T12:05:00.000Z',
    });
    expect(byInvoice.get(invoices[0])?.body).toContain('Balance due: $1,000.00');
    for (const id of invoices) expect(await invoice(id)).toMatchObject({ last_touch_at: '2026-11-23T12:05:00.000Z', last_touched_by: 'Ana Collector' });
    const shown = await call(app, 'GET', `/api/companies/${company}/invoices/${invoices[0]}`, { token });
    expect(shown.body).toMatchObject({ last_touch_date: '2026-11-23T12:05:00.000Z', last_touched_by: 'Ana Collector' });
    const sent = await outbox().selectAll().execute();
    expect(sent.map((o) => [o.status, o.send_attempts, o.to_email])).toEqual([
      ['sent', 1, 'payables@cobalt.example'],
      ['sent', 1, 'payables@cobalt.example'],
    ]);
    expect((await jobs()).map((j) => j.status)).toEqual(['succeeded', 'succeeded']);

    expect(await worker.runDueJobs()).toEqual([]);
    expect(smtp.messages).toHaveLength(2);
  });

  it('sends at most one reminder per invoice a day, and again on a later day', async () => {
    await send([invoices[0]]);
    const again = await send([invoices[0], invoices[1]]);
    expect(again.status).toBe(200);
    expect(again.body.message).toBe('1 reminder queued; 1 invoice already has a reminder queued or sent today.');
    expect(await jobs()).toHaveLength(2);
    await worker.runDueJobs();
    expect(smtp.messages).toHaveLength(2);

    const sameDay = await send([invoices[0]]);
    expect(sameDay.body).toMatchObject({ status: 'queued', invoice_ids: [invoices[0]], message: '0 reminders queued; 1 invoice already has a reminder queued or sent today.' });
    // The customer was emailed a moment ago: the response says so, and that no other email goes to them today.
    expect(sameDay.body.warnings.flatMap((w: { warnings: Array<{ kind: string }> }) => w.warnings.map((x) => x.kind))).toEqual(['contact_held', 'recent_email']);
    await worker.runDueJobs();
    expect(smtp.messages).toHaveLength(2);

    engine.clock.set('2026-11-24T09:00:00.000Z');
    expect((await send([invoices[0]])).body.message).toBe('1 reminder queued.');
    await worker.runDueJobs();
    expect(smtp.messages).toHaveLength(3);
    expect(smtp.messages[2].subject).toBe('Payment reminder: invoice INV-1001 is 24 days past due ($1,000.00)');
    expect((await invoice(invoices[0])).last_touch_at).toBe('2026-11-24T09:00:00.000Z');
  });

  it('does not queue a second job while an earlier day\'s reminder is still retrying', async () => {
    await useSmtp({ rejectRecipient: () => ({ code: 451, message: 'Mailbox busy, try later' }) });
    await send([invoices[0]]);
    await worker.runDueJobs();
    engine.clock.set('2026-11-24T09:00:00.000Z');
    const res = await send([invoices[0]]);
    expect(res.body.message).toBe('0 reminders queued; 1 invoice already has a reminder queued or sent today.');
    expect(await jobs()).toHaveLength(1);
  });

  it('retries a refused send with exponential backoff, then fails it with the last error', async () => {
    await useSmtp({ rejectRecipient: () => ({ code: 451, message: 'Mailbox busy, try later' }) });
    await send([invoices[0]]);
    const [job] = await jobs();
    let at = NOW;
    const delays: number[] = [];
    for (let attempt = 1; attempt < 5; attempt++) {
      const [run] = await worker.runDueJobs();
      expect(run).toMatchObject({ status: 'queued', attempts: attempt });
      const row = (await jobs())[0];
      expect(row.last_error).toContain(`The mail server 127.0.0.1:${smtp.port} refused the recipient (451).`);
      delays.push(Date.parse(row.run_after) - Date.parse(at));
      engine.clock.set(addMs(row.run_after, -1));
      expect(await worker.runDueJobs()).toEqual([]);
      at = row.run_after;
      engine.clock.set(at);
    }
    expect(delays).toEqual([MINUTE, 2 * MINUTE, 4 * MINUTE, 8 * MINUTE]);
    const [last] = await worker.runDueJobs();
    expect(last).toMatchObject({ status: 'failed', attempts: 5 });
    const failed = (await jobs())[0];
    expect(failed).toMatchObject({ id: job.id, status: 'failed', attempts: 5 });
    // Our words and the SMTP status; the server's own text stays in the operator's log.
    expect(failed.last_error).toBe(`Sending reminder <reminder.${job.id}@acme.example> to payables@cobalt.example failed: The mail server 127.0.0.1:${smtp.port} refused the recipient (451).`);
    expect(await outbox().select(['status', 'send_attempts']).execute()).toEqual([{ status: 'not_sent', send_attempts: 5 }]);
    expect(smtp.messages).toHaveLength(0);
    expect(await communications()).toHaveLength(0);
    expect((await invoice(invoices[0])).last_touch_at).toBeNull();
  });

  it('delivers once the server recovers, with the same Message-ID as every earlier try', async () => {
    let refusals = 2;
    await useSmtp({ rejectRecipient: () => (refusals-- > 0 ? { code: 450, message: 'Mailbox unavailable, try later' } : null) });
    await send([invoices[0]]);
    for (let i = 0; i < 3; i++) {
      await worker.runDueJobs();
      engine.clock.set(addMs(timestampOf(engine), 30 * MINUTE));
    }
    expect(smtp.messages).toHaveLength(1);
    const [job] = await jobs();
    expect(job).toMatchObject({ status: 'succeeded', attempts: 3, last_error: null });
    expect(smtp.messages[0].messageId).toBe(`<reminder.${job.id}@acme.example>`);
    expect(await outbox().select(['status', 'send_attempts', 'message_id']).execute()).toEqual([
      { status: 'sent', send_attempts: 3, message_id: smtp.messages[0].messageId },
    ]);
  });

  it('retries when the mail server is not listening at all', async () => {
    const closed = smtp.port;
    await smtp.close();
    await send([invoices[0]]);
    const [run] = await worker.runDueJobs();
    expect(run.status).toBe('queued');
    expect(run.error).toContain(`The mail server 127.0.0.1:${closed} refused the connection: it is not running or not reachable.`);
    smtp = await startSmtp({ auth: AUTH });
    await engine.db.updateTable('email_connections').set({ smtp_port: smtp.port }).where('smtp_port', '=', closed).execute();
    engine.clock.set(addMs(NOW, MINUTE));
    expect((await worker.runDueJobs()).map((r) => r.status)).toEqual(['succeeded']);
    expect(smtp.messages).toHaveLength(1);
  });

  it('fails at once on a permanent refusal or wrong credentials', async () => {
    await useSmtp({ rejectRecipient: () => ({ code: 550, message: 'No such mailbox' }) });
    await send([invoices[0]]);
    expect((await worker.runDueJobs()).map((r) => [r.status, r.attempts])).toEqual([['failed', 1]]);
    expect((await jobs())[0].last_error).toContain(`The mail server 127.0.0.1:${smtp.port} refused the recipient (550).`);

    await useSmtp();
    await engine.db.updateTable('email_connections').set({ smtp_password_enc: engine.secrets.encrypt('wrong-password') }).where('company_id', '=', company).execute();
    await send([invoices[1]]);
    const [run] = await worker.runDueJobs();
    expect(run).toMatchObject({ status: 'failed', attempts: 1 });
    expect(run.error).toContain(`The mail server 127.0.0.1:${smtp.port} refused the username or password (535).`);
    expect(smtp.messages).toHaveLength(0);
  });

  it('does not send a reminder for an invoice closed after it was queued', async () => {
    await send([invoices[0]]);
    await engine.db.updateTable('invoices').set({ closing_reason: 'paid', closed_date: '2026-11-23', paid_amount: 125_000, balance: 0 }).where('id', '=', invoices[0]).execute();
    const [run] = await worker.runDueJobs();
    expect(run).toMatchObject({ status: 'failed', error: 'Invoice INV-1001 was closed (paid) before its reminder went out; no reminder sent' });
    expect(smtp.messages).toHaveLength(0);
  });

  it('delivers every reminder exactly once when the worker stops mid-queue and a new one takes over', async () => {
    for (let i = 3; i <= 6; i++) invoices.push(await addReminderInvoice(engine, company, customer, { number: `INV-100${i}` }));
    let stopping: Promise<void> | null = null;
    await useSmtp({
      beforeReply: () => {
        // Stop the running worker while it is in the middle of its second send.
        if (smtp.messages.length === 2) stopping = worker.stop();
      },
    });
    expect((await send(invoices)).body.message).toBe('6 reminders queued.');
    worker = createWorker(engine, { handlers: coreJobHandlers(), pollMs: 5 });
    worker.start();
    while (!stopping) await new Promise((resolve) => setTimeout(resolve, 5));
    await stopping;
    expect(smtp.messages).toHaveLength(2);
    expect((await jobs()).map((j) => j.status)).toEqual(['succeeded', 'succeeded', 'queued', 'queued', 'queued', 'queued']);

    // A restart: a new engine (a new connection, as a new process would open) on the same file, with a new worker.
    const reopened = await openEngine({ file: join(engine.dir, 'ardesk.sqlite'), clock: fixedClock(NOW) });
    try {
      const next = createWorker(reopened, { handlers: coreJobHandlers() });
      expect((await next.runDueJobs()).map((r) => r.status)).toEqual(['succeeded', 'succeeded', 'succeeded', 'succeeded']);
      expect(await next.runDueJobs()).toEqual([]);
      const allJobs = await reopened.db.selectFrom('jobs').select('id').where('company_id', '=', company).execute();
      expect(smtp.messages).toHaveLength(6);
      expect(new Set(smtp.messages.map((m) => m.messageId))).toEqual(new Set(allJobs.map((j) => `<reminder.${j.id}@acme.example>`)));
      const comms = await reopened.db.selectFrom('communications').select('invoice_id').where('company_id', '=', company).execute();
      expect(comms.map((c) => c.invoice_id).sort()).toEqual([...invoices].sort());
    } finally {
      await reopened.close();
    }
  });

  it('runs a job claimed by a worker that died before sending, once its lease is over', async () => {
    await send([invoices[0]]);
    await claimNextJob(engine);
    expect(await worker.runDueJobs()).toEqual([]);
    engine.clock.set(addMs(NOW, 10 * MINUTE + 1));
    expect((await worker.runDueJobs()).map((r) => [r.status, r.attempts])).toEqual([['succeeded', 2]]);
    expect(smtp.messages).toHaveLength(1);
  });

  it('never resends a reminder whose worker was killed between the SMTP accept and the commit', async () => {
    const file = join(engine.dir, 'ardesk.sqlite');
    for (let i = 3; i <= 4; i++) invoices.push(await addReminderInvoice(engine, company, customer, { number: `INV-100${i}` }));
    await send(invoices);
    await useSmtp({
      beforeReply: async () => {
        // The server has the whole message; the sender dies before it hears "250 OK".
        child.kill('SIGKILL');
        await exited;
      },
    });
    const child = spawnWorkerPass(file, NOW);
    let childOutput = '';
    child.stderr?.on('data', (chunk: Buffer) => (childOutput += chunk.toString()));
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
    expect(await exited).toBe('SIGKILL');
    expect(childOutput).toBe('');
    expect(smtp.messages).toHaveLength(1);
    const crashed = (await jobs())[0];
    expect(crashed).toMatchObject({ status: 'running', attempts: 1 });
    expect(await outbox().select(['job_id', 'status']).execute()).toEqual([{ job_id: crashed.id, status: 'sending' }]);

    // Restarted: the crashed worker's process is gone, so its reminder is settled in the first pass
    // (not after the lease), without a second message; the others go out.
    const runs = await worker.runDueJobs();
    expect(runs.map((r) => [r.id === crashed.id, r.status]).sort()).toEqual([[false, 'succeeded'], [false, 'succeeded'], [false, 'succeeded'], [true, 'failed']]);
    const run = runs.find((r) => r.id === crashed.id)!;
    expect(run).toMatchObject({ status: 'failed', attempts: 2 });
    expect(run.error).toBe(`Reminder <reminder.${crashed.id}@acme.example>: ${OUTCOME_UNKNOWN}`);
    expect(smtp.messages).toHaveLength(4);
    expect(smtp.messages.map((m) => /INV-\d+/.exec(m.subject)?.[0]).sort()).toEqual(['INV-1001', 'INV-1002', 'INV-1003', 'INV-1004']);
    // Whether INV-1001's email arrived is unknown to ardesk: no communication claims it did.
    expect((await communications()).map((c) => c.invoice_id).sort()).toEqual(invoices.slice(1).sort());
    expect(await outbox().select('status').where('job_id', '=', crashed.id).executeTakeFirst()).toEqual({ status: 'unknown' });
    const shown = await call(app, 'GET', `/api/companies/${company}/invoices/${invoices[0]}/reminders`, { token });
    expect(shown.body.data).toMatchObject([{ id: crashed.id, status: 'failed', last_error: run.error, sent_at: null }]);
    engine.clock.set(addMs(NOW, 2 * 60 * MINUTE));
    expect(await worker.runDueJobs()).toEqual([]);

    // Only a person asking again sends it once more, with the same Message-ID.
    expect((await send([invoices[0]])).body.message).toBe('1 reminder queued.');
    expect((await worker.runDueJobs()).map((r) => [r.id, r.status])).toEqual([[crashed.id, 'succeeded']]);
    expect(smtp.messages).toHaveLength(5);
    expect(smtp.messages[4].messageId).toBe(smtp.messages[0].messageId);
    expect(await communications()).toHaveLength(4);
  });

  describe('an invoice\'s reminders and their outcome', () => {
    const reminders = (invoiceId: string, companyId = company) => call(app, 'GET', `/api/companies/${companyId}/invoices/${invoiceId}/reminders`, { token });

    it('shows a reminder queued, then sent once a worker pass delivered it, newest first', async () => {
      expect((await reminders(invoices[0])).body).toEqual({ count: 0, data: [] });
      await send([invoices[0]]);
      const [job] = await jobs();
      const queued = await reminders(invoices[0]);
      expect(queued.status).toBe(200);
      expect(queued.body).toEqual({
        count: 1,
        data: [
          {
            id: job.id,
            status: 'queued',
            attempts: 0,
            max_attempts: 5,
            next_attempt_at: null,
            last_error: null,
            queued_at: NOW,
            sent_at: null,
            queued_by: 'Ana Collector',
            recipient: 'payables@cobalt.example',
          },
        ],
      });
      expect((await reminders(invoices[1])).body).toEqual({ count: 0, data: [] });

      engine.clock.set('2026-11-23T12:05:00.000Z');
      await worker.runDueJobs();
      expect((await reminders(invoices[0])).body.data).toEqual([{ ...queued.body.data[0], status: 'sent', attempts: 1, sent_at: '2026-11-23T12:05:00.000Z' }]);

      engine.clock.set('2026-11-24T09:00:00.000Z');
      await send([invoices[0]]);
      const both = await reminders(invoices[0].toUpperCase());
      expect(both.body.count).toBe(2);
      expect(both.body.data.map((r: { status: string; queued_at: string }) => [r.status, r.queued_at])).toEqual([
        ['queued', '2026-11-24T09:00:00.000Z'],
        ['sent', NOW],
      ]);
    });

    it('shows the retry time while a refused send waits, then failed with the last error', async () => {
      await useSmtp({ rejectRecipient: () => ({ code: 451, message: 'Mailbox busy, try later' }) });
      await send([invoices[0]]);
      await worker.runDueJobs();
      const [retrying] = (await reminders(invoices[0])).body.data;
      expect(retrying).toMatchObject({ status: 'queued', attempts: 1, max_attempts: 5, next_attempt_at: addMs(NOW, MINUTE), sent_at: null, recipient: 'payables@cobalt.example' });
      expect(retrying.last_error).toContain(`The mail server 127.0.0.1:${smtp.port} refused the recipient (451).`);

      for (let attempt = 2; attempt <= 5; attempt++) {
        engine.clock.set((await reminders(invoices[0])).body.data[0].next_attempt_at);
        await worker.runDueJobs();
      }
      const failed = await reminders(invoices[0]);
      expect(failed.body.count).toBe(1);
      expect(failed.body.data[0]).toEqual({
        ...retrying,
        status: 'failed',
        attempts: 5,
        next_attempt_at: null,
        last_error: `Sending reminder <reminder.${retrying.id}@acme.example> to payables@cobalt.example failed: The mail server 127.0.0.1:${smtp.port} refused the recipient (451).`,
      });
    });

    it('is 404 for another company\'s invoice, an unknown or malformed id, and checks the path\'s company', async () => {
      const foreignCustomer = await addBillingCustomer(engine, other, 'Foreign', 'ap@foreign.example');
      const foreign = await addReminderInvoice(engine, other, foreignCustomer, { number: 'F-1' });
      await send([invoices[0]]);
      for (const id of [foreign, '0192f0c4-5f3e-7c4a-9a51-1f2e3d4c5b6a', 'not-a-uuid']) {
        const res = await reminders(id);
        expect(res.status, id).toBe(404);
        expect(res.headers.get('content-type')).toContain('application/problem+json');
      }
      expect((await reminders(invoices[0], other)).status).toBe(404);
      expect((await reminders(foreign, other)).body).toEqual({ count: 0, data: [] });
      expect((await call(app, 'GET', `/api/companies/${company}/invoices/${invoices[0]}/reminders`)).status).toBe(401);
    });
  });

  describe('all or nothing', () => {
    it('refuses unknown and other companies\' invoices, naming them, and queues nothing', async () => {
      const foreignCustomer = await addBillingCustomer(engine, other, 'Foreign', 'ap@foreign.example');
      const foreign = await addReminderInvoice(engine, other, foreignCustomer, { number: 'F-1' });
      const unknown = '0192f0c4-5f3e-7c4a-9a51-1f2e3d4c5b6a';
      const res = await send([invoices[0], foreign, unknown]);
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(res.body.code).toBe('validation_error');
      expect(res.body.errors.invoice_ids).toEqual([`Unknown invoice ids: ${foreign}, ${unknown}`]);
      expect(await jobs()).toHaveLength(0);
    });

    it('refuses closed invoices and customers without a billing email, naming them', async () => {
      const closed = await addReminderInvoice(engine, company, customer, { number: 'INV-PAID', closingReason: 'paid', paid: 125_000 });
      const silent = await addBillingCustomer(engine, company, 'No Contact Ltd', null);
      const unreachable = await addReminderInvoice(engine, company, silent, { number: 'INV-NC' });
      const blank = await addBillingCustomer(engine, company, 'Blank Email Ltd', '   ');
      const blankInvoice = await addReminderInvoice(engine, company, blank, { number: 'INV-BL' });
      const res = await send([invoices[0], closed, unreachable, blankInvoice]);
      expect(res.status).toBe(400);
      expect(res.body.errors.invoice_ids).toEqual([`Closed invoices get no reminder: ${closed}`, `No billing contact email for the customer of invoices: ${unreachable}, ${blankInvoice}`]);
      expect(res.body.detail).toContain('No reminder was queued');
      expect(await jobs()).toHaveLength(0);
    });

    it('refuses when the company has no default active connection to send from', async () => {
      await engine.db.updateTable('email_connections').set({ is_active: 0 }).where('company_id', '=', company).execute();
      const res = await send([invoices[0]]);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('no_email_connection');
      expect(await jobs()).toHaveLength(0);
    });

    it('validates the body: a non-empty array of at most 1,000 UUIDs', async () => {
      for (const body of [{}, { invoice_ids: [] }, { invoice_ids: 'x' }, { invoice_ids: ['not-a-uuid'] }, { invoice_ids: [42] }]) {
        const res = await call(app, 'POST', path(), { token, body });
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body.code).toBe('validation_error');
        expect(Object.keys(res.body.errors).some((k) => k.startsWith('invoice_ids'))).toBe(true);
      }
      const tooMany = Array.from({ length: 1001 }, (_, i) => `0192f0c4-5f3e-7c4a-9a51-${String(i).padStart(12, '0')}`);
      expect((await send(tooMany)).status).toBe(400);
      const malformedJson = await call(app, 'POST', path(), { token, body: '{"invoice_ids": [' });
      expect(malformedJson.status).toBe(400);
      expect(await jobs()).toHaveLength(0);
    });

    it('accepts upper-case ids and repeated ids, echoing what was sent', async () => {
      const ids = [invoices[0].toUpperCase(), invoices[0], invoices[1]];
      const res = await send(ids);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: 'queued', invoice_ids: ids, message: '2 reminders queued.', warnings: [], held: [] });
      expect(await jobs()).toHaveLength(2);
    });
  });

  describe('access', () => {
    it('needs a token', async () => {
      const res = await call(app, 'POST', path(), { body: { invoice_ids: invoices } });
      expect(res.status).toBe(401);
    });

    it('is forbidden to viewers and to non-members, and 404 for a malformed company id', async () => {
      await addUser(engine, `val${company}`, [[company, 'viewer']]);
      await addUser(engine, `olga${company}`, [[other, 'owner']]);
      const viewer = await send(invoices, await loginAs(app, `val${company}`));
      expect(viewer.status).toBe(403);
      const outsider = await send(invoices, await loginAs(app, `olga${company}`));
      expect(outsider.status).toBe(403);
      const malformed = await call(app, 'POST', '/api/companies/not-a-uuid/invoices/bulk/send-reminders', { token, body: { invoice_ids: invoices } });
      expect(malformed.status).toBe(404);
      expect(await jobs()).toHaveLength(0);
    });

    it('is in the OpenAPI document under Invoices', async () => {
      const doc = await (await app.request('/api/openapi.json')).json();
      const op = doc.paths['/api/companies/{company_id}/invoices/bulk/send-reminders'].post;
      expect(op.tags).toEqual(['Invoices']);
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '403', '404']));
    });
  });
});

function timestampOf(engine: TestEngine): string {
  return engine.clock.now().toISOString();
}

describe('the running service (ardesk serve)', () => {
  it('sends the reminders a request queues, with its own worker, and stops cleanly', async () => {
    const smtp = await startSmtp({ auth: AUTH });
    const setup = await testEngine(NOW);
    const file = join(setup.dir, 'ardesk.sqlite');
    try {
      const company = await addCompany(setup, 'Delta Parts');
      await addUser(setup, 'sam', [[company, 'collector']]);
      await addSmtpConnection(setup, company, smtp, { auth: AUTH });
      const customer = await addBillingCustomer(setup, company, 'Delta Buyer', 'ap@delta.example');
      const invoiceId = await addReminderInvoice(setup, company, customer, { number: 'INV-9001' });
      await setup.close();

      const server = await startServe(['--port', '0', '--db', file]);
      try {
        const login = await fetch(`${server.url}/api/v1/auth/login/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'sam', password: 'sam-pw' }) });
        const { token } = (await login.json()) as { token: string };
        const res = await fetch(`${server.url}/api/companies/${company}/invoices/bulk/send-reminders`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Token ${token}` },
          body: JSON.stringify({ invoice_ids: [invoiceId] }),
        });
        expect(res.status).toBe(200);
        expect(await res.json()).toMatchObject({ status: 'queued', invoice_ids: [invoiceId] });
        const [mail] = await smtp.waitFor(1);
        expect(mail.to).toEqual(['ap@delta.example']);
        expect(mail.subject).toContain('INV-9001');
      } finally {
        expect(await server.stop()).toBe(0);
      }
      const after = await openEngine({ file });
      try {
        // The server also runs its own jobs (the daily intelligence refresh): only the reminder is asked about.
        expect(await after.db.selectFrom('jobs').select(['status', 'attempts']).where('kind', '=', INVOICE_REMINDER).execute()).toEqual([{ status: 'succeeded', attempts: 1 }]);
        const comm = await after.db.selectFrom('communications').select(['author_name', 'message_id']).executeTakeFirstOrThrow();
        expect(comm).toEqual({ author_name: 'sam', message_id: smtp.messages[0].messageId });
      } finally {
        await after.close();
      }
      expect(smtp.messages).toHaveLength(1);
    } finally {
      await smtp.close();
      await setup.dispose();
    }
  });
});
