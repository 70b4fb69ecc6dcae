import type { Transaction } from 'kysely';
import type { ClosingReason, Database, PaymentStatus } from '../db/schema';

/** Payment statuses whose money has arrived and counts against the invoice. */
export const SETTLED_STATUSES: PaymentStatus[] = ['PAID', 'PARTIAL'];

export interface InvoiceTotals {
  paid_amount: number;
  balance: number;
  closing_reason: ClosingReason | null;
  closed_date: string | null;
}

/**
 * The invoice's money state from its settled payments (all in minor units). A credit memo or a
 * write-off is a deliberate closing and stays; otherwise a zero balance closes as paid and a
 * negative one as overpaid, on the date of the last payment.
 */
export function invoiceTotals(
  totalAmount: number,
  currentClosing: ClosingReason | null,
  currentClosedDate: string | null,
  settled: Array<{ amount: number; payment_date: string }>,
): InvoiceTotals {
  const paid = settled.reduce((sum, p) => sum + p.amount, 0);
  const balance = totalAmount - paid;
  if (currentClosing === 'credit_memo' || currentClosing === 'written_off') {
    return { paid_amount: paid, balance, closing_reason: currentClosing, closed_date: currentClosedDate };
  }
  const lastPayment = settled.reduce<string | null>((max, p) => (max === null || p.payment_date > max ? p.payment_date : max), null);
  if (paid > 0 && balance === 0) return { paid_amount: paid, balance, closing_reason: 'paid', closed_date: lastPayment };
  // A credit note (a negative total) with nothing paid on it stays open: it is the customer's credit.
  if (balance < 0 && paid > 0) return { paid_amount: paid, balance, closing_reason: 'overpaid', closed_date: lastPayment };
  return { paid_amount: paid, balance, closing_reason: null, closed_date: null };
}

/** Recomputes and stores an invoice's paid_amount, balance and closing inside the caller's transaction. */
export async function recomputeInvoiceBalance(db: Transaction<Database>, invoiceId: string, now: string): Promise<InvoiceTotals> {
  const invoice = await db
    .selectFrom('invoices')
    .select(['total_amount', 'closing_reason', 'closed_date'])
    .where('id', '=', invoiceId)
    .executeTakeFirstOrThrow();
  const settled = await db
    .selectFrom('payments')
    .select(['amount', 'payment_date'])
    .where('invoice_id', '=', invoiceId)
    .where('status', 'in', SETTLED_STATUSES)
    .execute();
  const totals = invoiceTotals(invoice.total_amount, invoice.closing_reason, invoice.closed_date, settled);
  await db.updateTable('invoices').set({ ...totals, updated_at: now }).where('id', '=', invoiceId).execute();
  return totals;
}
