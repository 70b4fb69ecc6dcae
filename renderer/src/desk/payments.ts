/** Payment rules and words of the panel and the customer page. Pure: unit-tested directly. */
import type { Schemas } from '../api/client';
import { operationChanges, type PaymentOperation } from '../../../core/payments/rules';
import { formatMoney } from './format';

export type { PaymentOperation };

/** The methods offered when recording a payment (the API takes any text). */
export const PAYMENT_METHODS = ['ACH', 'WIRE', 'CHECK', 'CREDIT_CARD', 'CASH', 'OTHER'];

const METHOD_WORDS: Record<string, string> = { ACH: 'ACH', WIRE: 'Wire', CHECK: 'Check', CREDIT_CARD: 'Credit card', CASH: 'Cash', OTHER: 'Other', EFT: 'EFT' };

/** A payment method in words: the known codes as people write them, any other as given, without underscores. */
export function paymentMethodWords(method: string): string {
  return METHOD_WORDS[method.toUpperCase()] ?? method.replace(/_/g, ' ');
}

export const PAYMENT_STATUS_WORDS: Record<Schemas['Payment']['status'], string> = {
  PAID: 'Paid',
  PARTIAL: 'Partial',
  PENDING: 'Pending, not counted yet',
  FAILED: 'Failed',
  VOIDED: 'Voided',
};

/** In the order the panel shows the buttons. */
export const OPERATION_LABELS: Record<PaymentOperation, string> = { settle: 'Settle', fail: 'Mark failed', void: 'Void' };

/**
 * What can be done to a payment in a status: the core's own state machine, without the no-ops and
 * the refused moves. A failed payment is not offered a void: it counts toward nothing already.
 */
export function paymentOperations(status: Schemas['Payment']['status']): PaymentOperation[] {
  if (status === 'FAILED') return [];
  return (Object.keys(OPERATION_LABELS) as PaymentOperation[]).filter((operation) => {
    try {
      return operationChanges(status, operation);
    } catch {
      return false;
    }
  });
}

/** Amounts in major units, compared in cents so 0.1 + 0.2 never matters. */
function cents(amount: number): number {
  return Math.round(amount * 100);
}

/** How much an amount exceeds the open balance (0 when it does not). */
export function overpayment(amount: number, openBalance: number): number {
  if (!Number.isFinite(amount)) return 0;
  return Math.max(0, cents(amount) - cents(openBalance)) / 100;
}

/** The effect of an operation on the invoice, in a sentence. */
export function operationEffect(
  operation: PaymentOperation,
  payment: { amount: number; status: string },
  invoice: { open_balance: number; balance_at_closing: number | null; currency: string; closing_reason?: string | null },
): string {
  const money = (n: number) => formatMoney(n, invoice.currency);
  const open = money(invoice.open_balance);
  if (operation === 'fail') return `It will not count toward the invoice: the open balance stays ${open}.`;
  if (operation === 'settle') {
    const after = (cents(invoice.open_balance) - cents(payment.amount)) / 100;
    if (after < 0) return `It counts now: the invoice closes as overpaid by ${money(-after)}.`;
    if (after === 0) return `It counts now: the invoice is paid in full (open balance ${open} to ${money(0)}).`;
    return `It counts now: the open balance goes from ${open} to ${money(after)}.`;
  }
  if (payment.status === 'PENDING') return `It is cancelled and never counts: the open balance stays ${open}.`;
  if (invoice.closing_reason === 'credit_memo' || invoice.closing_reason === 'written_off') {
    return `It stops counting; the invoice stays closed (${invoice.closing_reason.replace('_', ' ')}) and owes nothing.`;
  }
  const after = (cents(invoice.balance_at_closing ?? invoice.open_balance) + cents(payment.amount)) / 100;
  return after > 0 ? `It stops counting: the open balance goes from ${open} to ${money(after)}${invoice.open_balance === 0 ? ' and the invoice reopens' : ''}.` : `It stops counting: the invoice stays overpaid by ${money(-after)}.`;
}
