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
import { NotFoundError, ValidationError } from '../errors';
import { chaseHolds } from '../holds/holds';
import { chaseFacts } from '../holds/store';
import { checkContacts } from '../contact/store';
import { INVOICE_REMINDER, reminderKey } from './queue';
import { loadReminderTargets, type ReminderTarget, reminderBlockers, reminderEmailFor } from './targets';
import { defaultConnection } from '../email/connections';
import type { RenderedEmail } from './template';
import { chunks } from '../chunks';
import { PORTAL_LINK_SAMPLE, portalLinksServed } from '../email/portal-link';

/** An email to the customer this recent makes another one a double dunning. */
export const RECENT_EMAIL_DAYS = 7;

export const REMINDER_WARNING_KINDS = ['dispute', 'promise', 'reply_unanswered', 'contact_held', 'recent_email', 'dunning_step_ready', 'reminder_today'] as const;
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

/** The warnings kinds that hold a reminder in a bulk send by default: the customer is waiting for us or is already being chased. */
export const HOLDING_WARNING_KINDS = ['dispute', 'promise', 'reply_unanswered', 'contact_held', 'dunning_step_ready'] as const satisfies readonly ReminderWarningKind[];

/**
 * The double-dunning warnings of each invoice named (targets already the company's), in a few
 * queries per 500 customers: what holds a sequence's chase warns a manual reminder too (a dispute
 * or promise on this invoice or the customer as a whole, a reply nobody has answered), then a
 * recent email, a ready dunning step, a reminder already asked for today.
 */
export async function reminderWarnings(engine: Pick<Engine, 'db' | 'clock'>, companyId: string, targets: ReminderTarget[]): Promise<Map<string, ReminderWarning[]>> {
  const today = todayOf(engine.clock);
  const now = timestamp(engine.clock);
  const out = new Map<string, ReminderWarning[]>(targets.map((t) => [t.invoiceId, []]));
  const customerIds = [...new Set(targets.map((t) => t.customerId))];
  const facts = await chaseFacts(engine.db, companyId, customerIds);
  // The contact rule's other holds (a person's pause, today's email): the request would hold the reminder for them.
  const answers = await checkContacts(engine.db, companyId, targets.map((t) => ({ customerId: t.customerId, request: { channel: 'reminder' as const, invoiceIds: [t.invoiceId] } })), now);
  const latest = new Map<string, { occurred_at: string; subject: string | null }>();
  const steps: Array<{ customer_id: string; invoice_id: string | null; label: string; name: string }> = [];
  for (const ids of chunks(customerIds)) {
    const emails = await engine.db
      .selectFrom('communications as m')
      .select(['m.customer_id', 'm.occurred_at', 'm.subject'])
      .where('m.company_id', '=', companyId)
      .where('m.customer_id', 'in', ids)
      .where('m.direction', '=', 'outbound')
      .where('m.kind', '=', 'email')
      .orderBy('m.occurred_at', 'desc')
      .execute();
    for (const e of emails) if (!latest.has(e.customer_id)) latest.set(e.customer_id, e);
    steps.push(
      ...(await engine.db
        .selectFrom('scheduled_steps as s')
        .innerJoin('sequence_steps as st', 'st.id', 's.step_id')
        .innerJoin('sequences as q', 'q.id', 's.sequence_id')
        .select(['s.customer_id', 's.invoice_id', 'st.label', 'q.name'])
        .where('s.company_id', '=', companyId)
        .where('s.customer_id', 'in', ids)
        .where('st.step_type', '=', 'reminder')
        .where((eb) => eb.or([eb('s.status', '=', 'ready'), eb.and([eb('s.status', '=', 'scheduled'), eb('s.scheduled_at', '<=', now)])]))
        .execute()),
    );
  }
  const asked = new Set<string>();
  for (const chunk of chunks(targets)) {
    const keys = chunk.map((t) => reminderKey(t.invoiceId, today));
    const jobs = await engine.db.selectFrom('jobs').select(['idempotency_key', 'status']).where('kind', '=', INVOICE_REMINDER).where('idempotency_key', 'in', keys).execute();
    for (const j of jobs) if (j.status !== 'failed' && j.idempotency_key) asked.add(j.idempotency_key);
  }
  for (const [i, t] of targets.entries()) {
    const warnings = out.get(t.invoiceId)!;
    const f = facts.get(t.customerId);
    if (f) {
      const own = { ...f, disputes: f.disputes.filter((d) => d.invoiceId === t.invoiceId), promises: f.promises.filter((p) => p.invoiceId === null || p.invoiceId === t.invoiceId) };
      for (const hold of chaseHolds(own, today)) {
        warnings.push({ kind: hold.kind === 'reply' ? 'reply_unanswered' : hold.kind, message: `${hold.reason.replace(/^Paused: /, '')}.` });
      }
    }
    const other = answers[i].held.filter((h) => h.kind === 'paused' || h.kind === 'daily_cap');
    if (other.length) warnings.push({ kind: 'contact_held', message: `On hold: ${other.map((h) => h.reason).join('; ')}. No reminder goes today.` });
    const recent = recentEmailWarning(latest.get(t.customerId), t.customerName, today);
    if (recent) warnings.push(recent);
    for (const step of steps.filter((x) => x.customer_id === t.customerId && (x.invoice_id === null || x.invoice_id === t.invoiceId))) {
      warnings.push({ kind: 'dunning_step_ready', message: `The dunning step “${step.label}” of the sequence “${step.name}” is ready for this customer: sending this reminder as well emails them twice.` });
    }
    if (asked.has(reminderKey(t.invoiceId, today))) warnings.push({ kind: 'reminder_today', message: 'A reminder for this invoice was already queued today: asking again sends nothing.' });
  }
  return out;
}

