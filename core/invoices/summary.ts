/**
 * GET .../invoices/summary: the company's AR at a glance. Everything comes from the trigger-kept
 * aggregates (invoice_due_totals per due date and state, customer_invoice_totals per customer),
 * so it costs the same at a million invoices as at ten. Aging and overdue figures count open
 * invoices with a balance, as the analytics aging report does.
 */
import { workingDate } from '../companies/as-of';
import type { ClosingReason } from '../db/schema';
import type { Engine } from '../engine';
import { fromMinor } from '../money';
import { emptyFacets } from './facets';
import { prepared } from '../db/statements';
import { readSnapshot } from './reader';
import { AGING_BUCKETS, type AgingBucket, agingBucketOfStatus, CLOSED_STATUS, daysPastDue, type InvoiceStatus, openStatusOfDue, STATUS_VALUES, type StatusValue, statusThresholds } from './status';

export interface BucketTotal {
  invoice_count: number;
  balance: number;
}

export interface InvoiceSummary {
  company_id: string;
  as_of: string;
  currency: string;
  invoice_count: number;
  open_invoice_count: number;
  closed_invoice_count: number;
  total_amount: number;
  total_open_balance: number;
  current_balance: number;
  overdue_balance: number;
  overdue_invoice_count: number;
  average_days_past_due: number;
  customers_with_open_balance: number;
  customers_with_overdue: number;
  /** Customers in the scope: the company's, or the AR owner's. */
  customer_count: number;
  status_counts: Record<StatusValue, number>;
  status_balances: Record<StatusValue, number>;
  aging: Record<AgingBucket, BucketTotal>;
}

/**
 * The figures of one AR owner's customers come from their invoices (through customers_ar_owner and
 * invoices_customer), grouped as invoice_due_totals groups the company's, so both scopes add up alike.
 */
const OWNER_DUE_TOTALS = `SELECT i.due_date, coalesce(i.closing_reason, 'open'), count(*), sum(i.balance <> 0), sum(i.total_amount), sum(i.balance)
  FROM customers c JOIN invoices i ON i.company_id = c.company_id AND i.customer_id = c.id
  WHERE c.company_id = ? AND c.ar_owner_id = ? GROUP BY 1, 2`;

export async function invoiceSummary(engine: Engine, companyId: string, arOwner?: string): Promise<InvoiceSummary> {
  const today = workingDate(engine, companyId);
  const t = statusThresholds(today);
  return readSnapshot(engine, (sqlite) => {
    const currency = (prepared(sqlite, 'SELECT currency FROM companies WHERE id = ?').pluck().get(companyId) as string | undefined) ?? 'USD';
    const counts = emptyFacets();
    const balances = emptyFacets();
    const aging = Object.fromEntries(AGING_BUCKETS.map((b) => [b, { invoice_count: 0, balance: 0 }])) as Record<AgingBucket, BucketTotal>;
    let invoiceCount = 0;
    let openCount = 0;
    let totalAmount = 0;
    let overdueWithBalance = 0;
    let daysPastDueSum = 0;
    const rows = (
      arOwner
        ? prepared(sqlite, OWNER_DUE_TOTALS).raw().all(companyId, arOwner)
        : prepared(sqlite, 'SELECT due_date, state, invoice_count, nonzero_count, total_amount, balance FROM invoice_due_totals WHERE company_id = ?').raw().all(companyId)
    ) as Array<[string, string, number, number, number, number]>;
    for (const [dueDate, state, n, nonzero, total, balance] of rows) {
      const open = state === 'open';
      const status: InvoiceStatus = open ? openStatusOfDue(dueDate, t) : CLOSED_STATUS[state as ClosingReason];
      invoiceCount += n;
      totalAmount += total;
      counts[status] += n;
      // The closed-invoice balance rule (shape.ts openBalance): a closed invoice owes nothing.
      if (!open) continue;
      balances[status] += balance;
      openCount += n;
      const bucket = aging[agingBucketOfStatus(status)];
      bucket.invoice_count += nonzero;
      bucket.balance += balance;
      if (status !== 'current') {
        counts.overdue += n;
        balances.overdue += balance;
        overdueWithBalance += nonzero;
        daysPastDueSum += nonzero * daysPastDue(dueDate, today);
      }
    }
    const customers = (
      arOwner
        ? prepared(
            sqlite,
            `SELECT count(t.oldest_open_due_date), coalesce(sum(t.oldest_open_due_date < ?), 0), count(*) FROM customers c
             LEFT JOIN customer_invoice_totals t ON t.company_id = c.company_id AND t.customer_id = c.id WHERE c.company_id = ? AND c.ar_owner_id = ?`,
          )
            .raw()
            .get(today, companyId, arOwner)
        : prepared(
            sqlite,
            `SELECT count(oldest_open_due_date), coalesce(sum(oldest_open_due_date < ?), 0), (SELECT count(*) FROM customers WHERE company_id = ?)
             FROM customer_invoice_totals WHERE company_id = ?`,
          )
            .raw()
            .get(today, companyId, companyId)
    ) as [number, number, number];
    const money = (r: Record<StatusValue, number>) => Object.fromEntries(STATUS_VALUES.map((s) => [s, fromMinor(r[s])])) as Record<StatusValue, number>;
    const openBalance = AGING_BUCKETS.reduce((sum, b) => sum + aging[b].balance, 0);
    return {
      company_id: companyId,
      as_of: today,
      currency,
      invoice_count: invoiceCount,
      open_invoice_count: openCount,
      closed_invoice_count: invoiceCount - openCount,
      total_amount: fromMinor(totalAmount),
      total_open_balance: fromMinor(openBalance),
      current_balance: fromMinor(aging.current.balance),
      overdue_balance: fromMinor(openBalance - aging.current.balance),
      overdue_invoice_count: overdueWithBalance,
      average_days_past_due: overdueWithBalance ? Math.round((daysPastDueSum / overdueWithBalance) * 10) / 10 : 0,
      customers_with_open_balance: customers[0],
      customers_with_overdue: customers[1],
      customer_count: customers[2],
      status_counts: counts,
      status_balances: money(balances),
      aging: Object.fromEntries(AGING_BUCKETS.map((b) => [b, { invoice_count: aging[b].invoice_count, balance: fromMinor(aging[b].balance) }])) as Record<AgingBucket, BucketTotal>,
    };
  });
}
