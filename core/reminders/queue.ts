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
import { chunks } from '../chunks';
import { enqueueJobs, subjectsWithPendingJobs } from '../jobs/queue';
import { requeueSend } from '../email/outbox';
import { checkContacts } from '../contact/store';
import { overrideHolds } from '../contact/override';
import type { ContactHoldKind } from '../contact/rule';
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
  /** The holds the person chose to send through (Send anyway): the door lets them pass. */
  overridden?: ContactHoldKind[];
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
  /** Invoices the contact rule holds (a dispute, a promise, a reply, a pause, today's email): not queued, with why. */
  held: Array<{ invoice_id: string; reason: string }>;
}

export async function queueInvoiceReminders(
  engine: Pick<Engine, 'db' | 'clock'>,
  scope: { companyId: string; actor: Actor },
  invoiceIds: string[],
  attach: readonly AttachmentKind[] = [],
  edit: ReminderEdit = {},
  overrideReason?: string,
): Promise<QueuedReminders> {
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
    const result: QueuedReminders = { queued: [], unchanged: [], held: [] };
    // The contact rule, in the transaction that queues: a held invoice gets no reminder. Today's
    // reminder already sent changes nothing; one asked again after a failure keeps its first decision's time.
    const todays = await todaysJobs(tx, scope.companyId, ids);
    const asked = ids.filter((id) => !pending.has(id) && todays.get(id)?.status !== 'succeeded').flatMap((id) => {
      const target = targets.get(id);
      const decidedAt = todays.get(id)?.created_at ?? tx.now;
      return target ? [{ customerId: target.customerId, request: { channel: 'reminder' as const, invoiceIds: [id], decidedAt } }] : [];
    });
    let answers = await checkContacts(tx.db, scope.companyId, asked, tx.now);
    // Send anyway: the person saw these holds (the preview) and gave a reason; each is kept in the change log.
    const overridden = new Map<string, ContactHoldKind[]>();
    if (overrideReason !== undefined) {
      for (const [i, a] of asked.entries()) {
        if (answers[i].held.length === 0) continue;
        const kinds = await overrideHolds(tx, scope.companyId, answers[i], overrideReason, { invoice_id: a.request.invoiceIds[0], customer_id: a.customerId, channel: 'reminder' });
        overridden.set(a.request.invoiceIds[0], kinds);
        Object.assign(a.request, { overridden: kinds });
      }
      if (overridden.size) answers = await checkContacts(tx.db, scope.companyId, asked, tx.now);
    }
    for (const [i, a] of asked.entries()) {
      if (!answers[i].allowed) result.held.push({ invoice_id: a.request.invoiceIds[0], reason: answers[i].reason ?? 'Held.' });
    }
    const heldIds = new Set(result.held.map((h) => h.invoice_id));
    const documents = attachmentKinds(attach);
    const payloadOf = (invoiceId: string): ReminderPayload => ({
      invoice_id: invoiceId,
      requested_by: { user_id: scope.actor.userId, name: scope.actor.name },
      ...(documents.length ? { attach: documents } : {}),
      ...edit,
      ...(overridden.get(invoiceId)?.length ? { overridden: overridden.get(invoiceId) } : {}),
    });
    const fresh = ids.filter((id) => !pending.has(id) && !heldIds.has(id));
    const jobs = await enqueueJobs(
      tx,
      fresh.map((invoiceId) => ({ companyId: scope.companyId, kind: INVOICE_REMINDER, idempotencyKey: reminderKey(invoiceId, tx.today), payload: payloadOf(invoiceId), subjectId: invoiceId })),
    );
    const failed = await failedJobs(tx, jobs.filter((j) => !j.created).map((j) => j.id));
    for (const [i, invoiceId] of fresh.entries()) {
      const job = jobs[i];
      const attempts = failed.get(job.id);
      // Today's failed reminder goes again (the Message-ID stays the same).
      if (attempts !== undefined) await requeueSend(tx, { id: job.id, attempts }, payloadOf(invoiceId));
      if (job.created || attempts !== undefined) result.queued.push(invoiceId);
      else result.unchanged.push(invoiceId);
    }
    result.unchanged.push(...ids.filter((id) => pending.has(id)));
    return result;
  });
}

/** Today's reminder job of each invoice among `invoiceIds` that has one, by invoice id. */
async function todaysJobs(tx: CommandTx, companyId: string, invoiceIds: string[]): Promise<Map<string, { status: string; created_at: string }>> {
  const out = new Map<string, { status: string; created_at: string }>();
  for (const chunk of chunks(invoiceIds)) {
    const keys = chunk.map((id) => reminderKey(id, tx.today));
    const rows = await tx.db.selectFrom('jobs').select(['subject_id', 'status', 'created_at']).where('company_id', '=', companyId).where('kind', '=', INVOICE_REMINDER).where('idempotency_key', 'in', keys).execute();
    for (const r of rows) if (r.subject_id) out.set(r.subject_id, r);
  }
  return out;
}

/** Attempts so far of the jobs among `ids` that failed, by id. */
async function failedJobs(tx: CommandTx, ids: string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const chunk of chunks(ids)) {
    const rows = await tx.db.selectFrom('jobs').select(['id', 'attempts']).where('id', 'in', chunk).where('status', '=', 'failed').execute();
    for (const row of rows) out.set(row.id, row.attempts);
  }
  return out;
}
