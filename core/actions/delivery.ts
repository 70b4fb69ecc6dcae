/**
 * Carrying out an approved email action: one durable job per action (the reminders' job queue and
 * outbox, so a send survives a crash and is never repeated on its own), and what the collector
 * reads about it. The job itself is in send.ts.
 */
import { type ContactHoldKind, isHeldWords } from '../contact/rule';
import { overrideHolds } from '../contact/override';
import { checkContact } from '../contact/store';
import type { Db } from '../db/connection';
import type { EmailOutboxStatus, JobStatus } from '../db/schema';
import type { Actor, CommandTx } from '../engine';
import { ConflictError, InvalidStateError } from '../errors';
import { requeueSend } from '../email/outbox';
import { addMs, enqueueJob, leaseAbandoned } from '../jobs/queue';
import { WORKER_DEFAULTS } from '../jobs/worker';
import { saysPastDue } from '../sequences/templates';

export const ACTION_EMAIL = 'action_email';

export interface ActionEmailPayload {
  action_id: string;
  /** Who approved: the author of the communication the send records. */
  requested_by: { user_id: string | null; name: string | null };
  /** The holds the approver chose to send through (Send anyway): the door lets them pass. */
  overridden?: ContactHoldKind[];
}

/** What the action's email says: the approved text, else the draft. */
export function actionEmailContent(metadata: Record<string, unknown>, fallback: { description: string; invoiceNumber: string | null }): { subject: string; text: string } {
  const text = (k: string) => (typeof metadata[k] === 'string' && (metadata[k] as string).trim() ? (metadata[k] as string) : null);
  return {
    subject: text('final_subject') ?? text('draft_subject') ?? (fallback.invoiceNumber ? `Invoice ${fallback.invoiceNumber}` : fallback.description),
    text: text('final_content') ?? text('draft_body') ?? fallback.description,
  };
}

/** One key per action, ever: approving twice (two desks, a double click) queues one send. */
export function actionEmailKey(actionId: string): string {
  return `${ACTION_EMAIL}:${actionId}`;
}

/** 'held': the contact rule held the email at the moment of sending (the error says why); Retry sends it once the hold is lifted. */
export type DeliveryStatus = 'queued' | 'sending' | 'sent' | 'failed' | 'held';

/** Extension on an email action: where its send stands, in words a collector can act on. */
export interface ActionDelivery {
  status: DeliveryStatus;
  /** Why the last try failed, in words; null when none failed. */
  error: string | null;
  /** A failed try that runs again by itself at this time; null when it will not (Retry is then the way). */
  next_attempt_at: string | null;
  /** The message may have reached the mail server: a retry could deliver it twice. */
  may_have_been_sent: boolean;
  recipient: string | null;
  sent_at: string | null;
}

/**
 * The delivery as the collector sees it. The job decides (its success and the send's record are
 * committed together). A try that failed but will run again is already 'failed' with its
 * error: the collector sees the problem now, not after the last attempt.
 */
export function deliveryOf(
  job: { status: JobStatus; last_error: string | null; run_after: string },
  outbox: { status: EmailOutboxStatus; to_email: string; sent_at: string | null } | null,
): ActionDelivery {
  const base = { recipient: outbox?.to_email ?? null, sent_at: outbox?.sent_at ?? null, may_have_been_sent: outbox?.status === 'unknown' };
  if (job.status === 'succeeded') return { ...base, status: 'sent', error: null, next_attempt_at: null };
  if (job.status === 'failed') return { ...base, status: isHeldWords(job.last_error) ? 'held' : 'failed', error: job.last_error, next_attempt_at: null };
  if (job.status === 'running' || outbox?.status === 'sending') return { ...base, status: 'sending', error: null, next_attempt_at: null };
  if (job.last_error) return { ...base, status: 'failed', error: job.last_error, next_attempt_at: job.run_after };
  return { ...base, status: 'queued', error: null, next_attempt_at: null };
}

