/**
 * Invoice rows as the spec's list item: money in major units, status and aging from today, and the
 * related bits (AR owner, labels, signals) fetched for a whole page in three queries.
 */
import type { Selectable } from 'kysely';
import type { InvoicesTable } from '../db/schema';
import { fromMinor } from '../money';
import { prepared } from '../db/statements';
import { jsonList, type Sqlite } from './reader';
import type { AttentionNote } from './attention';
import { type AgingBucket, agingBucketOfStatus, daysOutstanding, daysPastDue, type InvoiceStatus, invoiceStatus, statusDisplay } from './status';

/** The insight whose date the list shows as the predicted pay date (core/intelligence/predictions.ts). */
const PAY_DATE_INSIGHT = 'invoice_pay_date_prediction';
const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;

/** The invoice columns a list item needs. */
export const ITEM_COLUMNS = [
  'id',
  'customer_id',
  'customer_name',
  'invoice_number',
  'invoice_date',
  'due_date',
  'currency',
  'total_amount',
  'paid_amount',
  'balance',
  'closing_reason',
  'closed_date',
  'payment_link',
  'next_follow_up_date',
  'last_touch_at',
  'last_touched_by',
  'created_at',
  'updated_at',
] as const;

/** An invoices row as read for a list item: exactly the ITEM_COLUMNS. */
export type InvoiceRow = Pick<Selectable<InvoicesTable>, (typeof ITEM_COLUMNS)[number]>;

export interface LabelRef {
  id: string;
  name: string;
  color: string;
}

/** An active signal insight on the invoice: what changed materially, per its model. */
export interface SignalRef {
  insight_id: string;
  insight_type: string;
  signal: Record<string, unknown>;
  detected_at: string;
}

export interface InvoiceItem {
  id: string;
  customer: string;
  customer_name: string;
  invoice_number: string;
  invoice_date: string;
  due_date: string;
  currency: string;
  total_amount: number;
  paid_amount: number;
  /** What is owed: total less settled payments while open, 0 once closed (see openBalance). */
  balance: number;
  /** The same as balance, kept for callers that read it by this name. */
  open_balance: number;
  /** What was left of the total when the invoice closed (written off, credited; below 0 when overpaid); null while open. */
  balance_at_closing: number | null;
  /** Payments recorded as PENDING (money in flight, not yet counted as paid). */
  pending_amount: number;
  status: InvoiceStatus;
  status_display: string;
  days_outstanding: number;
  /** Whole days past the due date of an open invoice; 0 when not yet due or closed. */
  days_past_due: number;
  aging_bucket: AgingBucket;
  ar_owner: string | null;
  last_touch_date: string | null;
  last_touched_by: string | null;
  labels: LabelRef[];
  signals: SignalRef[];
  /** The current invoice_pay_date_prediction insight's date; null without one or when it could not predict. */
  predicted_pay_date: string | null;
  next_follow_up_date: string | null;
  payment_link: string | null;
  created_at: string;
  updated_at: string;
  /** With attention=true: why the invoice is in the worklist, the most pressing first. */
  attention?: AttentionNote[];
}

interface Related {
  owners: Map<string, string | null>;
  labels: Map<string, LabelRef[]>;
  signals: Map<string, SignalRef[]>;
  predictions: Map<string, string>;
  pending: Map<string, number>;
}

/**
 * The closed-invoice balance rule: a closed invoice owes nothing, whatever is left of its total
 * (written off, credited, or overpaid below zero). The API's `balance` (and `open_balance`) is
 * this, so what a list is sorted and filtered by is the number it shows; the stored remainder
 * reads as `balance_at_closing`.
 */
export function openBalance(row: { balance: number; closing_reason: string | null }): number {
  return row.closing_reason ? 0 : row.balance;
}

export function daysPastDueOf(row: { due_date: string; closing_reason: string | null }, today: string): number {
  return row.closing_reason ? 0 : Math.max(0, daysPastDue(row.due_date, today));
}

