/**
 * The payment statuses an import takes, and the words ledgers write for them. Pure and free of
 * Node, so the import wizard offers exactly these (renderer/src/settings/ImportWizard.tsx).
 */
import type { PaymentStatus } from '../db/schema';
import { PAYMENT_STATUSES } from '../payments/rules';

/**
 * Every status, VOIDED included: a file describes what already happened in the source system,
 * so a refunded or reversed payment arrives voided rather than through the void operation.
 */
export const IMPORT_STATUSES: readonly PaymentStatus[] = PAYMENT_STATUSES;

/**
 * Words (lower case) other ledgers use for a status. The spec has no refund: money that came in and
 * went back counts toward nothing, which is what VOIDED means (core/SPEC-DECISIONS.md, Import).
 */
export const STATUS_WORDS: Readonly<Record<string, PaymentStatus>> = {
  ...Object.fromEntries(PAYMENT_STATUSES.map((s) => [s.toLowerCase(), s])),
  void: 'VOIDED',
  refunded: 'VOIDED',
  refund: 'VOIDED',
  reversed: 'VOIDED',
  reversal: 'VOIDED',
  cancelled: 'VOIDED',
  canceled: 'VOIDED',
};

/** The status a cell means, or null when it names none. */
export function importedStatus(text: string): PaymentStatus | null {
  return STATUS_WORDS[text.trim().toLowerCase()] ?? null;
}
