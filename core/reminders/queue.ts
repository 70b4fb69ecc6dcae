/**
 * Queuing payment reminders: all or nothing, one durable job per invoice, at most one reminder per
 * invoice per day.
 *
 * The idempotency key is `invoice_reminder:<invoice id>:<today>`: asking again the same day (a
 * double click, two collectors on one invoice) queues nothing new. An invoice whose reminder from
 * an earlier day is still queued or running (retrying) gets no second job either. A reminder that
 * failed today is re-armed by asking again: it runs once more, with the same Message-ID.
 */
import { type AttachmentKind, attachmentKinds } from '../documents/attachments';
import { type Actor, type CommandTx, type Engine, runCommand } from '../engine';
import { InvalidStateError, ValidationError } from '../errors';
import { DEFAULT_MAX_ATTEMPTS, enqueueJobs, subjectsWithPendingJobs } from '../jobs/queue';
import { loadReminderTargets, reminderBlockers } from './targets';
import { defaultConnection } from '../email/connections';

export const INVOICE_REMINDER = 'invoice_reminder';

export interface ReminderPayload {
  invoice_id: string;
  /** Who asked: the author of the communication the send records. */
  requested_by: { user_id: string | null; name: string | null };
  /** Documents to attach, made when the email is sent (absent: none). */
  attach?: AttachmentKind[];
  /** Plain text edited in the preview, sent instead of the template's (absent: the template, rendered at send time). */
  subject?: string;
  body?: string;
}

/** A single reminder's subject and body as edited in its preview. */
export type ReminderEdit = Pick<ReminderPayload, 'subject' | 'body'>;

export function reminderKey(invoiceId: string, day: string): string {
  return `${INVOICE_REMINDER}:${invoiceId}:${day}`;
}

export interface QueuedReminders {
  /** Invoices with a reminder job queued by this request (new or re-armed). */
  queued: string[];
  /** Invoices whose reminder was already queued, running or sent today: nothing new queued. */
  unchanged: string[];
}

export async function queueInvoiceReminders(engine: Pick<Engine, 'db' | 'clock'>, scope: { companyId: string; actor: Actor }, invoiceIds: string[], attach: readonly AttachmentKind[] = [], edit: ReminderEdit = {}): Promise<QueuedReminders> {
  // Ids are stored lower case; a script may send them in upper case.
  const ids = [...new Set(invoiceIds.map((id) => id.toLowerCase()))];
  return runCommand(engine, 'queue_invoice_reminders', scope, async (tx) => {
    const targets = await loadReminderTargets(tx.db, scope.companyId, ids);
    const blockers = reminderBlockers(ids, targets);
    if (blockers.length) throw new ValidationError(`No reminder was queued. ${blockers.join('. ')}.`, { invoice_ids: blockers });
    if (!(await defaultConnection(tx.db, scope.companyId))) {
      throw new InvalidStateError('No reminder was queued: the company has no default active email connection to send from', 'no_email_connection');
    }
    const pending = await subjectsWithPendingJobs(tx.db, scope.companyId, INVOICE_REMINDER, ids);
    const documents = attachmentKinds(attach);
    const payloadOf = (invoiceId: string): ReminderPayload => ({ invoice_id: invoiceId, requested_by: { user_id: scope.actor.userId, name: scope.actor.name }, ...(documents.length ? { attach: documents } : {}), ...edit });
    const result: QueuedReminders = { queued: [], unchanged: [] };
    const fresh = ids.filter((id) => !pending.has(id));
    const jobs = await enqueueJobs(
      tx,
      fresh.map((invoiceId) => ({ companyId: scope.companyId, kind: INVOICE_REMINDER, idempotencyKey: reminderKey(invoiceId, tx.today), payload: payloadOf(invoiceId), subjectId: invoiceId })),
    );
    const failed = await failedJobs(tx, jobs.filter((j) => !j.created).map((j) => j.id));
    for (const [i, invoiceId] of fresh.entries()) {
      const job = jobs[i];
      const attempts = failed.get(job.id);
      if (attempts !== undefined) await rearm(tx, job.id, attempts, payloadOf(invoiceId));
      if (job.created || attempts !== undefined) result.queued.push(invoiceId);
      else result.unchanged.push(invoiceId);
    }
    result.unchanged.push(...ids.filter((id) => pending.has(id)));
    return result;
  });
}

/** Attempts so far of the jobs among `ids` that failed, by id. */
async function failedJobs(tx: CommandTx, ids: string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (let i = 0; i < ids.length; i += 500) {
    const rows = await tx.db.selectFrom('jobs').select(['id', 'attempts']).where('id', 'in', ids.slice(i, i + 500)).where('status', '=', 'failed').execute();
    for (const row of rows) out.set(row.id, row.attempts);
  }
  return out;
}

/**
 * Puts today's failed reminder back in the queue. Attempts keep counting (they fence the claim);
 * the job gets a fresh set of tries. An email left 'sending' by a crash becomes 'unknown': the
 * person asking again has accepted that it may go out twice (with the same Message-ID).
 */
async function rearm(tx: CommandTx, jobId: string, attempts: number, payload: ReminderPayload): Promise<void> {
  const changes = {
    status: 'queued' as const,
    max_attempts: attempts + DEFAULT_MAX_ATTEMPTS,
    run_after: tx.now,
    locked_at: null,
    payload: JSON.stringify(payload),
    updated_at: tx.now,
  };
  await tx.db.updateTable('jobs').set(changes).where('id', '=', jobId).where('status', '=', 'failed').execute();
  await tx.record('job', jobId, 'update', changes);
  const interrupted = await tx.db.selectFrom('email_outbox').select('id').where('job_id', '=', jobId).where('status', '=', 'sending').executeTakeFirst();
  if (interrupted) {
    await tx.db.updateTable('email_outbox').set({ status: 'unknown', updated_at: tx.now }).where('id', '=', interrupted.id).execute();
    await tx.record('email_outbox', interrupted.id, 'update', { status: 'unknown' });
  }
}