/** AR owner names of customers, labels and signals of invoices, for one page. */
function related(sqlite: Sqlite, companyId: string, rows: InvoiceRow[]): Related {
  const invoiceIds = jsonList(rows.map((r) => r.id));
  const customerIds = jsonList([...new Set(rows.map((r) => r.customer_id))]);
  const owners = new Map<string, string | null>();
  for (const o of prepared(
    sqlite,
    `SELECT c.id, t.name FROM customers c LEFT JOIN team_members t ON t.id = c.ar_owner_id
     WHERE c.id IN (SELECT value FROM json_each(?)) AND +c.company_id = ?`,
  ).all(customerIds, companyId) as Array<{ id: string; name: string | null }>) {
    owners.set(o.id, o.name);
  }
  const labels = new Map<string, LabelRef[]>();
  for (const l of prepared(
    sqlite,
    `SELECT il.invoice_id, l.id, l.name, l.color FROM invoice_labels il JOIN labels l ON l.id = il.label_id
     WHERE il.invoice_id IN (SELECT value FROM json_each(?)) AND +il.company_id = ? ORDER BY l.name COLLATE NOCASE, l.id`,
  ).all(invoiceIds, companyId) as Array<LabelRef & { invoice_id: string }>) {
    const list = labels.get(l.invoice_id) ?? [];
    list.push({ id: l.id, name: l.name, color: l.color });
    labels.set(l.invoice_id, list);
  }
  // Signals and the pay-date prediction come from the same few active insights per invoice: one lookup.
  const signals = new Map<string, SignalRef[]>();
  const predictions = new Map<string, string>();
  for (const s of prepared(
    sqlite,
    // A prediction's payload is large (scenarios, evidence): SQLite hands over only its date.
    `SELECT id, invoice_id, insight_type, valid_from,
       CASE WHEN insight_type = '${PAY_DATE_INSIGHT}' THEN CASE WHEN json_valid(payload_json) THEN json_extract(payload_json, '$.predicted_date') END ELSE payload_json END AS payload_json
     FROM insights
     WHERE invoice_id IN (SELECT value FROM json_each(?)) AND +company_id = ? AND valid_to IS NULL
       AND (insight_type LIKE '%\\_signal' ESCAPE '\\' OR insight_type = '${PAY_DATE_INSIGHT}')
     ORDER BY valid_from DESC, id DESC`,
  ).all(invoiceIds, companyId) as Array<{ id: string; invoice_id: string; insight_type: string; payload_json: unknown; valid_from: string }>) {
    if (s.insight_type === PAY_DATE_INSIGHT) {
      if (typeof s.payload_json === 'string' && DATE_RE.test(s.payload_json)) predictions.set(s.invoice_id, s.payload_json);
      continue;
    }
    if (typeof s.payload_json !== 'string') continue;
    const signal = signalOf(s.payload_json);
    if (!signal) continue;
    const list = signals.get(s.invoice_id) ?? [];
    list.push({ insight_id: s.id, insight_type: s.insight_type, signal, detected_at: s.valid_from });
    signals.set(s.invoice_id, list);
  }
  const pending = new Map<string, number>();
  for (const p of prepared(
    sqlite,
    `SELECT invoice_id, sum(amount) AS amount FROM payments INDEXED BY payments_invoice
     WHERE invoice_id IN (SELECT value FROM json_each(?)) AND +company_id = ? AND status = 'PENDING' GROUP BY invoice_id`,
  ).all(invoiceIds, companyId) as Array<{ invoice_id: string; amount: number }>) {
    pending.set(p.invoice_id, p.amount);
  }
  return { owners, labels, signals, predictions, pending };
}

/** A signal insight's payload carries `signal` (an object) only when a material change was found. */
function signalOf(payloadJson: string): Record<string, unknown> | null {
  try {
    const payload = JSON.parse(payloadJson) as { signal?: unknown };
    return payload && typeof payload.signal === 'object' && payload.signal !== null && !Array.isArray(payload.signal) ? (payload.signal as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function toItem(row: InvoiceRow, today: string, rel: Related): InvoiceItem {
  const status = invoiceStatus(row, today);
  return {
    id: row.id,
    customer: row.customer_id,
    customer_name: row.customer_name,
    invoice_number: row.invoice_number,
    invoice_date: row.invoice_date,
    due_date: row.due_date,
    currency: row.currency,
    total_amount: fromMinor(row.total_amount),
    paid_amount: fromMinor(row.paid_amount),
    balance: fromMinor(openBalance(row)),
    open_balance: fromMinor(openBalance(row)),
    balance_at_closing: row.closing_reason ? fromMinor(row.balance) : null,
    pending_amount: fromMinor(rel.pending.get(row.id) ?? 0),
    status,
    status_display: statusDisplay(status),
    days_outstanding: daysOutstanding(row, today),
    days_past_due: daysPastDueOf(row, today),
    aging_bucket: agingBucketOfStatus(status),
    ar_owner: rel.owners.get(row.customer_id) ?? null,
    last_touch_date: row.last_touch_at,
    last_touched_by: row.last_touched_by,
    labels: rel.labels.get(row.id) ?? [],
    signals: rel.signals.get(row.id) ?? [],
    predicted_pay_date: rel.predictions.get(row.id) ?? null,
    next_follow_up_date: row.next_follow_up_date,
    payment_link: row.payment_link,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function toItems(sqlite: Sqlite, companyId: string, rows: InvoiceRow[], today: string): InvoiceItem[] {
  if (rows.length === 0) return [];
  const rel = related(sqlite, companyId, rows);
  return rows.map((row) => toItem(row, today, rel));
}
