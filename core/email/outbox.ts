/**
 * Outgoing mail's bookkeeping, one door for every channel that writes to a customer (sequence
 * steps, reminders, approved actions, statements):
 * - `handToSmtp`: the one place a customer-facing email is handed to SMTP;
 * - `recordSentEmail`: an email that went out becomes the customer's communication (and settles a
 *   job's outbox row);
 * - `requeueSend`: a person asks a failed job's email again.
 *
 * Record before send. A job's email gets an `email_outbox` row committed as 'sending' before the
 * SMTP call and settled after it. The rule for a collector, where a duplicate dunning email is
 * worse than a late one:
 * - the server refused the message, or no connection was made: 'not_sent', safe to try again;
 * - the message may have reached the server (a connection lost mid-session, a timeout waiting for
 *   the reply, or the process died while the row said 'sending'): 'unknown', and it is NOT sent
 *   again automatically. A person who asks again sends it with the same Message-ID.
 */
import { ContactHeldError, type ContactRequest } from '../contact/rule';
import { recheckContact } from '../contact/store';
import { chunks } from '../chunks';
import type { Db } from '../db/connection';
import type { EmailConnection, EmailOutboxStatus, Job } from '../db/schema';
import { type Actor, type CommandTx, type Engine, runCommand, systemActor } from '../engine';
import { newId } from '../ids';
import { withdrawProposals } from '../supersede/withdraw';
import { DEFAULT_MAX_ATTEMPTS } from '../jobs/queue';
import { PermanentJobError } from '../jobs/worker';
import { type OutgoingEmail, sendEmail } from './mailer';

/** A customer-facing email about to go out: who it is for and what it is about, and the message. */
export interface CustomerEmail {
  companyId: string;
  customerId: string;
  /** The invoices it is about; none for the customer's account as a whole (a statement). */
  invoiceIds: string[];
  connection: EmailConnection;
  message: OutgoingEmail;
  /** What the contact rule is asked at the door (its invoice ids are `invoiceIds`). */
  contact: Omit<ContactRequest, 'invoiceIds'>;
}

/**
 * The one door every customer-facing email passes right before SMTP: the contact rule is asked
 * again here (core/contact), after the attachments are drawn and nothing else remains to be done
 * but the SMTP call, so a hold recorded meanwhile stops it. Throws ContactHeldError when held.
 */
export async function handToSmtp(engine: Pick<Engine, 'db' | 'clock' | 'secrets'>, email: CustomerEmail): Promise<void> {
  await recheckContact(engine, { companyId: email.companyId, customerId: email.customerId, request: { ...email.contact, invoiceIds: email.invoiceIds } });
  await sendEmail(email.connection, engine.secrets, email.message);
}

/**
 * Internal mail (the weekly digest to the company's managers): written to the company's own people,
 * never to a customer, so the contact rule is not asked. It leaves through this door all the same.
 */
export async function handInternalToSmtp(engine: Pick<Engine, 'secrets'>, connection: EmailConnection, message: OutgoingEmail): Promise<void> {
  await sendEmail(connection, engine.secrets, message);
}

/** An email that went out, as the customer's timeline keeps it. */
export interface SentRecord {
  companyId: string;
  customerId: string;
  invoiceId: string | null;
  subject: string;
  body: string;
  author: Actor;
  connectionId: string;
  messageId: string | null;
  /** JSON list of {name, size} of the files sent with it, or null. */
  attachments: string | null;
  /**
   * Every invoice the email spoke of (a list of invoices, a statement's open invoices): each gets it
   * as its last touch, as `invoiceId` does through the communication's insert trigger.
   */
  aboutInvoiceIds?: string[];
  /** An answer in a thread: its References chain (stored space separated) and the thread's first Message-ID. */
  references?: string | null;
  threadId?: string | null;
}

/**
 * Records a sent email as an outbound communication (its insert trigger makes it the invoice's last
 * touch) and, for a job's email, settles the job's outbox row as sent, in the caller's transaction.
 * Returns the communication's id.
 */
