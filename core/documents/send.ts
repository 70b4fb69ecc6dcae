/**
 * Emailing statements of account: a run asks for one statement per customer; a background job
 * makes each PDF with the figures of that moment and sends it to the customer's billing contacts
 * over the company's default connection, one customer at a time, recording on each item what
 * happened (sent to whom, or why not), so the run reads as progress and then as a summary.
 *
 * An item is settled in its own transaction right after its message, so a run stopped halfway
 * resumes with the customers still pending and never mails a settled one twice.
 */
import { timestamp, today as todayOf } from '../clock';
import type { Db } from '../db/connection';
import type { Job, StatementItemStatus } from '../db/schema';
import { longDate } from '../dates';
import { chunks } from '../chunks';
import { checkContact, checkContacts } from '../contact/store';
import { overrideHolds } from '../contact/override';
import type { ContactHoldKind } from '../contact/rule';
import { handToSmtp, recordSentEmail } from '../email/outbox';
import { mintLinkForEmail, portalLinkLine } from '../email/portal-link';
import { type Engine, runCommand, type Scope } from '../engine';
import { NotFoundError, ValidationError } from '../errors';
import { newId } from '../ids';
import { enqueueJob } from '../jobs/queue';
import { type JobContext, PermanentJobError, StoppedJobError } from '../jobs/worker';
import { formatMoney } from '../money';
import { type CreditTotal, netBalances } from '../payments/credits';
import { defaultConnection } from '../email/connections';
import { statementTotals } from './draw-statement';
import { statementPdf } from './statement';

export const STATEMENT_SEND = 'statement_send';
export const MAX_STATEMENT_CUSTOMERS = 5000;

export interface StatementRunItem {
  customer_id: string;
  customer_name: string;
  status: StatementItemStatus;
  sent_to: string[];
  reason: string | null;
  pdf_bytes: number | null;
}

export interface StatementRun {
  id: string;
  as_of: string;
  job_id: string | null;
  total: number;
  done: number;
  sent: number;
  not_sent: number;
  finished: boolean;
  items: StatementRunItem[];
  created_at: string;
}

/** Asks for statements as of `asOf` for these customers (each once, in the order given). */
export async function requestStatements(engine: Pick<Engine, 'db' | 'clock'>, scope: Scope, customerIds: string[], asOf: string, overrideReason?: string): Promise<StatementRun> {
  const ids = [...new Set(customerIds)];
  if (ids.length === 0) throw new ValidationError('Choose at least one customer', { customer_ids: ['Choose at least one customer'] });
  if (ids.length > MAX_STATEMENT_CUSTOMERS) throw new ValidationError(`At most ${MAX_STATEMENT_CUSTOMERS} customers at a time`, { customer_ids: [`At most ${MAX_STATEMENT_CUSTOMERS}`] });
  const runId = newId();
  await runCommand(engine, 'request_statements', scope, async (tx) => {
    const known = new Set<string>();
    for (const chunk of chunks(ids)) {
      const rows = await tx.db.selectFrom('customers').select('id').where('company_id', '=', scope.companyId).where('id', 'in', chunk).execute();
      for (const r of rows) known.add(r.id);
    }
    const unknown = ids.filter((id) => !known.has(id));
    if (unknown.length) throw new ValidationError(`Unknown customers: ${unknown.slice(0, 10).join(', ')}${unknown.length > 10 ? ` and ${unknown.length - 10} more` : ''}`, { customer_ids: ['Unknown customers'] });
    // Send anyway: the holds the preview showed, each customer's kept in the change log; the job lets them pass.
    const overridden: Record<string, ContactHoldKind[]> = {};
    if (overrideReason !== undefined) {
      const answers = await checkContacts(tx.db, scope.companyId, ids.map((customerId) => ({ customerId, request: { channel: 'statement' as const, invoiceIds: [] } })), tx.now);
      for (const [i, customerId] of ids.entries()) {
        if (answers[i].held.length) overridden[customerId] = await overrideHolds(tx, scope.companyId, answers[i], overrideReason, { statement_run_id: runId, customer_id: customerId, channel: 'statement' });
      }
    }
    const payload: StatementRunPayload = { run_id: runId, ...(Object.keys(overridden).length ? { overridden } : {}) };
    const job = await enqueueJob(tx, { companyId: scope.companyId, kind: STATEMENT_SEND, idempotencyKey: `statement-run:${runId}`, payload, subjectId: runId, maxAttempts: 3 });
    await tx.db.insertInto('statement_runs').values({ id: runId, company_id: scope.companyId, as_of: asOf, requested_by: scope.actor.userId, job_id: job.id, created_at: tx.now, updated_at: tx.now }).execute();
    const items = ids.map((customerId, position) => ({ id: newId(), company_id: scope.companyId, run_id: runId, customer_id: customerId, position, status: 'pending' as const, updated_at: tx.now }));
    for (const rows of chunks(items, 200)) await tx.db.insertInto('statement_run_items').values(rows).execute();
    await tx.record('statement_run', runId, 'insert', { as_of: asOf, customers: ids.length, job_id: job.id });
  });
  return getStatementRun(engine.db, scope.companyId, runId);
}

