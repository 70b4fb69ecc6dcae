/**
 * An invoice's reminders as a collector sees them: each reminder job with its email's outcome,
 * in words that need no knowledge of the job queue or the outbox.
 */
import type { Db } from '../db/connection';
import type { EmailOutboxStatus, JobStatus } from '../db/schema';
import { NotFoundError } from '../errors';
import { INVOICE_REMINDER, type ReminderPayload, reminderKey } from './queue';
import { loadReminderTargets } from './targets';

export type ReminderStatus = 'queued' | 'running' | 'sent' | 'failed';

export interface ReminderEntry {
  id: string;
  status: ReminderStatus;
  attempts: number;
  max_attempts: number;
  /** When a reminder waiting after a failed try runs again; null otherwise. */
  next_attempt_at: string | null;
  last_error: string | null;
  queued_at: string;
  sent_at: string | null;
  queued_by: string | null;
  recipient: string | null;
}

/** At most one reminder a day per invoice: 200 covers more than half a year of daily reminders. */
export const MAX_REMINDERS = 200;

/**
 * The collector's status of one reminder. The job's status decides, because the job and its
 * email's success are committed together: a job that succeeded sent its email. Everything that
 * ends a job without a send is 'failed' with the job's error, including an email whose delivery is
 * unknown after a crash or a lost connection (it is not sent again on its own).
 */
export function reminderStatus(job: JobStatus, outbox: EmailOutboxStatus | null): ReminderStatus {
  if (job === 'succeeded') return 'sent';
  if (job === 'failed') return 'failed';
  // A worker holding the job with the email committed as 'sending' is mid-send.
  if (job === 'running' || outbox === 'sending') return 'running';
  return 'queued';
}

/** The invoice's reminders, newest first; 404 for an unknown invoice or another company's. */
export async function invoiceReminders(db: Db, companyId: string, invoiceId: string, limit = MAX_REMINDERS): Promise<ReminderEntry[]> {
  const target = (await loadReminderTargets(db, companyId, [invoiceId])).get(invoiceId);
  if (!target) throw new NotFoundError('Invoice', invoiceId);
  // Reminder keys are `invoice_reminder:<invoice id>:<day>`: a range over the unique key's index
  // finds the invoice's reminders without a scan of every job.
  const prefix = reminderKey(invoiceId, '');
  const rows = await db
    .selectFrom('jobs as j')
    .leftJoin('email_outbox as o', 'o.job_id', 'j.id')
    .select([
      'j.id',
      'j.status',
      'j.attempts',
      'j.max_attempts',
      'j.run_after',
      'j.last_error',
      'j.payload',
      'j.created_at',
      'o.status as outbox_status',
      'o.to_email',
      'o.sent_at',
    ])
    .where('j.idempotency_key', '>=', prefix)
    .where('j.idempotency_key', '<', `${prefix}\uffff`)
    .where('j.company_id', '=', companyId)
    .where('j.kind', '=', INVOICE_REMINDER)
    .orderBy('j.created_at', 'desc')
    .orderBy('j.id', 'desc')
    .limit(limit)
    .execute();
  return rows.map((row) => {
    const status = reminderStatus(row.status, row.outbox_status);
    const payload = JSON.parse(row.payload) as ReminderPayload;
    return {
      id: row.id,
      status,
      attempts: row.attempts,
      max_attempts: row.max_attempts,
      next_attempt_at: status === 'queued' && row.attempts > 0 ? row.run_after : null,
      last_error: status === 'sent' ? null : row.last_error,
      queued_at: row.created_at,
      sent_at: status === 'sent' ? row.sent_at : null,
      queued_by: payload.requested_by.name,
      // Until the first try the email has no address yet: it goes to the current billing contact.
      recipient: row.to_email ?? target.billingEmail,
    };
  });
}
