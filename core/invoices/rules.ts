/**
 * Input rules for invoice writes, pure: each returns the problems it finds (empty when valid).
 */
import { addDays, isValidDate } from '../dates';
import { hasAtMostTwoDecimals, MAX_AMOUNT } from '../money';

export const MAX_NUMBER_LENGTH = 64;
export const MAX_URL_LENGTH = 2048;
export const MAX_BULK_IDS = 1000;

export function amountProblems(amount: number): string[] {
  if (!Number.isFinite(amount)) return ['must be a number'];
  const out: string[] = [];
  if (amount <= 0) out.push('must be greater than 0');
  if (amount > MAX_AMOUNT) out.push(`must be at most ${MAX_AMOUNT}`);
  if (!hasAtMostTwoDecimals(amount)) out.push('must have at most two decimals');
  return out;
}

/** A payment portal link: an absolute http(s) URL. */
export function isPaymentLink(value: string): boolean {
  if (value.length > MAX_URL_LENGTH) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname.length > 0;
  } catch {
    return false;
  }
}

export function invoiceNumberProblems(value: string): string[] {
  const trimmed = value.trim();
  if (!trimmed) return ['must not be blank'];
  if (trimmed.length > MAX_NUMBER_LENGTH) return [`must be at most ${MAX_NUMBER_LENGTH} characters`];
  return [];
}

/** The due date an invoice gets when none is given: the issue date plus the customer's terms. */
export function defaultDueDate(issueDate: string, paymentTermsDays: number): string {
  return addDays(issueDate, paymentTermsDays);
}

export function dueDateProblems(invoiceDate: string, dueDate: string): string[] {
  if (!isValidDate(dueDate)) return ['must be a date YYYY-MM-DD'];
  return dueDate < invoiceDate ? ['must be on or after the invoice date'] : [];
}

/** A generated invoice number: INV- and the number zero-padded to six digits. */
export function generatedNumber(n: number): string {
  return `INV-${String(n).padStart(6, '0')}`;
}

/** Ids in `wanted` that are not in `found`, in request order, without repeats. */
export function missingIds(wanted: readonly string[], found: Iterable<string>): string[] {
  const have = new Set(found);
  return [...new Set(wanted)].filter((id) => !have.has(id));
}