/** A statement run's job: the run, and the holds a person chose to send through for each customer. */
interface StatementRunPayload {
  run_id: string;
  overridden?: Record<string, ContactHoldKind[]>;
}

export interface StatementPreview {
  total: number;
  /** How many statements would go now. */
  will_send: number;
  /** The customers the contact rule holds now, with why: their statement would not go. */
  held: Array<{ customer_id: string; customer_name: string; reason: string }>;
}

/** What a statement run would do now, before anyone asks for it: who is held and why, how many go. */
export async function previewStatements(engine: Pick<Engine, 'db' | 'clock'>, companyId: string, customerIds: string[]): Promise<StatementPreview> {
  const ids = [...new Set(customerIds.map((id) => id.toLowerCase()))];
  const names = new Map<string, string>();
  for (const chunk of chunks(ids)) {
    for (const r of await engine.db.selectFrom('customers').select(['id', 'name']).where('company_id', '=', companyId).where('id', 'in', chunk).execute()) names.set(r.id, r.name);
  }
  const unknown = ids.filter((id) => !names.has(id));
  if (unknown.length) throw new ValidationError(`Unknown customers: ${unknown.slice(0, 10).join(', ')}`, { customer_ids: ['Unknown customers'] });
  const answers = await checkContacts(engine.db, companyId, ids.map((customerId) => ({ customerId, request: { channel: 'statement' as const, invoiceIds: [] } })), timestamp(engine.clock));
  const held = ids.flatMap((id, i) => (answers[i].allowed ? [] : [{ customer_id: id, customer_name: names.get(id) ?? '', reason: answers[i].reason ?? 'Held.' }]));
  return { total: ids.length, will_send: ids.length - held.length, held };
}

export async function getStatementRun(db: Db, companyId: string, runId: string): Promise<StatementRun> {
  const run = await db.selectFrom('statement_runs').selectAll().where('company_id', '=', companyId).where('id', '=', runId).executeTakeFirst();
  if (!run) throw new NotFoundError('Statement run', runId);
  const rows = await db
    .selectFrom('statement_run_items as s')
    .innerJoin('customers as c', 'c.id', 's.customer_id')
    .select(['s.customer_id', 'c.name as customer_name', 's.status', 's.sent_to', 's.reason', 's.pdf_bytes'])
    .where('s.company_id', '=', companyId)
    .where('s.run_id', '=', runId)
    .orderBy('s.position')
    .execute();
  const items = rows.map((r) => ({ ...r, sent_to: r.sent_to ? r.sent_to.split(', ') : [] }));
  const sent = items.filter((i) => i.status === 'sent').length;
  const notSent = items.filter((i) => i.status === 'not_sent').length;
  return { id: run.id, as_of: run.as_of, job_id: run.job_id, total: items.length, done: sent + notSent, sent, not_sent: notSent, finished: sent + notSent === items.length, items, created_at: run.created_at };
}

