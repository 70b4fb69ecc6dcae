/**
 * The Customers list's risk, as a collector means it: how late the oldest unpaid invoice is and how
 * much is past due come first, the customer's behaviour (its active signal: a broken promise,
 * paying later than usual, no answer) second, and the reason is said in words. Pure.
 */
import { daysBetween } from '../dates';
import { formatMoney } from '../money';

export type RiskLevel = 'high' | 'medium' | 'low';

/** Past due by more than this many days: the debt is at risk (the 90+ bucket). */
export const RISK_LATE_DAYS = 90;
/** Past due by more than this many days: watch it (the 31-60 bucket and beyond). */
export const WATCH_LATE_DAYS = 30;
/** A past-due balance (minor units) from which lateness weighs in full; below it, one level lower. */
export const RISK_BALANCE = 100_000;

export interface RiskInput {
  /** Past-due balance of the open invoices, minor units. */
  overdue: number;
  /** Due date of the oldest open invoice with a balance. */
  oldestOpenDueDate: string | null;
  currency: string;
  today: string;
  /** The customer's active signal (intelligence), if any. */
  signal: { severity: RiskLevel; title: string } | null;
}

export interface CustomerRisk {
  level: RiskLevel | null;
  reason: string;
}

const RANK: Record<RiskLevel, number> = { low: 1, medium: 2, high: 3 };
const LEVELS: RiskLevel[] = ['low', 'medium', 'high'];

function agingLevel(daysLate: number, overdue: number): RiskLevel {
  const byDays: RiskLevel = daysLate > RISK_LATE_DAYS ? 'high' : daysLate > WATCH_LATE_DAYS ? 'medium' : 'low';
  return overdue >= RISK_BALANCE ? byDays : LEVELS[Math.max(0, RANK[byDays] - 2)];
}

export function customerRisk(input: RiskInput): CustomerRisk {
  const daysLate = input.overdue > 0 && input.oldestOpenDueDate !== null && input.oldestOpenDueDate < input.today ? daysBetween(input.oldestOpenDueDate, input.today) : 0;
  const parts: string[] = [];
  let level: RiskLevel | null = null;
  if (daysLate > 0) {
    level = agingLevel(daysLate, input.overdue);
    parts.push(`${formatMoney(input.overdue, input.currency)} past due, the oldest ${daysLate} ${daysLate === 1 ? 'day' : 'days'} late`);
  }
  if (input.signal) {
    if (level === null || RANK[input.signal.severity] > RANK[level]) level = input.signal.severity;
    parts.push(input.signal.title);
  }
  return { level, reason: parts.length ? parts.join('; ') : 'Nothing past due' };
}
