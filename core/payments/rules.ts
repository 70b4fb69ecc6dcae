/**
 * Payment rules, pure: how a payment's status is chosen and may change, and how free-text method
 * and type values are normalised so filters match them.
 */
import type { ClosingReason, PaymentStatus } from '../db/schema';
import { InvalidStateError } from '../errors';

export const PAYMENT_STATUSES = ['PAID', 'PARTIAL', 'PENDING', 'FAILED', 'VOIDED'] as const satisfies readonly PaymentStatus[];

/** Statuses a new payment may be recorded with; VOIDED is only reached through the void operation. */
export const RECORDABLE_STATUSES = ['PAID', 'PARTIAL', 'PENDING', 'FAILED'] as const satisfies readonly PaymentStatus[];

/** Largest single payment accepted: 1 trillion in major units keeps every sum far inside safe integers. */
export const MAX_PAYMENT_MINOR = 100_000_000_000_000;

/**
 * Method and type are open vocabularies (the spec gives examples only). They are stored upper-case
 * with spaces and dashes as underscores, so "credit card", "Credit-Card" and CREDIT_CARD are one value.
 */
export function normalizeCode(value: string): string {
  return value
    .trim()
    .replace(/[\s-]+/g, '_')
    .toUpperCase();
}

export const normalizePaymentMethod = normalizeCode;
export const normalizePaymentType = normalizeCode;

/**
 * A settled payment describes what it did to the invoice: PAID when it covers the whole open
 * balance it was applied to, PARTIAL when it leaves some of it open.
 */
export function settledStatus(amountMinor: number, openBalanceMinor: number): 'PAID' | 'PARTIAL' {
  return amountMinor >= openBalanceMinor ? 'PAID' : 'PARTIAL';
}

/**
 * An invoice closed by a credit memo or a write-off was closed on purpose: money against it must
 * first reopen it, so a payment there is refused.
 */
export function acceptsPayments(closingReason: ClosingReason | null): boolean {
  return closingReason !== 'credit_memo' && closingReason !== 'written_off';
}

export type PaymentOperation = 'void' | 'settle' | 'fail';

/**
 * The payment state machine. PENDING is money announced but not arrived: settle makes it PAID or
 * PARTIAL, fail makes it FAILED. Any payment can be voided. Repeating an operation whose result is
 * already the payment's status is a no-op (false), so retries are safe; every other move is refused.
 */
export function operationChanges(current: PaymentStatus, operation: PaymentOperation): boolean {
  if (operation === 'void') return current !== 'VOIDED';
  const done = operation === 'settle' ? current === 'PAID' || current === 'PARTIAL' : current === 'FAILED';
  if (done) return false;
  if (current === 'PENDING') return true;
  const verb = operation === 'settle' ? 'settled' : 'marked failed';
  throw new InvalidStateError(`A ${current} payment cannot be ${verb}; only a PENDING one can`, 'invalid_payment_transition');
}