/** The billing contacts' addresses that can be written to (known to bounce: left out). */
async function billingAddresses(db: Db, companyId: string, customerId: string): Promise<{ to: string[]; bounced: string[] }> {
  const rows = await db
    .selectFrom('customer_contacts')
    .select(['email', 'email_failed_at'])
    .where('company_id', '=', companyId)
    .where('customer_id', '=', customerId)
    .where('is_billing', '=', 1)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  const to: string[] = [];
  const bounced: string[] = [];
  for (const row of rows) {
    const email = row.email?.trim();
    if (!email || !email.includes('@')) continue;
    (row.email_failed_at ? bounced : to).push(email);
  }
  return { to: [...new Set(to)], bounced };
}

/** The message that carries a statement, in the company's words to the customer. */
export function statementEmail(
  companyName: string,
  customerName: string,
  asOf: string,
  totals: ReturnType<typeof statementTotals>,
  portalLink: string | null = null,
  credits: CreditTotal[] = [],
): { subject: string; text: string } {
  const subject = `Statement of account from ${companyName} as of ${longDate(asOf)}`;
  const due = totals.length === 0 ? 'Nothing is due on your account.' : `Total due: ${totals.map((t) => formatMoney(t.total_due, t.currency)).join(' and ')}.`;
  // With credits the PDF's amount due is the total less them: the message says the same.
  const net = netBalances(totals.map((t) => ({ currency: t.currency, open: t.total_due })), credits);
  const after = credits.length
    ? `Credits on your account: ${credits.map((c) => formatMoney(c.credits, c.currency)).join(' and ')}; ${net.map((n) => (n.net >= 0 ? `amount due ${formatMoney(n.net, n.currency)}` : `${formatMoney(-n.net, n.currency)} in your favour`)).join(' and ')}.`
    : null;
  const text = [`Hello ${customerName},`, '', `Please find attached your statement of account as of ${longDate(asOf)}.`, due, ...(after ? [after] : []), '', 'If anything on it does not match your records, reply to this email and we will look into it.', '', ...(portalLink ? [portalLinkLine(portalLink), ''] : []), `Thank you,`, companyName].join('\n');
  return { subject, text };
}

/** A statement that went out, as the customer's timeline keeps it: an outbound email with its file named. */
interface SentStatement {
  subject: string;
  text: string;
  connectionId: string;
  fileName: string;
  author: { userId: string | null; name: string };
}

async function settle(
  engine: Engine,
  job: Job,
  itemId: string,
  customerId: string,
  outcome: { status: 'sent' | 'not_sent'; sentTo?: string[]; reason?: string; messageId?: string; pdfBytes?: number; sent?: SentStatement },
) {
  await runCommand(engine, 'settle_statement', { actor: outcome.sent?.author ?? { userId: null, name: 'ardesk' }, companyId: job.company_id }, async (tx) => {
    await tx.db
      .updateTable('statement_run_items')
      .set({ status: outcome.status, sent_to: outcome.sentTo?.join(', ') ?? null, reason: outcome.reason ?? null, message_id: outcome.messageId ?? null, pdf_bytes: outcome.pdfBytes ?? null, updated_at: tx.now })
      .where('id', '=', itemId)
      .where('status', '=', 'pending')
      .execute();
    await tx.record('statement_run_item', itemId, 'update', { customer_id: customerId, status: outcome.status, sent_to: outcome.sentTo ?? null, reason: outcome.reason ?? null });
    const sent = outcome.sent;
    if (!sent) return;
    await recordSentEmail(tx, {
      companyId: job.company_id,
      customerId,
      invoiceId: null,
      subject: sent.subject,
      body: sent.text,
      author: sent.author,
      connectionId: sent.connectionId,
      messageId: outcome.messageId ?? null,
      attachments: JSON.stringify([{ name: sent.fileName, size: outcome.pdfBytes ?? 0 }]),
      // The statement lists every open invoice of the customer: each was touched.
      aboutInvoiceIds: (
        await tx.db.selectFrom('invoices').select('id').where('company_id', '=', job.company_id).where('customer_id', '=', customerId).where('closing_reason', 'is', null).where('balance', '>', 0).execute()
      ).map((i) => i.id),
    });
  });
}

