/**
 * Customer-facing sends of a running `ardesk serve` (issue 37): an approved action's email goes out
 * while a statement run is still mailing, and a send interrupted by kill -9 is resolved as the
 * server starts again, not after the 10-minute lease. A real SMTP server on loopback throughout.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openEngine } from '../../core/runtime/engine';
import { addAction, addTeamMember } from '../support/actions-fixtures';
import { addCompany, addUser } from '../support/api';
import { startServe } from '../support/cli';
import { listen } from '../support/http';
import { type TestEngine, testEngine } from '../support/engine';
import { addBillingCustomer, addReminderInvoice, addSmtpConnection } from '../support/reminders-fixtures';
import { addMember } from '../support/rows';
import { type SmtpServer, startSmtp } from '../support/smtp';

const NOW = '2026-11-23T12:00:00.000Z';

interface Workspace {
  company: string;
  action: string;
  customers: string[];
}

/** A company with an email action waiting for approval, customers with billing contacts, a connection to `smtp`. */
async function workspace(smtp: SmtpServer, statementCustomers: number): Promise<Workspace & { setup: TestEngine; file: string }> {
  const setup = await testEngine(NOW);
  const made = await fill(setup, smtp, statementCustomers);
  await setup.close();
  return { setup, file: join(setup.dir, 'ardesk.sqlite'), ...made };
}

async function fill(setup: TestEngine, smtp: SmtpServer, statementCustomers: number): Promise<Workspace> {
  const company = await addCompany(setup, 'Acme Supply');
  const userId = await addUser(setup, 'ana', []);
  await addMember(setup, company, userId, 'collector');
  await addTeamMember(setup, company, 'Ana Collector', userId);
  await addSmtpConnection(setup, company, smtp);
  const customer = await addBillingCustomer(setup, company, 'Cobalt Retail', 'payables@cobalt.example');
  const invoice = await addReminderInvoice(setup, company, customer, { number: 'INV-1001' });
  const action = await addAction(setup, company, {
    customer_id: customer,
    invoice_id: invoice,
    action_type: 'email',
    is_action_required: 1,
    description: 'Send a reminder for INV-1001',
    metadata: { draft_subject: 'Invoice INV-1001 is past due', draft_body: 'Hello,\n\nINV-1001 is past due.\n\nAcme Supply' },
  });
  const customers: string[] = [];
  for (let i = 1; i <= statementCustomers; i++) {
    const id = await addBillingCustomer(setup, company, `Customer ${String(i).padStart(3, '0')}`, `billing${i}@customer${i}.example`);
    await addReminderInvoice(setup, company, id, { number: `INV-${2000 + i}` });
    customers.push(id);
  }
  return { company, action, customers };
}

async function signIn(server: { url: string }): Promise<(method: string, path: string, body?: unknown) => Promise<{ status: number; body: any }>> {
  const login = await fetch(`${server.url}/api/v1/auth/login/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'ana', password: 'ana-pw' }) });
  const { token } = (await login.json()) as { token: string };
  return async (method, path, body) => {
    const res = await fetch(`${server.url}${path}`, { method, headers: { authorization: `Token ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, body: await res.json() };
  };
}

const isStatement = (subject: string) => subject.startsWith('Statement of account');