export async function recordSentEmail(tx: CommandTx, sent: SentRecord, jobId?: string): Promise<string> {
  const communicationId = newId();
  const data = {
    company_id: sent.companyId,
    customer_id: sent.customerId,
    invoice_id: sent.invoiceId,
    kind: 'email' as const,
    direction: 'outbound' as const,
    subject: sent.subject,
    body: sent.body,
    occurred_at: tx.now,
    author_user_id: sent.author.userId,
    author_name: sent.author.name,
    email_connection_id: sent.connectionId,
    message_id: sent.messageId,
    attachments: sent.attachments,
    email_references: sent.references ?? null,
    thread_id: sent.threadId ?? null,
    created_at: tx.now,
  };
  await tx.db.insertInto('communications').values({ id: communicationId, ...data }).execute();
  await tx.record('communication', communicationId, 'insert', data);
  // What went out answers the engine's open proposals to chase these invoices again (or to answer their reply).
  const about = [...new Set([...(sent.invoiceId ? [sent.invoiceId] : []), ...(sent.aboutInvoiceIds ?? [])])];
  await withdrawProposals(tx, sent.companyId, { kind: 'contact', customerId: sent.customerId, invoiceIds: about, on: tx.now.slice(0, 10) });
  for (const ids of chunks((sent.aboutInvoiceIds ?? []).filter((id) => id !== sent.invoiceId))) {
    await tx.db
      .updateTable('invoices')
      .set({ last_touch_at: tx.now, last_touched_by: sent.author.name })
      .where('company_id', '=', sent.companyId)
      .where('id', 'in', ids)
      .where((eb) => eb.or([eb('last_touch_at', 'is', null), eb('last_touch_at', '<=', tx.now)]))
      .execute();
  }
  if (jobId !== undefined) {
    const settled = { status: 'sent' as const, sent_at: tx.now, last_error: null, communication_id: communicationId, updated_at: tx.now };
    const row = await tx.db.updateTable('email_outbox').set(settled).where('job_id', '=', jobId).returning('id').executeTakeFirstOrThrow();
    await tx.record('email_outbox', row.id, 'update', settled);
  }
  return communicationId;
}

/**
 * Puts a job's email back in the queue to run now, at a person's request (Retry, asking again).
 * Attempts keep counting (they fence the claim); the send gets a fresh set of tries. An email left
 * 'sending' by a crash becomes 'unknown': the person asking again has accepted that it may go out
 * twice (with the same Message-ID).
 */
export async function requeueSend(tx: CommandTx, job: Pick<Job, 'id' | 'attempts'>, payload: unknown): Promise<void> {
  const changes = {
    status: 'queued' as const,
    max_attempts: job.attempts + DEFAULT_MAX_ATTEMPTS,
    run_after: tx.now,
    locked_at: null,
    locked_by: null,
    last_error: null,
    payload: JSON.stringify(payload),
    updated_at: tx.now,
  };
  await tx.db.updateTable('jobs').set(changes).where('id', '=', job.id).execute();
  await tx.record('job', job.id, 'update', changes);
  const interrupted = await tx.db.selectFrom('email_outbox').select('id').where('job_id', '=', job.id).where('status', '=', 'sending').executeTakeFirst();
  if (interrupted) {
    await tx.db.updateTable('email_outbox').set({ status: 'unknown', updated_at: tx.now }).where('id', '=', interrupted.id).execute();
    await tx.record('email_outbox', interrupted.id, 'update', { status: 'unknown' });
  }
}

/** What the collector reads about a failed try: stored on the outbox row, and the job's error. */
export interface FailureWords {
  settled: string;
  thrown: string;
}

/**
 * A job's run begins here: the outbox row of its email, if an earlier try made one. An earlier run
 * that committed 'sending' and never settled it may have delivered the message: it is settled
 * 'unknown' and the job fails for good with `interrupted`'s words, never sending again by itself.
 */
export async function openJobOutbox(engine: Pick<Engine, 'db' | 'clock'>, job: Job, interrupted: (messageId: string) => FailureWords) {
  const outbox = await findOutbox(engine.db, job.id);
  if (outbox?.status === 'sending') {
    const words = interrupted(outbox.message_id);
    await settleOutbox(engine, job, 'unknown', words.settled);
    throw new PermanentJobError(words.thrown);
  }
  return outbox;
}

/**
 * A job's email: the intent committed, then the message handed to SMTP. A failure settles the
 * outbox row (not sent, or unknown when the message may have been accepted) and is thrown in
 * `failed`'s words: for good when another try could deliver twice or cannot succeed.
 */
export async function sendJobEmail(engine: Pick<Engine, 'db' | 'clock' | 'secrets'>, job: Job, email: CustomerEmail, failed: (err: unknown, outcome: SendOutcome) => FailureWords): Promise<void> {
  const { message } = email;
  await recordSendIntent(engine, job, { invoiceId: email.invoiceIds[0] ?? null, customerId: email.customerId, connectionId: email.connection.id, messageId: message.messageId, to: message.to, subject: message.subject });
  try {
    await handToSmtp(engine, email);
  } catch (err) {
    // Held by the contact rule: nothing left the machine, and it does not go again by itself.
    if (err instanceof ContactHeldError) {
      await settleOutbox(engine, job, 'not_sent', err.message);
      throw err;
    }
    const outcome = classifySendError(err);
    const words = failed(err, outcome);
    await settleOutbox(engine, job, outcome.delivered === 'unknown' ? 'unknown' : 'not_sent', words.settled);
    throw outcome.delivered === false && outcome.retry ? new Error(words.thrown) : new PermanentJobError(words.thrown);
  }
}

