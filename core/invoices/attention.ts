/**
 * "My work": the open invoices that need the collector today, each with the reasons why.
 *
 * An invoice is in the worklist when it is open and either past due with a balance, or has an
 * event that asks for a person today: a promise to pay that fell due or was broken, a reply from
 * the customer newer than our last message to them, a dunning step that is ready, a follow-up date
 * that has come. Each event source below is one small indexed query over the whole company, so a
 * new source (a promise logged on a call, say) is one more entry in SOURCES.
 *
 * Order (what is at stake): invoices with a pressing event first (a promise that fell due or was
 * broken, a reply waiting: the customer did or said something), then all the others by open
 * balance, largest first. A ready dunning step or a follow-up date is routine: it does not lift a
 * $356 invoice above a $14,183 one 229 days late.
 */
import { daysBetween } from '../dates';
import { prepared } from '../db/statements';
import { jsonList, type Sqlite } from './reader';

export const ATTENTION_REASONS = ['promise_broken', 'promise_due', 'reply_received', 'dunning_ready', 'follow_up_due', 'past_due'] as const;
export type AttentionReason = (typeof ATTENTION_REASONS)[number];

export interface AttentionNote {
  reason: AttentionReason;
  /** The reason in a collector's words ("Follow-up 3 days overdue"). */
  label: string;
}

/** Replies older than this are history, not today's work (and the window keeps the read small). */
export const REPLY_WINDOW_DAYS = 30;

function days(n: number): string {
  return `${n} day${n === 1 ? '' : 's'}`;
}

export function followUpNote(followUpDate: string, today: string): AttentionNote {
  const late = daysBetween(followUpDate, today);
  return { reason: 'follow_up_due', label: late === 0 ? 'Follow-up due today' : `Follow-up ${days(late)} overdue` };
}

export function promiseNote(promisedDate: string, today: string): AttentionNote {
  const late = daysBetween(promisedDate, today);
  return late === 0 ? { reason: 'promise_due', label: 'Promised payment due today' } : { reason: 'promise_broken', label: `Promise to pay broken (due ${days(late)} ago)` };
}

export function pastDueNote(dueDate: string, today: string): AttentionNote {
  return { reason: 'past_due', label: `${days(daysBetween(dueDate, today))} past due` };
}

export function replyNote(): AttentionNote {
  return { reason: 'reply_received', label: 'Reply received, not answered yet' };
}

export function dunningNote(stepLabel: string): AttentionNote {
  return { reason: 'dunning_ready', label: `Dunning step ready: ${stepLabel}` };
}

/** Reasons the customer's own doing makes pressing: they put an invoice in the worklist's first tier. */
export const PRESSING_REASONS: ReadonlySet<AttentionReason> = new Set(['promise_broken', 'promise_due', 'reply_received']);

/** Notes in the order of ATTENTION_REASONS (the most pressing first), one per reason. */
export function orderNotes(notes: AttentionNote[]): AttentionNote[] {
  const seen = new Set<AttentionReason>();
  return [...notes]
    .sort((a, b) => ATTENTION_REASONS.indexOf(a.reason) - ATTENTION_REASONS.indexOf(b.reason))
    .filter((n) => (seen.has(n.reason) ? false : (seen.add(n.reason), true)));
}

/** An event found by a source: on one invoice, or on a customer (then on its past-due invoices). */
interface Found {
  invoiceId: string | null;
  customerId: string;
  note: AttentionNote;
}

interface SourceContext {
  sqlite: Sqlite;
  companyId: string;
  today: string;
  now: string;
}

type Source = (ctx: SourceContext) => Found[];

const followUps: Source = ({ sqlite, companyId, today }) =>
  (
    prepared(
      sqlite,
      `SELECT id, customer_id, next_follow_up_date FROM invoices INDEXED BY invoices_follow_up
       WHERE company_id = ? AND next_follow_up_date IS NOT NULL AND closing_reason IS NULL AND next_follow_up_date <= ?`,
    ).all(companyId, today) as Array<{ id: string; customer_id: string; next_follow_up_date: string }>
  ).map((r) => ({ invoiceId: r.id, customerId: r.customer_id, note: followUpNote(r.next_follow_up_date, today) }));