/** The delivery of each email action among `actionIds` that has a send job. */
export async function deliveries(db: Db, companyId: string, actionIds: string[]): Promise<Map<string, ActionDelivery>> {
  const out = new Map<string, ActionDelivery>();
  if (!actionIds.length) return out;
  const rows = await db
    .selectFrom('jobs as j')
    .leftJoin('email_outbox as o', 'o.job_id', 'j.id')
    .select(['j.subject_id', 'j.status', 'j.last_error', 'j.run_after', 'o.status as outbox_status', 'o.to_email', 'o.sent_at'])
    .where('j.company_id', '=', companyId)
    .where('j.kind', '=', ACTION_EMAIL)
    .where('j.subject_id', 'in', actionIds)
    .execute();
  for (const r of rows) {
    if (!r.subject_id) continue;
    const outbox = r.outbox_status && r.to_email ? { status: r.outbox_status, to_email: r.to_email, sent_at: r.sent_at } : null;
    out.set(r.subject_id, deliveryOf(r, outbox));
  }
  return out;
}

/**
 * What the contact rule is asked about an email action: its invoice, or the invoices a decision on
 * the customer lists (its text names them, so one of them held holds it); none for the account.
 */
export function actionRequest(invoiceId: string | null, metadata: Record<string, unknown>, email: { subject: string; text: string }) {
  const listed = invoiceId ? [] : Array.isArray(metadata.invoice_ids) ? metadata.invoice_ids.filter((id): id is string => typeof id === 'string') : [];
  return { channel: 'action' as const, invoiceIds: invoiceId ? [invoiceId] : listed, whole: listed.length > 0, pastDue: saysPastDue(email.subject, email.text) };
}

/**
 * Queues the action's send in the caller's transaction, or puts its earlier send back in the
 * queue to run now (Retry). A send that is under way or done is left alone.
 */
export async function queueActionEmail(tx: CommandTx, companyId: string, actionId: string, actor: Actor, metadata: Record<string, unknown>, overrideReason?: string): Promise<void> {
  // The contact rule at the approval: a held customer or invoice is not approved for sending, and the approver reads why.
  const action = await tx.db
    .selectFrom('actions as a')
    .leftJoin('invoices as i', 'i.id', 'a.invoice_id')
    .select(['a.customer_id', 'a.invoice_id', 'a.description', 'i.invoice_number'])
    .where('a.company_id', '=', companyId)
    .where('a.id', '=', actionId)
    .executeTakeFirstOrThrow();
  const email = actionEmailContent(metadata, { description: action.description, invoiceNumber: action.invoice_number });
  const request = actionRequest(action.invoice_id, metadata, email);
  let answer = await checkContact(tx.db, companyId, action.customer_id, request, tx.now);
  // Send anyway: the approver saw these holds and gave a reason; kept in the change log, and the door lets them pass.
  const overridden = overrideReason !== undefined && answer.held.length > 0 ? await overrideHolds(tx, companyId, answer, overrideReason, { action_id: actionId, customer_id: action.customer_id }) : [];
  if (overridden.length) answer = await checkContact(tx.db, companyId, action.customer_id, { ...request, overridden }, tx.now);
  if (!answer.allowed) throw new ConflictError(`Not sent. ${answer.reason}`, 'contact_held');
  const payload: ActionEmailPayload = { action_id: actionId, requested_by: { user_id: actor.userId, name: actor.name }, ...(overridden.length ? { overridden } : {}) };
  const job = await enqueueJob(tx, { companyId, kind: ACTION_EMAIL, idempotencyKey: actionEmailKey(actionId), payload, subjectId: actionId });
  if (job.created) return;
  const row = await tx.db.selectFrom('jobs').select(['status', 'attempts', 'locked_at', 'locked_by']).where('id', '=', job.id).executeTakeFirstOrThrow();
  // A send whose worker died (its process is gone) is not under way: Retry resolves it now.
  if (row.status === 'running' && !leaseAbandoned(row, addMs(tx.now, -WORKER_DEFAULTS.leaseMs))) throw new InvalidStateError('The email is being sent right now; wait for the outcome');
  if (row.status === 'succeeded') throw new InvalidStateError('The email was sent already');
  await requeueSend(tx, { id: job.id, attempts: row.attempts }, payload);
}
