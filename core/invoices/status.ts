/**
 * Invoice status and aging, pure and computed from "today": nothing here is stored, so both move
 * with the calendar and never through an operation.
 *
 * - A closed invoice (closing_reason set) is closed_<reason>.
 * - An open invoice is current until its due date has passed, then past_due_1_30 / 31_60 / 61_90 /
 *   90p by whole days past due. `overdue` is a filter value meaning every past_due_* status.
 * - aging_bucket follows the status: past_due_X is bucket X, anything not past due (current and
 *   every closed invoice, which owes nothing any more) is `current`.
 */
import type { ClosingReason } from '../db/schema';
import { addDays, daysBetween } from '../dates';

export const PAST_DUE_STATUSES = ['past_due_1_30', 'past_due_31_60', 'past_due_61_90', 'past_due_90p'] as const;
export type PastDueStatus = (typeof PAST_DUE_STATUSES)[number];
const CLOSED_STATUSES = ['closed_paid', 'closed_overpaid', 'closed_credit_memo', 'closed_written_off'] as const;

/** The statuses an invoice can actually have (`overdue` is only a filter value and a facet). */
export const CONCRETE_STATUSES = ['current', ...PAST_DUE_STATUSES, ...CLOSED_STATUSES] as const;
export type InvoiceStatus = (typeof CONCRETE_STATUSES)[number];

export const STATUS_VALUES = ['current', 'overdue', ...PAST_DUE_STATUSES, ...CLOSED_STATUSES] as const;
export type StatusValue = (typeof STATUS_VALUES)[number];

export type OpenStatus = 'current' | PastDueStatus;

export const AGING_BUCKETS = ['current', '1_30', '31_60', '61_90', '91_over'] as const;
export type AgingBucket = (typeof AGING_BUCKETS)[number];

export const AGING_BUCKET_LABELS: Record<AgingBucket, string> = {
  current: 'Current',
  '1_30': '1-30 days',
  '31_60': '31-60 days',
  '61_90': '61-90 days',
  '91_over': '90+ days',
};

export const CLOSED_STATUS: Record<ClosingReason, InvoiceStatus> = {
  paid: 'closed_paid',
  overpaid: 'closed_overpaid',
  credit_memo: 'closed_credit_memo',
  written_off: 'closed_written_off',
};

export const STATUS_LABELS: Record<StatusValue, string> = {
  current: 'Current',
  overdue: 'Overdue',
  past_due_1_30: 'Past due 1-30',
  past_due_31_60: 'Past due 31-60',
  past_due_61_90: 'Past due 61-90',
  past_due_90p: 'Past due 90+',
  closed_paid: 'Paid',
  closed_overpaid: 'Overpaid',
  closed_credit_memo: 'Closed by credit memo',
  closed_written_off: 'Written off',
};

const BUCKET_OF_STATUS: Record<OpenStatus, AgingBucket> = {
  current: 'current',
  past_due_1_30: '1_30',
  past_due_31_60: '31_60',
  past_due_61_90: '61_90',
  past_due_90p: '91_over',
};

/** Whole days past the due date (0 or negative while not yet due). */
export function daysPastDue(dueDate: string, today: string): number {
  return daysBetween(dueDate, today);
}

/** The status of an open invoice from its days past due. */
export function openStatus(days: number): OpenStatus {
  if (days <= 0) return 'current';
  if (days <= 30) return 'past_due_1_30';
  if (days <= 60) return 'past_due_31_60';
  if (days <= 90) return 'past_due_61_90';
  return 'past_due_90p';
}

export function invoiceStatus(invoice: { due_date: string; closing_reason: ClosingReason | null }, today: string): InvoiceStatus {
  if (invoice.closing_reason) return CLOSED_STATUS[invoice.closing_reason];
  return openStatus(daysPastDue(invoice.due_date, today));
}

export function statusDisplay(status: StatusValue): string {
  return STATUS_LABELS[status];
}

export function agingBucketOfStatus(status: InvoiceStatus): AgingBucket {
  return status in BUCKET_OF_STATUS ? BUCKET_OF_STATUS[status as OpenStatus] : 'current';
}

export function agingBucket(invoice: { due_date: string; closing_reason: ClosingReason | null }, today: string): AgingBucket {
  return agingBucketOfStatus(invoiceStatus(invoice, today));
}

/** The statuses whose invoices fall in an aging bucket. */
export function statusesOfBucket(bucket: AgingBucket): InvoiceStatus[] {
  return CONCRETE_STATUSES.filter((s) => agingBucketOfStatus(s) === bucket);
}

/** A status filter value as the concrete statuses it selects (`overdue` is every past_due_*). */
export function expandStatus(value: StatusValue): InvoiceStatus[] {
  return value === 'overdue' ? [...PAST_DUE_STATUSES] : [value];
}

/**
 * Days from the invoice date to today, or to the closing date once closed; never negative (an
 * invoice dated in the future has not been outstanding yet).
 */
export function daysOutstanding(invoice: { invoice_date: string; closing_reason: ClosingReason | null; closed_date: string | null }, today: string): number {
  const end = invoice.closing_reason && invoice.closed_date ? invoice.closed_date : today;
  return Math.max(0, daysBetween(invoice.invoice_date, end));
}

/** An inclusive range of due dates; null bounds are open-ended. */
export interface DueRange {
  from: string | null;
  to: string | null;
}

/** The due dates that give an open invoice this status today. */
export function dueRangeOfOpenStatus(status: OpenStatus, today: string): DueRange {
  switch (status) {
    case 'current':
      return { from: today, to: null };
    case 'past_due_1_30':
      return { from: addDays(today, -30), to: addDays(today, -1) };
    case 'past_due_31_60':
      return { from: addDays(today, -60), to: addDays(today, -31) };
    case 'past_due_61_90':
      return { from: addDays(today, -90), to: addDays(today, -61) };
    case 'past_due_90p':
      return { from: null, to: addDays(today, -91) };
  }
}

/** The due-date thresholds that split open invoices into statuses, for SQL CASE expressions. */
export function statusThresholds(today: string) {
  return { today, d30: addDays(today, -30), d60: addDays(today, -60), d90: addDays(today, -90) };
}

/** openStatus by comparing the due date with statusThresholds (no date arithmetic per row). */
export function openStatusOfDue(dueDate: string, t: ReturnType<typeof statusThresholds>): OpenStatus {
  if (dueDate >= t.today) return 'current';
  if (dueDate >= t.d30) return 'past_due_1_30';
  if (dueDate >= t.d60) return 'past_due_31_60';
  if (dueDate >= t.d90) return 'past_due_61_90';
  return 'past_due_90p';
}
