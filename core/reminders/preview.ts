/**
 * What "send a reminder" would do for one invoice, before anything is queued: the email as the
 * worker will render it, who it goes to and from, why it cannot go, and warnings against double
 * dunning (the customer was emailed recently, a sequence step is ready for them, a reminder for
 * this invoice was already asked for today).
 */
import { timestamp, today as todayOf } from '../clock';
import { daysBetween } from '../dates';
import { ATTACHMENT_KINDS, type AttachmentSummary, makeAttachments, summarize } from '../documents/attachments';
import type { Engine } from '../engine';
import { NotFoundError } from '../errors';
import { chaseHolds } from '../sequences/holds';
import { chaseFacts } from '../sequences/holds-store';
import { INVOICE_REMINDER, reminderKey } from './queue';
import { loadReminderTargets, reminderBlockers, reminderEmailFor } from './targets';
import { defaultConnection } from '../email/connections';
import type { RenderedEmail } from './template';

/** An email to the customer this recent makes another one a double dunning. */
export const RECENT_EMAIL_DAYS = 7;

export const REMINDER_WARNING_KINDS = ['dispute', 'promise', 'reply_unanswered', 'recent_email', 'dunning_step_ready', 'reminder_today'] as const;
export type ReminderWarningKind = (typeof REMINDER_WARNING_KINDS)[number];

export interface ReminderWarning {
  kind: ReminderWarningKind;
  message: string;
}

export interface ReminderPreview {
  invoice_id: string;
  to: string | null;
  contact_name: string | null;
  from: string | null;
  connection_name: string | null;
  email: RenderedEmail | null;
  /** Why it cannot be sent (closed, no billing email, no connection); empty when it can. */
  blockers: string[];
  warnings: ReminderWarning[];
  /** The documents that can be attached, as they would be made now (name and size); empty for a closed invoice. */
  attachments: AttachmentSummary[];
}

function ago(days: number): string {
  return days <= 0 ? 'today' : days === 1 ? 'yesterday' : `${days} days ago`;
}

/** The warning for the customer's latest outbound email, when it is recent. */
export function recentEmailWarning(latest: { occurred_at: string; subject: string | null } | undefined, customerName: string, today: string): ReminderWarning | null {
  if (!latest) return null;
  const days = daysBetween(latest.occurred_at.slice(0, 10), today);
  if (days > RECENT_EMAIL_DAYS) return null;
  return { kind: 'recent_email', message: `${customerName} was emailed ${ago(days)}${latest.subject ? ` (“${latest.subject}”)` : ''}.` };
}

export async function reminderPreview(engine: Pick<Engine, 'db' | 'clock'>, companyId: string, invoiceId: string): Promise<ReminderPreview> {
  const id = invoiceId.toLowerCase();
  const today = todayOf(engine.clock);
  const targets = await loadReminderTargets(engine.db, companyId, [id]);
  const target = targets.get(id);
  if (!target) throw new NotFoundError('Invoice not found');
  const connection = await defaultConnection(engine.db, companyId);
  const company = await engine.db.selectFrom('companies').select('name').where('id', '=', companyId).executeTakeFirstOrThrow();
  const blockers: string[] = reminderBlockers([id], targets).map((m) => (m.startsWith('Closed') ? 'The invoice is closed: it gets no reminder.' : 'The customer has no billing contact with an email address.'));
  if (!connection) blockers.push('No default email connection is set up to send from.');

  const warnings: ReminderWarning[] = [];
  // What holds a sequence's chase warns a manual reminder too: a dispute or promise on this invoice
  // (or the customer as a whole), a reply nobody has answered.
  const facts = (await chaseFacts(engine.db, companyId, [target.customerId])).get(target.customerId);
  if (facts) {
    const own = { ...facts, disputes: facts.disputes.filter((d) => d.invoiceId === id), promises: facts.promises.filter((p) => p.invoiceId === null || p.invoiceId === id) };
    for (const hold of chaseHolds(own, today)) {
      warnings.push({ kind: hold.kind === 'reply' ? 'reply_unanswered' : hold.kind, message: `${hold.reason.replace(/^Paused: /, '')}.` });
    }
  }
  const latest = await engine.db
    .selectFrom('communications')
    .select(['occurred_at', 'subject'])
    .where('company_id', '=', companyId)
    .where('customer_id', '=', target.customerId)
    .where('direction', '=', 'outbound')
    .where('kind', '=', 'email')
    .orderBy('occurred_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  const recent = recentEmailWarning(latest, target.customerName, today);
  if (recent) warnings.push(recent);
  const steps = await engine.db
    .selectFrom('scheduled_steps as s')
    .innerJoin('sequence_steps as st', 'st.id', 's.step_id')
    .innerJoin('sequences as q', 'q.id', 's.sequence_id')
    .select(['st.label', 'q.name'])
    .where('s.company_id', '=', companyId)
    .where('s.customer_id', '=', target.customerId)
    .where('st.step_type', '=', 'reminder')
    .where((eb) => eb.or([eb('s.status', '=', 'ready'), eb.and([eb('s.status', '=', 'scheduled'), eb('s.scheduled_at', '<=', timestamp(engine.clock))])]))
    .where((eb) => eb.or([eb('s.invoice_id', 'is', null), eb('s.invoice_id', '=', id)]))
    .execute();
  for (const step of steps) {
    warnings.push({ kind: 'dunning_step_ready', message: `The dunning step “${step.label}” of the sequence “${step.name}” is ready for this customer: sending this reminder as well emails them twice.` });
  }
  const asked = await engine.db.selectFrom('jobs').select('status').where('idempotency_key', '=', reminderKey(id, today)).where('kind', '=', INVOICE_REMINDER).executeTakeFirst();
  if (asked && asked.status !== 'failed') warnings.push({ kind: 'reminder_today', message: 'A reminder for this invoice was already queued today: asking again sends nothing.' });

  const email = reminderEmailFor(company.name, target, today);
  const attachments = target.closingReason ? [] : summarize(await makeAttachments(engine.db, companyId, { invoiceId: id, customerId: target.customerId }, ATTACHMENT_KINDS, today));
  return {
    invoice_id: id,
    to: target.billingEmail,
    contact_name: target.contactName,
    from: connection ? (connection.from_name ? `${connection.from_name} <${connection.from_email}>` : connection.from_email) : null,
    connection_name: connection?.name ?? null,
    email: target.closingReason ? null : email,
    blockers,
    warnings,
    attachments,
  };
}
