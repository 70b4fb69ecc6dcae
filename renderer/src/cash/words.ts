import type { Schemas } from '../api/client';
import { formatCount, formatDate } from '../desk/format';

export type BankTransaction = Schemas['BankTransaction'];
export type BankTransactionDetail = Schemas['BankTransactionDetail'];
/** The API marks the named candidate schema nullable (it is also the list's nullable top candidate). */
export type BankCandidate = NonNullable<Schemas['BankCandidate']>;
export type BankState = BankTransaction['state'];

/** The tabs, in the order a collector works them. */
export const STATES: BankState[] = ['suggested', 'unmatched', 'applied', 'ignored', 'debit'];

export const STATE_WORDS: Record<BankState, string> = {
  suggested: 'To review',
  unmatched: 'Unmatched',
  applied: 'Applied',
  ignored: 'Set aside',
  debit: 'Debits',
};

/** One entry's state as a short phrase for its pill. */
export const STATE_PILL: Record<BankState, string> = {
  suggested: 'Suggested',
  unmatched: 'Unmatched',
  applied: 'Applied',
  ignored: 'Set aside',
  debit: 'Debit (never applied)',
};

export function confidenceLevel(confidence: number): 'High' | 'Medium' | 'Low' {
  return confidence >= 0.9 ? 'High' : confidence >= 0.6 ? 'Medium' : 'Low';
}

/** A confidence of 0..1 in words a collector weighs at a glance: "High (95%)". */
export function confidenceWords(confidence: number): string {
  return `${confidenceLevel(confidence)} (${Math.round(confidence * 100)}%)`;
}

/** Cents from what a person typed ("1,234.50", "99"), or null when it is not an amount. */
export function typedCents(text: string): number | null {
  const t = text.replace(/[\s,$€£]/g, '');
  if (!/^\d+(\.\d{0,2})?$/.test(t)) return null;
  const [whole, fraction = ''] = t.split('.');
  return Number(whole) * 100 + Number(fraction.padEnd(2, '0'));
}

export const toCents = (amount: number) => Math.round(amount * 100);
export const fromCents = (cents: number) => cents / 100;

/** An amount in cents as a person types it back ("1234.50"). */
export function centsText(cents: number): string {
  return (cents / 100).toFixed(2);
}

/** An entry's ranked candidates, best first. */
export function candidatesOf(entry: BankTransactionDetail): BankCandidate[] {
  return entry.candidates.filter((c): c is BankCandidate => c !== null);
}

/** What an import did, in one sentence. */
export function importSummary(r: Schemas['BankStatementImport']): string {
  const period = r.period_start && r.period_end ? ` (${formatDate(r.period_start)} to ${formatDate(r.period_end)})` : '';
  const parts = [`${formatCount(r.applied)} applied`, `${formatCount(r.suggested)} to review`, `${formatCount(r.unmatched)} unmatched`];
  if (r.duplicates > 0) parts.push(`${formatCount(r.duplicates)} already imported`);
  return `${r.format} statement of ${r.account}${period}: ${formatCount(r.entries)} entries, ${formatCount(r.credits)} credits and ${formatCount(r.debits)} debits. Credits: ${parts.join(', ')}.`;
}
