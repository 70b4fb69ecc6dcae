/**
 * The server speaks in its own words (issue 37, N6): a mail server's refusal reaches users as our
 * sentence plus the SMTP status, while what the remote server said goes to the operator's log
 * only. And a team server does not connect to private or loopback addresses unless its operator
 * lists them in --mail-hosts.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { mailRuleOf } from '../../core/cli/commands/serve';
import { smtpRefusalWords, smtpStatusClass } from '../../core/email/diagnose';
import { isLoopbackHost, isPrivateAddress, resolvedRefusal, TEAM_MAIL_ENDPOINT } from '../../core/email/endpoints';
import { createApp } from '../../core/http/app';
import { createWorker } from '../../core/jobs/worker';
import { coreJobHandlers } from '../../core/runtime/job-handlers';
import { addCompany, addUser, type App, call, loginAs } from '../support/api';
import { type TestEngine, testEngine } from '../support/engine';
import { addBillingCustomer, addReminderInvoice, addSmtpConnection } from '../support/reminders-fixtures';
import { addMember } from '../support/rows';
import { type SmtpServer, startSmtp } from '../support/smtp';

const NOW = '2026-11-23T12:00:00.000Z';
const REMOTE_TEXT = 'SECRET-MAILFROM-REJECT relay db=10.0.0.5 user=svc_mail';
const LEAK = /SECRET|10\.0\.0\.5|svc_mail|relay db/;

describe('mail errors in our own words', () => {
  let engine: TestEngine;
  let app: App;
  let token: string;
  let company: string;
  let smtp: SmtpServer;

  beforeAll(async () => {
    engine = await testEngine(NOW);
    app = createApp(engine);
    company = await addCompany(engine, 'Acme Supply');
    await addMember(engine, company, await addUser(engine, 'olga', []), 'owner');
    token = await loginAs(app, 'olga');
    smtp = await startSmtp({ rejectSender: () => ({ code: 550, message: `5.7.1 ${REMOTE_TEXT}` }) });
  });
  afterAll(async () => {
    await smtp?.close();
    await engine.dispose();
  });

  it('reads the SMTP status class and says which step was refused', () => {
    expect(smtpStatusClass(`550 5.7.1 ${REMOTE_TEXT}`, 550)).toBe('5.7.1');
    expect(smtpStatusClass('550 mailbox unavailable 5.1.1', 550)).toBe('550');
    expect(smtpStatusClass(undefined, 451)).toBe('451');
    const at = { host: 'smtp.acme.example', port: 587 };
    expect(smtpRefusalWords('MAIL FROM', '5.7.1', at)).toBe('The mail server smtp.acme.example:587 refused the sender (5.7.1).');
    expect(smtpRefusalWords('RCPT TO', '5.1.1', at)).toBe('The mail server smtp.acme.example:587 refused the recipient (5.1.1).');
    expect(smtpRefusalWords('DATA', '5.6.0', at)).toBe('The mail server smtp.acme.example:587 refused the message (5.6.0).');
    expect(smtpRefusalWords('AUTH PLAIN', '535', at)).toBe('The mail server smtp.acme.example:587 refused the username or password (535).');
  });

  it("records a refused reminder with our sentence and the status only; the server's text goes to the operator's log", async () => {
    const customer = await addBillingCustomer(engine, company, 'Cobalt Retail', 'payables@cobalt.example');
    const invoice = await addReminderInvoice(engine, company, customer, { number: 'INV-1001', total: 125_000, dueDate: '2026-10-31' });
    await addSmtpConnection(engine, company, { host: smtp.host, port: smtp.port });
    expect((await call(app, 'POST', `/api/companies/${company}/invoices/bulk/send-reminders`, { token, body: { invoice_ids: [invoice] } })).status).toBe(200);
    const log = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const worker = createWorker(engine, { handlers: coreJobHandlers(), retryBaseMs: 60_000 });
    let operatorLog = '';
    try {
      await worker.runDueJobs();
      operatorLog = log.mock.calls.map((args) => args.join(' ')).join('\n');
    } finally {
      await worker.stop();
      log.mockRestore();
    }
    expect(operatorLog).toContain(REMOTE_TEXT);

    const reminders = await call(app, 'GET', `/api/companies/${company}/invoices/${invoice}/reminders`, { token });
    const words = `The mail server ${smtp.host}:${smtp.port} refused the sender (5.7.1).`;
    expect(reminders.body.data[0].last_error).toContain(words);
    const health = await call(app, 'GET', `/api/companies/${company}/email-health`, { token });
    expect(health.body).toMatchObject({ status: 'failing', message: words });
    for (const body of [reminders.body, health.body]) expect(JSON.stringify(body)).not.toMatch(LEAK);
    // Nor in what the database keeps and syncs: the outbox, the job, the change records.
    const s = engine.database.sqlite;
    const stored = [s.prepare('SELECT last_error FROM email_outbox').all(), s.prepare('SELECT last_error FROM jobs').all(), s.prepare('SELECT data FROM changes').all()];
    expect(JSON.stringify(stored)).toContain('(5.7.1)');
    expect(JSON.stringify(stored)).not.toMatch(LEAK);
    expect(smtp.messages).toHaveLength(0);
  });
});

describe('a team server and private mail hosts', () => {
  let engine: TestEngine;
  let token: string;
  let company: string;

  beforeAll(async () => {
    engine = await testEngine(NOW);
    company = await addCompany(engine, 'Acme Supply');
    await addMember(engine, company, await addUser(engine, 'olga', []), 'owner');
    token = await loginAs(createApp(engine), 'olga');
  });
  afterAll(async () => {
    await engine.dispose();
  });

  const connection = (host: string) => ({ name: host, from_email: 'ar@acme.example', smtp_host: host, smtp_port: 587 });

  it('refuses loopback, private and link-local addresses unless --mail-hosts lists them', async () => {
    const team = createApp(engine, { team: true });
    for (const host of ['127.0.0.1', '10.0.0.5', '192.168.1.20', '172.16.4.4', '169.254.169.254', '::1', 'fd00::1', 'localhost']) {
      const res = await call(team, 'POST', `/api/companies/${company}/email-connections`, { token, body: connection(host) });
      expect(res.status, host).toBe(400);
      expect(res.body.errors.smtp_host, host).toEqual([`This server may not connect to a private or local address (${host}) unless its operator lists it in --mail-hosts`]);
    }
    expect((await call(team, 'POST', `/api/companies/${company}/email-connections`, { token, body: connection('smtp.acme.example') })).status).toBe(201);
    const listed = createApp(engine, { team: true, mailRule: mailRuleOf(undefined, '10.0.0.5') });
    expect((await call(listed, 'POST', `/api/companies/${company}/email-connections`, { token, body: connection('10.0.0.5') })).status).toBe(201);
    // A desktop reaches any host: the person tests their own mailbox.
    const desktop = createApp(engine);
    const made = await call(desktop, 'POST', `/api/companies/${company}/email-connections`, { token, body: connection('127.0.0.1') });
    expect(made.status).toBe(201);
    // Made on a desktop, tested on the team server: not even tried.
    const tested = await call(team, 'POST', `/api/companies/${company}/email-connections/${made.body.id}/test`, { token });
    expect(tested.body.smtp).toMatchObject({ ok: false, message: 'This server may not connect to a private or local address (127.0.0.1) unless its operator lists it in --mail-hosts', certificate: null });
  });

  it('checks what a host name resolves to, and knows the private and loopback ranges', async () => {
    expect(await resolvedRefusal(TEAM_MAIL_ENDPOINT, 'localhost')).toMatch(/^This server may not connect to a private or local address \(localhost, (127\.0\.0\.1|::1)\)/);
    expect(await resolvedRefusal(mailRuleOf(undefined, 'localhost'), 'localhost')).toBeNull();
    expect(await resolvedRefusal({ ports: null, hosts: null, refusePrivate: false }, 'localhost')).toBeNull();
    for (const address of ['127.0.0.1', '10.1.2.3', '100.64.0.1', '::ffff:192.168.0.1', '[::1]', 'fe80::1', '0.0.0.0']) expect(isPrivateAddress(address), address).toBe(true);
    for (const address of ['8.8.8.8', '172.32.0.1', '2001:4860:4860::8888', 'smtp.acme.example']) expect(isPrivateAddress(address), address).toBe(false);
    for (const host of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', '::ffff:127.0.0.1', 'LocalHost']) expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ['10.0.0.5', '::', 'smtp.acme.example', 'localhost.acme.example']) expect(isLoopbackHost(host), host).toBe(false);
  });
});