/** Promises recorded on open actions (metadata.commitment_date) whose date has come. */
const promisesOnActions: Source = ({ sqlite, companyId, today }) =>
  (
    prepared(
      sqlite,
      `SELECT a.invoice_id, a.customer_id, json_extract(a.metadata, '$.commitment_date') AS promised FROM actions a INDEXED BY actions_company_status
       WHERE a.company_id = ? AND a.status IN ('proposed', 'scheduled', 'processing') AND a.deleted_at IS NULL AND a.invoice_id IS NOT NULL
         AND promised IS NOT NULL AND promised <= ?`,
    ).all(companyId, today) as Array<{ invoice_id: string; customer_id: string; promised: string }>
  ).map((r) => ({ invoiceId: r.invoice_id, customerId: r.customer_id, note: promiseNote(r.promised, today) }));

/**
 * Promises judged broken (core/promises: unpaid the day after their date plus the grace days)
 * whose "promise broken" call is still open in the Actions inbox: a promise for the whole account
 * concerns the customer's past-due invoices.
 */
const brokenPromises: Source = ({ sqlite, companyId, today }) =>
  (
    prepared(
      sqlite,
      `SELECT f.invoice_id, f.customer_id, f.promised_date FROM promise_followups f INDEXED BY promise_followups_broken JOIN actions a ON a.id = f.action_id
       WHERE f.company_id = ? AND f.outcome = 'broken' AND a.status IN ('proposed', 'scheduled', 'processing') AND a.deleted_at IS NULL`,
    ).all(companyId) as Array<{ invoice_id: string | null; customer_id: string; promised_date: string }>
  ).map((r) => ({ invoiceId: r.invoice_id, customerId: r.customer_id, note: promiseNote(r.promised_date, today) }));

/**
 * Inbound messages of the last REPLY_WINDOW_DAYS with nothing sent to the customer since, about
 * the same invoice or about the customer as a whole.
 */
const replies: Source = ({ sqlite, companyId, now }) => {
  const since = new Date(Date.parse(now) - REPLY_WINDOW_DAYS * 86_400_000).toISOString();
  return (
    prepared(
      sqlite,
      `SELECT r.invoice_id, r.customer_id FROM (
         SELECT c.invoice_id, c.customer_id, max(c.occurred_at) AS at FROM communications c INDEXED BY communications_direction
         WHERE c.company_id = ? AND c.direction = 'inbound' AND c.occurred_at >= ? GROUP BY c.invoice_id, c.customer_id
       ) r
       WHERE NOT EXISTS (SELECT 1 FROM communications o INDEXED BY communications_customer
         WHERE o.company_id = ? AND o.customer_id = r.customer_id AND o.occurred_at > r.at AND o.direction = 'outbound'
           AND (r.invoice_id IS NULL OR o.invoice_id IS NULL OR o.invoice_id = r.invoice_id))`,
    ).all(companyId, since, companyId) as Array<{ invoice_id: string | null; customer_id: string }>
  ).map((r) => ({ invoiceId: r.invoice_id, customerId: r.customer_id, note: replyNote() }));
};

/**
 * Sequence steps that are ready, or scheduled for a time that has passed (the queue promotes them on
 * read), and that can go: not of a paused enrollment, not of a customer a person stopped (paused or
 * do not contact), not held by the contact rule, not about a disputed invoice. A held step is no
 * work for today: it never reads "ready".
 */
