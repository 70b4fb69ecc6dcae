/**
 * Record before send. A job's email gets an `email_outbox` row committed as 'sending' before the
 * SMTP call and settled after it. The rule for a collector, where a duplicate dunning email is
 * worse than a late one:
 * - the server refused the message, or no connection was made: 'not_sent', safe to try again;
 * - the message may have reached the server (a connection lost mid-session, a timeout waiting for
 *   the reply, or the process died while the row said 'sending'): 'unknown', and it is NOT sent
 *   again automatically. A person who asks again sends it with the same Message-ID.
 */
import type { Db } from '../db/connection';
import type { EmailOutboxStatus, Job } from '../db/schema';
import { type Engine, runCommand, systemActor } from '../engine';
import { newId } from '../ids';

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
export async function recordSendIntent(engine: Pick<Engine, 'db' | 'clock'>, job: Job, intent: SendIntent): Promise<void> {
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
