/**
 * What every statement reader shares: its limits, its errors (a 400 naming the line or element, a
 * 413 past a limit), exact amounts and calendar dates. A bank file is hostile until read.
 */
import { isValidDate } from '../../dates';
import { DomainError, ValidationError } from '../../errors';
import { MAX_AMOUNT, toMinor } from '../../money';

export const READ_LIMITS = {
  /** The API refuses a larger upload (413) before a reader sees it; a reader checks again. */
  bytes: 50 * 1024 * 1024,
  /** Entries of one file: a busy account's year of days, far past the 10,000 of the benchmark. */
  entries: 200_000,
  /** XML elements nested in one another: camt's deepest path is about 15. */
  depth: 64,
};

/** A file the reader cannot read: the message says where (a line, an element). */
export function malformed(message: string): ValidationError {
  return new ValidationError(message, { file: ['Not a readable bank statement'] }, 'malformed_statement');
}

export class StatementTooLargeError extends DomainError {
  constructor(message: string) {
    super(413, 'file_too_large', message, { file: ['Over the size a statement may have'] });
  }
}

export function checkSize(bytes: Uint8Array): void {
  if (bytes.byteLength > READ_LIMITS.bytes) throw new StatementTooLargeError('The statement is larger than 50 MB; ask the bank for a shorter period');
}

export function tooManyEntries(): StatementTooLargeError {
  return new StatementTooLargeError(`The statement has more than ${READ_LIMITS.entries.toLocaleString('en-US')} entries; ask the bank for a shorter period`);
}

const DECIMAL_RE = /^(\d+)(?:[.,](\d*))?$/;

/**
 * A non-negative decimal amount as written in a bank file ("1000.12", "662,23", "2700") to cents;
 * null when the text is not one. More than two decimals are only accepted when the extra ones are
 * zeros (camt allows five; a real sub-cent amount cannot be booked in cents).
 */
export function decimalToCents(text: string): number | null {
  const m = DECIMAL_RE.exec(text.trim());
  if (!m) return null;
  const fraction = m[2] ?? '';
  if (fraction.length > 2 && /[1-9]/.test(fraction.slice(2))) return null;
  const value = Number(`${m[1]}.${fraction.slice(0, 2) || '0'}`);
  if (!Number.isFinite(value) || value > MAX_AMOUNT) return null;
  return toMinor(value);
}

/** The YYYY-MM-DD a date or date-time starts with (the bank's own calendar day), or null. */
export function isoDay(text: string | null | undefined): string | null {
  if (!text) return null;
  const day = text.trim().slice(0, 10);
  return isValidDate(day) ? day : null;
}

/** A six-digit SWIFT date YYMMDD; years 00-79 are 2000-2079, the rest 19xx. */
export function swiftDay(yymmdd: string): string | null {
  if (!/^\d{6}$/.test(yymmdd)) return null;
  const yy = Number(yymmdd.slice(0, 2));
  const day = `${yy < 80 ? 2000 + yy : 1900 + yy}-${yymmdd.slice(2, 4)}-${yymmdd.slice(4, 6)}`;
  return isValidDate(day) ? day : null;
}

/** Runs of white space to one space, trimmed; empty text to null. */
export function clean(text: string | null | undefined): string | null {
  if (text === null || text === undefined) return null;
  const out = text.replace(/\s+/g, ' ').trim();
  return out === '' ? null : out;
}

const CURRENCY_RE = /^[A-Z]{3}$/;

export function isCurrency(text: string | null | undefined): text is string {
  return typeof text === 'string' && CURRENCY_RE.test(text);
}