const readyDunningSteps: Source = ({ sqlite, companyId, now }) =>
  (
    prepared(
      sqlite,
      `SELECT s.invoice_id, s.customer_id, st.label FROM scheduled_steps s INDEXED BY scheduled_steps_queue JOIN sequence_steps st ON st.id = s.step_id
         JOIN sequence_enrollments e ON e.id = s.enrollment_id
       WHERE s.company_id = ? AND (s.status = 'ready' OR (s.status = 'scheduled' AND s.scheduled_at <= ?))
         AND e.paused_kind IS NULL AND (s.error IS NULL OR s.error NOT LIKE 'Held: %')
         AND NOT EXISTS (SELECT 1 FROM disputes d WHERE d.company_id = s.company_id AND d.invoice_id = s.invoice_id AND d.status = 'open')
         AND NOT EXISTS (SELECT 1 FROM customers c WHERE c.id = s.customer_id AND c.contact_stop IS NOT NULL)`,
    ).all(companyId, now) as Array<{ invoice_id: string | null; customer_id: string; label: string }>
  ).map((r) => ({ invoiceId: r.invoice_id, customerId: r.customer_id, note: dunningNote(r.label) }));

const SOURCES: Source[] = [promisesOnActions, brokenPromises, replies, readyDunningSteps, followUps];

/** The worklist's events of one company today: invoice id -> its event notes. */
export interface AttentionEvents {
  today: string;
  byInvoice: Map<string, AttentionNote[]>;
  /** The invoices with a pressing event (PRESSING_REASONS), the worklist's first tier. */
  pressing: Set<string>;
}

/** Whether an invoice's event notes put it in the worklist's first tier. */
export function isPressing(notes: readonly AttentionNote[]): boolean {
  return notes.some((n) => PRESSING_REASONS.has(n.reason));
}

export function attentionEvents(sqlite: Sqlite, companyId: string, today: string, now: string): AttentionEvents {
  const ctx = { sqlite, companyId, today, now };
  const byInvoice = new Map<string, AttentionNote[]>();
  const byCustomer = new Map<string, AttentionNote[]>();
  const add = (map: Map<string, AttentionNote[]>, key: string, note: AttentionNote) => map.set(key, [...(map.get(key) ?? []), note]);
  for (const source of SOURCES) {
    for (const found of source(ctx)) {
      if (found.invoiceId) add(byInvoice, found.invoiceId, found.note);
      else add(byCustomer, found.customerId, found.note);
    }
  }
  if (byCustomer.size) {
    // A customer-wide event concerns the customer's open invoices that are past due; a customer's
    // dunning step leaves a disputed invoice out of its email, so it is no step ready for that one.
    for (const r of prepared(
      sqlite,
      `SELECT i.id, i.customer_id, EXISTS (SELECT 1 FROM disputes d WHERE d.company_id = i.company_id AND d.invoice_id = i.id AND d.status = 'open') AS disputed
       FROM invoices i INDEXED BY invoices_customer
       WHERE i.company_id = ? AND i.customer_id IN (SELECT value FROM json_each(?)) AND i.due_date < ? AND i.closing_reason IS NULL AND i.balance > 0`,
    ).all(companyId, jsonList([...byCustomer.keys()]), today) as Array<{ id: string; customer_id: string; disputed: number }>) {
      for (const note of byCustomer.get(r.customer_id)!) if (!(r.disputed && note.reason === 'dunning_ready')) add(byInvoice, r.id, note);
    }
  }
  const pressing = new Set([...byInvoice].filter(([, notes]) => isPressing(notes)).map(([id]) => id));
  return { today, byInvoice, pressing };
}

/** The reasons of one open invoice: its events, then past due when it is. */
export function attentionNotes(events: Pick<AttentionEvents, 'today' | 'byInvoice'>, invoice: { id: string; due_date: string; balance: number; closing_reason: string | null }): AttentionNote[] {
  if (invoice.closing_reason) return [];
  const notes = [...(events.byInvoice.get(invoice.id) ?? [])];
  if (invoice.balance > 0 && invoice.due_date < events.today) notes.push(pastDueNote(invoice.due_date, events.today));
  return orderNotes(notes);
}

/**
 * Keyset position of the worklist order as one integer: invoices with a pressing event sort above
 * all others (EVENT_TIER is larger than any balance in minor units), then by balance.
 */
export const EVENT_TIER = 2 ** 50;

/** An invoice's place in the worklist (larger first): a pressing event above everything else, then the open balance (minor units). */
export function worklistKey(eventNotes: readonly AttentionNote[], balance: number): number {
  return (isPressing(eventNotes) ? EVENT_TIER : 0) + balance;
}
