/**
 * GET .../invoices/{invoice_id}: the list item plus progress billing, classification, location,
 * and the dunning plan while a collection program is active on the invoice.
 */
import { workingDate } from '../companies/as-of';
import type { Engine } from '../engine';
import { NotFoundError } from '../errors';
import { stopWords } from '../holds/holds';
import { prepared } from '../db/statements';
import { readSnapshot, type Sqlite } from './reader';
import { type InvoiceItem, type InvoiceRow, ITEM_COLUMNS, toItems } from './shape';
import type { ClosingReason, ScheduledStepStatus, StepType } from '../db/schema';

/** One touchpoint of the active program: planned, due, done or dropped. */
export interface DunningStep {
  step: number;
  step_id: string;
  scheduled_step_id: string;
  label: string;
  scheduled_date: string;
  channel: 'email' | 'call' | 'task';
  status: ScheduledStepStatus;
  sent_at: string | null;
  /** Why a pending step does not go (its enrollment paused, the contact rule held it, this invoice disputed); null when nothing holds it. */
  held_reason: string | null;
}

export interface InvoiceDetail extends InvoiceItem {
  is_progress_invoice: boolean;
  parent_invoice: string | null;
  progress_percentage: number | null;
  transaction_type: string;
  customer_location: string | null;
  closing_reason: ClosingReason | null;
  closed_date: string | null;
  remote_id: string | null;
  dunning_plan?: DunningStep[];
  /** The open decision on the customer as a whole listing this invoice (one decision, shown once in the inbox); null when none. */
  covered_by: CoveringDecision | null;
}

export interface CoveringDecision {
  action: string;
  action_type: 'email' | 'call' | 'task';
  status: 'proposed' | 'scheduled' | 'processing';
  description: string;
  invoice_count: number;
}

const CHANNEL: Record<StepType, DunningStep['channel']> = { reminder: 'email', call: 'call', task: 'task' };

interface DetailRow extends InvoiceRow {
  customer_location_id: string | null;
  transaction_type: string;
  parent_invoice_id: string | null;
  progress_percentage: number | null;
  remote_id: string | null;
}

/**
 * The scheduled steps of the customer's active enrollments that concern this invoice (steps for
 * the whole customer, or for this invoice), in schedule order; null without an active enrollment.
 * A person's stop on the customer holds every pending step, in the contact rule's words.
 */
function dunningPlan(sqlite: Sqlite, companyId: string, customerId: string, invoiceId: string, today: string): DunningStep[] | null {
  const active = prepared(sqlite, `SELECT 1 FROM sequence_enrollments WHERE company_id = ? AND customer_id = ? AND status = 'active' LIMIT 1`).get(companyId, customerId);
  if (!active) return null;
  const stop = prepared(sqlite, `SELECT contact_stop, contact_stop_reason, contact_stop_by, contact_stop_at FROM customers WHERE id = ? AND company_id = ? AND contact_stop IS NOT NULL`).get(customerId, companyId) as
    | Parameters<typeof stopWords>[0]
    | undefined;
  const stopped = stop ? `Held: ${stopWords(stop, today)}.` : null;
  const rows = prepared(
    sqlite,
    `SELECT s.id, s.step_id, st.position, st.label, st.step_type, s.scheduled_date, s.status, s.sent_at,
       CASE WHEN s.status IN ('ready', 'scheduled') THEN COALESCE(
         e.paused_reason,
         CASE WHEN s.error LIKE 'Held: %' THEN s.error END,
         (SELECT 'Held: ' || i.invoice_number || ' is disputed.' FROM disputes d JOIN invoices i ON i.id = d.invoice_id
           WHERE d.company_id = s.company_id AND d.invoice_id = ? AND d.status = 'open' LIMIT 1)) END AS held_reason
     FROM scheduled_steps s
     JOIN sequence_enrollments e ON e.id = s.enrollment_id
     JOIN sequence_steps st ON st.id = s.step_id
     WHERE s.company_id = ? AND e.customer_id = ? AND e.status = 'active' AND (s.invoice_id IS NULL OR s.invoice_id = ?)
     ORDER BY s.scheduled_at, st.position, s.id`,
  ).all(invoiceId, companyId, customerId, invoiceId) as Array<{
    id: string;
    step_id: string;
    position: number;
    label: string;
    step_type: StepType;
    scheduled_date: string;
    status: ScheduledStepStatus;
    sent_at: string | null;
    held_reason: string | null;
  }>;
  return rows.map((r) => ({
    step: r.position,
    step_id: r.step_id,
    scheduled_step_id: r.id,
    label: r.label,
    scheduled_date: r.scheduled_date,
    channel: CHANNEL[r.step_type],
    status: r.status,
    sent_at: r.sent_at,
    held_reason: stopped && (r.status === 'ready' || r.status === 'scheduled') ? stopped : r.held_reason,
  }));
}

/**
 * The newest open decision on the customer as a whole whose list (metadata.invoice_ids) names the
 * invoice; an alternative is an option of a decision, not one.
 */
function coveringDecision(sqlite: Sqlite, companyId: string, customerId: string, invoiceId: string): CoveringDecision | null {
  const row = prepared(
    sqlite,
    `SELECT a.id AS action, a.action_type, a.status, a.description, json_array_length(a.metadata, '$.invoice_ids') AS invoice_count
     FROM actions a
     WHERE a.company_id = ? AND a.customer_id = ? AND a.invoice_id IS NULL AND a.status IN ('proposed', 'scheduled', 'processing') AND a.deleted_at IS NULL
       AND coalesce(a.top_recommendation, '') != 'alternative' AND json_valid(a.metadata) AND json_type(a.metadata, '$.invoice_ids') = 'array'
       AND EXISTS (SELECT 1 FROM json_each(a.metadata, '$.invoice_ids') j WHERE j.value = ?)
     ORDER BY a.created_at DESC, a.id DESC LIMIT 1`,
  ).get(companyId, customerId, invoiceId) as CoveringDecision | undefined;
  return row ?? null;
}

function readInvoiceDetail(sqlite: Sqlite, companyId: string, invoiceId: string, today: string): InvoiceDetail {
  const row = prepared(
    sqlite,
    `SELECT ${ITEM_COLUMNS.join(', ')}, customer_location_id, transaction_type, parent_invoice_id, progress_percentage, remote_id
     FROM invoices WHERE id = ? AND company_id = ?`,
  ).get(invoiceId.toLowerCase(), companyId) as DetailRow | undefined;
  if (!row) throw new NotFoundError('Invoice', invoiceId);
  const [item] = toItems(sqlite, companyId, [row], today);
  const plan = dunningPlan(sqlite, companyId, row.customer_id, row.id, today);
  return {
    ...item,
    is_progress_invoice: row.parent_invoice_id !== null,
    parent_invoice: row.parent_invoice_id,
    progress_percentage: row.progress_percentage,
    transaction_type: row.transaction_type,
    customer_location: row.customer_location_id,
    closing_reason: row.closing_reason,
    closed_date: row.closed_date,
    remote_id: row.remote_id,
    ...(plan ? { dunning_plan: plan } : {}),
    covered_by: coveringDecision(sqlite, companyId, row.customer_id, row.id),
  };
}

export async function getInvoiceDetail(engine: Engine, companyId: string, invoiceId: string): Promise<InvoiceDetail> {
  const today = workingDate(engine, companyId);
  return readSnapshot(engine, (sqlite) => readInvoiceDetail(sqlite, companyId, invoiceId, today));
}