/** The job: every pending customer of the run, one message each. */
export async function sendStatementsJob(job: Job, ctx: JobContext): Promise<void> {
  const { engine } = ctx;
  const { run_id: runId, overridden = {} } = JSON.parse(job.payload) as StatementRunPayload;
  const run = await engine.db.selectFrom('statement_runs').selectAll().where('company_id', '=', job.company_id).where('id', '=', runId).executeTakeFirst();
  if (!run) throw new PermanentJobError(`Statement run ${runId} no longer exists`);
  const connection = await defaultConnection(engine.db, job.company_id);
  const company = await engine.db.selectFrom('companies').select('name').where('id', '=', job.company_id).executeTakeFirstOrThrow();
  const legal = await engine.db.selectFrom('company_document_details').select('legal_name').where('company_id', '=', job.company_id).executeTakeFirst();
  const companyName = legal?.legal_name ?? company.name;
  // Who asked for the run writes the emails on the customers' timelines (the company, if they left).
  const requester = run.requested_by ? await engine.db.selectFrom('users').select(['id', 'display_name']).where('id', '=', run.requested_by).executeTakeFirst() : undefined;
  const author = { userId: requester?.id ?? null, name: requester?.display_name ?? companyName };
  const pending = await engine.db
    .selectFrom('statement_run_items as s')
    .innerJoin('customers as c', 'c.id', 's.customer_id')
    .select(['s.id', 's.customer_id', 'c.name'])
    .where('s.company_id', '=', job.company_id)
    .where('s.run_id', '=', runId)
    .where('s.status', '=', 'pending')
    .orderBy('s.position')
    .execute();
  for (const item of pending) {
    // Each customer is settled on its own: a stopping server hands the rest back for its next start.
    if (ctx.signal.aborted) throw new StoppedJobError();
    if (!connection) {
      await settle(engine, job, item.id, item.customer_id, { status: 'not_sent', reason: 'The company has no default email connection (Settings › Email connections)' });
      continue;
    }
    const { to, bounced } = await billingAddresses(engine.db, job.company_id, item.customer_id);
    if (to.length === 0) {
      const reason = bounced.length ? `Mail to the billing contact bounced (${bounced.join(', ')})` : 'No billing contact with an email address';
      await settle(engine, job, item.id, item.customer_id, { status: 'not_sent', reason });
      continue;
    }
    // The contact rule before the statement is drawn; asked again at the door, right before SMTP.
    const contact = { channel: 'statement' as const, decidedAt: run.created_at, overridden: overridden[item.customer_id] };
    const answer = await checkContact(engine.db, job.company_id, item.customer_id, { ...contact, invoiceIds: [] }, timestamp(engine.clock));
    if (!answer.allowed) {
      await settle(engine, job, item.id, item.customer_id, { status: 'not_sent', reason: answer.reason ?? 'Held.' });
      continue;
    }
    const { pdf, fileName, data } = await statementPdf(engine.db, job.company_id, item.customer_id, { asOf: run.as_of }, todayOf(engine.clock));
    const email = statementEmail(companyName, item.name, run.as_of, statementTotals(data.invoices, run.as_of), await mintLinkForEmail(engine, job.company_id, item.customer_id), data.credits.totals);
    const messageId = `<statement-${item.id}@${connection.from_email.split('@')[1] ?? 'ardesk.local'}>`;
    try {
      const message = { to: to.join(', '), subject: email.subject, text: email.text, messageId, attachments: [{ filename: fileName, content: pdf, contentType: 'application/pdf' }] };
      await handToSmtp(engine, { companyId: job.company_id, customerId: item.customer_id, invoiceIds: [], connection, message, contact });
      await settle(engine, job, item.id, item.customer_id, {
        status: 'sent',
        sentTo: to,
        messageId,
        pdfBytes: pdf.length,
        sent: { subject: email.subject, text: email.text, connectionId: connection.id, fileName, author },
      });
    } catch (err) {
      // Held by the contact rule, or the mailer's own sentence (our words plus the SMTP status).
      const reason = err instanceof Error ? err.message : String(err);
      await settle(engine, job, item.id, item.customer_id, { status: 'not_sent', reason });
    }
  }
  const summary = await getStatementRun(engine.db, job.company_id, runId);
  await ctx.succeed({ write: async () => ({ run_id: runId, total: summary.total, sent: summary.sent, not_sent: summary.not_sent }) });
}