export async function findOutbox(db: Db, jobId: string) {
  return db.selectFrom('email_outbox').selectAll().where('job_id', '=', jobId).executeTakeFirst();
}

/** A Message-ID tied to the job, so every send of one reminder carries the same id. */
export function jobMessageId(jobId: string, fromEmail: string): string {
  const domain = /@([A-Za-z0-9.-]+)$/.exec(fromEmail.trim())?.[1] ?? 'ardesk.invalid';
  return `<reminder.${jobId}@${domain}>`;
}

export interface SendIntent {
  /** Null for an email about the customer as a whole (an approved action without an invoice). */
  invoiceId: string | null;
  customerId: string;
  connectionId: string;
  messageId: string;
  to: string;
  subject: string;
}

/** Commits 'sending' for the job's email (creating its row on the first attempt) before the SMTP call. */
async function recordSendIntent(engine: Pick<Engine, 'db' | 'clock'>, job: Job, intent: SendIntent): Promise<void> {
  await runCommand(engine, 'record_email_intent', { actor: systemActor, companyId: job.company_id }, async (tx) => {
    const existing = await findOutbox(tx.db, job.id);
    const fields = {
      email_connection_id: intent.connectionId,
      to_email: intent.to,
      subject: intent.subject,
      status: 'sending' as const,
      started_at: tx.now,
      updated_at: tx.now,
    };
    if (existing) {
      await tx.db
        .updateTable('email_outbox')
        .set((eb) => ({ ...fields, send_attempts: eb('send_attempts', '+', 1) }))
        .where('id', '=', existing.id)
        .execute();
      await tx.record('email_outbox', existing.id, 'update', fields);
      return;
    }
    const row = {
      id: newId(),
      company_id: job.company_id,
      job_id: job.id,
      invoice_id: intent.invoiceId,
      customer_id: intent.customerId,
      message_id: intent.messageId,
      send_attempts: 1,
      last_error: null,
      communication_id: null,
      sent_at: null,
      created_at: tx.now,
      ...fields,
    };
    await tx.db.insertInto('email_outbox').values(row).execute();
    const { id, ...data } = row;
    await tx.record('email_outbox', id, 'insert', data);
  });
}

export async function settleOutbox(engine: Pick<Engine, 'db' | 'clock'>, job: Job, status: Exclude<EmailOutboxStatus, 'sending' | 'sent'>, error: string): Promise<void> {
  await runCommand(engine, 'settle_email', { actor: systemActor, companyId: job.company_id }, async (tx) => {
    const row = await findOutbox(tx.db, job.id);
    if (!row) return;
    await tx.db.updateTable('email_outbox').set({ status, last_error: error, updated_at: tx.now }).where('id', '=', row.id).execute();
    await tx.record('email_outbox', row.id, 'update', { status, last_error: error });
  });
}

export type SendOutcome = { delivered: false; retry: boolean } | { delivered: 'unknown' };

const NEVER_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'EADDRNOTAVAIL']);
const BEFORE_SESSION_TIMEOUTS = new Set(['CONNECT_TIMEOUT', 'GREETING_TIMEOUT', 'UPGRADE_TIMEOUT']);
const REFUSED_BEFORE_SENDING = new Set(['EDNS', 'ETLS', 'EREQUIRETLS', 'EAUTH', 'ENOAUTH', 'EENVELOPE', 'ECONFIG']);
const PERMANENT_WITHOUT_REPLY = new Set(['ENOAUTH', 'EENVELOPE', 'ECONFIG']);

/**
 * What a failed SMTP send means for the message (nodemailer's error fields). A negative server
 * reply is a refusal (5xx: permanent, 4xx: try later); a failure before the session existed
 * cannot have delivered anything; everything else might have.
 */
export function classifySendError(err: unknown): SendOutcome {
  const e = (err ?? {}) as { code?: string; originalCode?: string; responseCode?: number; timeoutType?: string };
  if (typeof e.responseCode === 'number' && e.responseCode >= 400) return { delivered: false, retry: e.responseCode < 500 };
  if (e.originalCode && NEVER_CONNECTED.has(e.originalCode)) return { delivered: false, retry: true };
  if (e.code === 'ETIMEDOUT' && e.timeoutType && BEFORE_SESSION_TIMEOUTS.has(e.timeoutType)) return { delivered: false, retry: true };
  if (e.code && REFUSED_BEFORE_SENDING.has(e.code)) return { delivered: false, retry: !PERMANENT_WITHOUT_REPLY.has(e.code) };
  return { delivered: 'unknown' };
}