describe('customer-facing sends of ardesk serve', () => {
  const cleanup: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  it('sends an action approved during a statement run while the run is still mailing', async () => {
    // A slow mail server: each statement takes it 400 ms to accept, so 12 of them keep the run busy for 5 s and more.
    const smtp = await startSmtp({ beforeReply: (mail) => (isStatement(mail.subject) ? new Promise((resolve) => setTimeout(resolve, 400)) : undefined) });
    cleanup.push(() => smtp.close());
    const engine = await testEngine(NOW);
    cleanup.push(() => engine.dispose());
    const w = await fill(engine, smtp, 12);
    // The running service as `ardesk serve` starts it (its job lanes), in this process.
    const server = await listen(engine, { jobPollMs: 250, replyReadIntervalMs: 0 });
    let running = true;
    cleanup.push(() => (running ? server.stop() : Promise.resolve()));
    const api = await signIn(server);
    const base = `/api/companies/${w.company}`;

    const run = await api('POST', `${base}/statement-runs`, { customer_ids: w.customers });
    expect(run.status).toBe(202);
    await expect.poll(() => smtp.messages.filter((m) => isStatement(m.subject)).length).toBeGreaterThan(0);
    expect((await api('POST', `${base}/actions/${w.action}/approve`)).status).toBe(200);

    await expect.poll(() => smtp.messages.some((m) => m.subject === 'Invoice INV-1001 is past due')).toBe(true);
    const statementsBefore = smtp.messages.findIndex((m) => m.subject === 'Invoice INV-1001 is past due');
    expect(statementsBefore).toBeLessThan(w.customers.length);
    expect((await api('GET', `${base}/statement-runs/${run.body.id}`)).body.finished).toBe(false);
    await expect.poll(() => api('GET', `${base}/actions/${w.action}`).then((r) => r.body.delivery?.status)).toBe('sent');

    // Stopping the server mid-run hands the run back at its next customer: each customer mailed is
    // settled once, the rest wait for the next start, and the stop does not wait for them.
    await server.stop();
    running = false;
    const items = await engine.db.selectFrom('statement_run_items').select(['status', 'sent_to']).where('run_id', '=', run.body.id).execute();
    const mailed = smtp.messages.filter((m) => isStatement(m.subject));
    expect(items.filter((i) => i.status === 'sent').map((i) => i.sent_to).sort()).toEqual(mailed.map((m) => m.to.join(', ')).sort());
    expect(items.filter((i) => i.status === 'pending').length).toBe(w.customers.length - mailed.length);
    expect(mailed.length).toBeLessThan(w.customers.length);
    expect(await engine.db.selectFrom('jobs').select(['status', 'attempts', 'max_attempts']).where('kind', '=', 'statement_send').executeTakeFirst()).toEqual({ status: 'queued', attempts: 1, max_attempts: 4 });
    expect(smtp.messages.filter((m) => !isStatement(m.subject))).toHaveLength(1);
  });

  it('resolves a send interrupted by kill -9 as the server starts again: "may have been sent", once, and Retry sends it', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    // The mail server has the whole message but holds its answer: the sender is killed meanwhile.
    const smtp = await startSmtp({ beforeReply: () => held });
    cleanup.push(() => smtp.close());
    cleanup.push(async () => release());
    const w = await workspace(smtp, 0);
    cleanup.push(() => w.setup.dispose());
    const base = `/api/companies/${w.company}/actions/${w.action}`;

    const first = await startServe(['--port', '0', '--db', w.file]);
    const exited = new Promise((resolve) => first.child.once('exit', resolve));
    expect((await (await signIn(first))('POST', `${base}/approve`)).status).toBe(200);
    await smtp.waitFor(1);
    first.child.kill('SIGKILL');
    await exited;
    release();

    const startedAt = Date.now();
    const second = await startServe(['--port', '0', '--db', w.file]);
    cleanup.push(() => second.stop());
    const api = await signIn(second);
    await expect.poll(async () => (await api('GET', base)).body.delivery?.status).toBe('failed');
    expect(Date.now() - startedAt).toBeLessThan(10_000);
    const resolved = (await api('GET', base)).body;
    expect(resolved.delivery).toMatchObject({ status: 'failed', may_have_been_sent: true, next_attempt_at: null });
    expect(resolved.delivery.error).toContain('may have been delivered');
    expect(smtp.messages).toHaveLength(1);

    // The collector decides: Retry sends it once more, with the same Message-ID.
    expect((await api('POST', `${base}/retry`)).status).toBe(200);
    await expect.poll(async () => (await api('GET', base)).body.delivery?.status).toBe('sent');
    expect(smtp.messages).toHaveLength(2);
    expect(smtp.messages[1].messageId).toBe(smtp.messages[0].messageId);
    expect(await second.stop()).toBe(0);

    const after = await openEngine({ file: w.file });
    try {
      const job = await after.db.selectFrom('jobs').select(['status', 'attempts', 'locked_by']).where('kind', '=', 'action_email').executeTakeFirstOrThrow();
      // Claimed by the killed server, taken back and settled once at the start, then sent by Retry.
      expect(job).toEqual({ status: 'succeeded', attempts: 3, locked_by: null });
      expect(await after.db.selectFrom('communications').select('message_id').where('kind', '=', 'email').execute()).toEqual([{ message_id: smtp.messages[0].messageId }]);
    } finally {
      await after.close();
    }
  });
});