/** Why one invoice (found) cannot get a reminder, in words. */
function blockersInWords(id: string, targets: Map<string, ReminderTarget>): string[] {
  return reminderBlockers([id], targets).map((m) => (m.startsWith('Closed') ? 'The invoice is closed: it gets no reminder.' : 'The customer has no billing contact with an email address.'));
}

export async function reminderPreview(engine: Pick<Engine, 'db' | 'clock'>, companyId: string, invoiceId: string): Promise<ReminderPreview> {
  const id = invoiceId.toLowerCase();
  const today = todayOf(engine.clock);
  const targets = await loadReminderTargets(engine.db, companyId, [id]);
  const target = targets.get(id);
  if (!target) throw new NotFoundError('Invoice not found');
  const connection = await defaultConnection(engine.db, companyId);
  const company = await engine.db.selectFrom('companies').select('name').where('id', '=', companyId).executeTakeFirstOrThrow();
  const blockers = blockersInWords(id, targets);
  if (!connection) blockers.push('No default email connection is set up to send from.');
  const warnings = (await reminderWarnings(engine, companyId, [target])).get(id) ?? [];

  // Where the customer's portal link goes: the send mints it.
  const email = reminderEmailFor(company.name, target, today, portalLinksServed() ? PORTAL_LINK_SAMPLE : null);
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

export interface BulkReminderPreviewItem {
  invoice_id: string;
  invoice_number: string;
  customer_id: string;
  customer_name: string;
  /** Why it cannot be sent (closed, no billing email). */
  blockers: string[];
  warnings: ReminderWarning[];
  /** A dispute, a standing promise, an unanswered reply or a ready dunning step: left out by default. */
  held: boolean;
}

/** The warnings of each invoice of a bulk reminder, in the order asked; unknown or other companies' ids are named in a 400. */
export async function bulkReminderPreview(engine: Pick<Engine, 'db' | 'clock'>, companyId: string, invoiceIds: string[]): Promise<BulkReminderPreviewItem[]> {
  const ids = [...new Set(invoiceIds.map((i) => i.toLowerCase()))];
  const targets = await loadReminderTargets(engine.db, companyId, ids);
  const missing = ids.filter((i) => !targets.has(i));
  if (missing.length) throw new ValidationError('Some invoices are not in this company', { invoice_ids: missing.map((i) => `No invoice ${i} in this company`) });
  const warnings = await reminderWarnings(engine, companyId, [...targets.values()]);
  return ids.map((id) => {
    const t = targets.get(id)!;
    const w = warnings.get(id) ?? [];
    return {
      invoice_id: id,
      invoice_number: t.invoiceNumber,
      customer_id: t.customerId,
      customer_name: t.customerName,
      blockers: blockersInWords(id, targets),
      warnings: w,
      held: w.some((x) => (HOLDING_WARNING_KINDS as readonly string[]).includes(x.kind)),
    };
  });
}
