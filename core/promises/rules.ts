/**
 * Promises followed: when a promise to pay is judged and what it came to. Pure.
 */
import { addDays } from '../dates';
import type { PromiseOutcome } from '../db/schema';

/** The last day the money may come: the promise's date plus the grace days. */
export function graceEnd(promisedDate: string, graceDays: number): string {
  return addDays(promisedDate, graceDays);
}

/** The latest promised date judged on `today`: a promise is judged once its last day has passed. */
export function judgedThrough(today: string, graceDays: number): string {
  return addDays(today, -(graceDays + 1));
}

export interface PromiseFacts {
  /** Minor units promised; null when no amount was said (then what was owed). */
  promisedAmount: number | null;
  /** Minor units paid from the day the promise was made through its last day. */
  paid: number;
  /** Minor units still owed at the end of its last day on what the promise was about. */
  owed: number;
  /** The invoice was credited or written off, or a newer promise replaced this one: nothing to judge. */
  superseded: boolean;
}

/**
 * Kept: the amount said was paid by the last day, or, with no amount, nothing was owed then.
 * Broken otherwise; void when the promise no longer stood (replaced, or its invoice credited or
 * written off). A void promise counts in no rate.
 */
export function judgePromise(f: PromiseFacts): PromiseOutcome {
  if (f.superseded) return 'void';
  if (f.promisedAmount !== null) return f.paid >= f.promisedAmount || f.owed <= 0 ? 'kept' : 'broken';
  return f.owed <= 0 ? 'kept' : 'broken';
}

/** Share of the judged promises that were kept, in percent with one decimal; null when none was judged. */
export function keptRate(outcomes: PromiseOutcome[]): number | null {
  const judged = outcomes.filter((o) => o !== 'void');
  if (judged.length === 0) return null;
  return Math.round((judged.filter((o) => o === 'kept').length / judged.length) * 1000) / 10;
}
