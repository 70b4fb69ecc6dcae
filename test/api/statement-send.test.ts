import { simpleParser } from 'mailparser';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { coreJobHandlers } from '../../core/runtime/job-handlers';
import { createWorker } from '../../core/jobs/worker';
import { call, useApiWorkspace } from '../support/api';
import { keepPdf, pdfText } from '../support/pdf';
import { addBillingCustomer, addReminderInvoice, addSmtpConnection } from '../support/reminders-fixtures';
import { type SmtpServer, startSmtp } from '../support/smtp';

describe('sending statements of account by email (extension)', () => {
  const w = useApiWorkspace();
  let smtp: SmtpServer;

  beforeEach(async () => {
    smtp = await startSmtp();
  });
  afterEach(() => smtp.close());

  const runJobs = () => createWorker(w.engine, { handlers: coreJobHandlers() }).runDueJobs();

  it('sends 20 customers one email each with their statement attached, and reports the ones it could not', async () => {
    await addSmtpConnection(w.engine, w.company, smtp);
    const withAddress: Array<{ id: string; name: string; email: string; open: number }> = [];
    for (let i = 1; i <= 20; i++) {
      const name = i === 7 ? 'Ηλιόπουλος Α.Ε.' : `Customer ${String(i).padStart(2, '0')}`;
      const email = `billing${i}@customer${i}.example`;
      const id = await addBillingCustomer(w.engine, w.company, name, email);
      await addReminderInvoice(w.engine, w.company, id, { number: `ST-${i}`, total: 10_000 * i, dueDate: '2026-10-31' });
      withAddress.push({ id, name, email, open: 10_000 * i });
    }
    const noContact = await addBillingCustomer(w.engine, w.company, 'No Contact LLC', null);
    const bounced = await addBillingCustomer(w.engine, w.company, 'Bounced Ltd', 'gone@bounced.example');
    await w.engine.db.updateTable('customer_contacts').set({ email_failed_at: '2026-11-20T10:00:00.000Z' }).where('customer_id', '=', bounced).execute();

    const ids = [...withAddress.map((c) => c.id), noContact, bounced];
    const queued = await call(w.app, 'POST', `${w.base}/statement-runs`, { token: w.tokens.demo, body: { customer_ids: ids, as_of: '2026-11-23' } });
    expect(queued.status).toBe(202);
    expect(queued.body).toMatchObject({ total: 22, done: 0, sent: 0, not_sent: 0, finished: false });
    const job = await call(w.app, 'GET', `${w.base}/jobs/${queued.body.job_id}`, { token: w.tokens.demo });
    expect(job.body).toMatchObject({ kind: 'statement_send', status: 'queued' });

    const runs = await runJobs();
    expect(runs.map((r) => r.status)).toEqual(['succeeded']);
    expect(smtp.messages).toHaveLength(20);

    const run = await call(w.app, 'GET', `${w.base}/statement-runs/${queued.body.id}`, { token: w.tokens.demo });
    expect(run.body).toMatchObject({ total: 22, done: 22, sent: 20, not_sent: 2, finished: true });
    const byName = new Map(run.body.items.map((i: { customer_name: string }) => [i.customer_name, i]));
    expect(byName.get('No Contact LLC')).toMatchObject({ status: 'not_sent', reason: 'No billing contact with an email address', sent_to: [] });
    expect(byName.get('Bounced Ltd')).toMatchObject({ status: 'not_sent', reason: 'Mail to the billing contact bounced (gone@bounced.example)' });
    expect(byName.get('Customer 01')).toMatchObject({ status: 'sent', sent_to: ['billing1@customer1.example'] });

    for (const customer of withAddress) {
      const mail = smtp.messages.find((m) => m.to.includes(customer.email));
      expect(mail, customer.name).toBeDefined();
      const parsed = await simpleParser(mail!.raw);
      expect(parsed.subject).toBe('Statement of account from Acme Supply as of November 23, 2026');
      expect(parsed.text).toContain(`Hello ${customer.name},`);
      expect(parsed.attachments).toHaveLength(1);
      const [attachment] = parsed.attachments;
      expect(attachment.contentType).toBe('application/pdf');
      expect(attachment.filename).toMatch(/^Statement-.+-2026-11-23\.pdf$/);
      expect(attachment.content.subarray(0, 5).toString()).toBe('%PDF-');
      const text = pdfText(attachment.content);
      expect(text).toContain(customer.name);
      const dollars = `$${(customer.open / 100).toLocaleString('en-US', { minimumFractionDigits: 2 })}`;
      expect(text).toMatch(new RegExp(`ST-${withAddress.indexOf(customer) + 1}\\s+Oct 1, 2026\\s+Oct 31, 2026\\s+23\\s+\\${dollars}`));
      expect(text).toMatch(new RegExp(`Total due\\s+\\${dollars}`));
      expect(parsed.text).toContain(`Total due: ${dollars}.`);
      if (customer.name.startsWith('Ηλιόπουλος')) keepPdf('statement-emailed', attachment.content);
    }

    // Each statement sent is on its customer's timeline, with the file it carried; the others have nothing.
    const first = withAddress[0];
    const timeline = await call(w.app, 'GET', `${w.base}/communications?customer_id=${first.id}`, { token: w.tokens.demo });
    expect(timeline.body.data).toHaveLength(1);
    const sentMail = await simpleParser(smtp.messages.find((m) => m.to.includes(first.email))!.raw);
    expect(timeline.body.data[0]).toMatchObject({
      kind: 'email',
      direction: 'outbound',
      invoice: null,
      subject: 'Statement of account from Acme Supply as of November 23, 2026',
      author_name: 'demo',
      attachments: [{ name: 'Statement-Customer-01-2026-11-23.pdf', size: sentMail.attachments[0].content.length }],
    });
    for (const id of [noContact, bounced]) expect((await call(w.app, 'GET', `${w.base}/communications?customer_id=${id}`, { token: w.tokens.demo })).body.data).toEqual([]);

    // Running again sends nothing twice: every item is settled.
    await runJobs();
    expect(smtp.messages).toHaveLength(20);
  });

  it('reports every customer as not sent when the company has no email connection', async () => {
    const a = await addBillingCustomer(w.engine, w.company, 'Alpha', 'a@alpha.example');
    const queued = await call(w.app, 'POST', `${w.base}/statement-runs`, { token: w.tokens.demo, body: { customer_ids: [a] } });
    await runJobs();
    const run = await call(w.app, 'GET', `${w.base}/statement-runs/${queued.body.id}`, { token: w.tokens.demo });
    expect(run.body).toMatchObject({ as_of: '2026-11-23', sent: 0, not_sent: 1 });
    expect(run.body.items[0].reason).toBe('The company has no default email connection (Settings › Email connections)');
    expect(smtp.messages).toHaveLength(0);
  });

  it('refuses unknown customers, an empty list or a bad date with problem+json and queues nothing; viewers may not send', async () => {
    const a = await addBillingCustomer(w.engine, w.company, 'Alpha', 'a@alpha.example');
    const jobsBefore = await w.engine.db.selectFrom('jobs').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    for (const body of [{ customer_ids: [a, '0192f0c4-5f3e-7c4a-9a51-1f2e3d4c5b6a'] }, { customer_ids: [] }, { customer_ids: [a], as_of: '2026-13-01' }, { customer_ids: ['nope'] }]) {
      const res = await call(w.app, 'POST', `${w.base}/statement-runs`, { token: w.tokens.demo, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
    }
    expect((await call(w.app, 'POST', `${w.base}/statement-runs`, { token: w.tokens.watcher, body: { customer_ids: [a] } })).status).toBe(403);
    const jobsAfter = await w.engine.db.selectFrom('jobs').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect(jobsAfter.n).toBe(jobsBefore.n);
    expect(await w.engine.db.selectFrom('statement_runs').selectAll().where('company_id', '=', w.company).execute()).toEqual([]);
  });
});
