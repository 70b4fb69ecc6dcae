/**
 * At most one chase email per customer per day, counted against what actually went out: an
 * outbound email recorded on the sequence's local day (a step, a reminder, a collector's own email)
 * or a step's send claimed and on the wire. Merging (due-dates.ts) makes one email of the rows that
 * are ready together; this rule holds the rows that would make a second one, such as an invoice
 * that opens after the day's email went out. Pure: queue.ts and send.ts load rows and emails.
 */
import type { StepType } from '../db/schema';
import { localDate } from '../zones';
import { EMAIL_STEP_TYPE } from './rules';

/** Local days run at most 14 hours ahead of UTC and 12 behind: an email older than this is on no sequence's today. */
export const DAY_WINDOW_MS = 2 * 86_400_000;

export interface DailyRow {
  id: string;
  customer_id: string;
  step_type: StepType;
  /** The sequence's time zone: its day is the day counted. */
  timezone: string;
  /** The leader whose email covers this row: the row follows it. */
  merged_into: string | null;
}

export interface EmailOut {
  customer_id: string;
  /** When it went out, or when its send was claimed. */
  at: string;
}

/** Whether the instant `at` falls on the local day of `now` in `timeZone`. */
export function sameLocalDay(at: string, now: string, timeZone: string): boolean {
  return localDate(new Date(at), timeZone) === localDate(new Date(now), timeZone);
}

/**
 * The email rows that wait for the next day: their customer already got an email on the
 * sequence's day. A row merged into a leader follows the leader; one merged into a leader that is
 * not among `rows` (a send claimed it) stays with that email.
 */
export function heldForTheDay(rows: DailyRow[], sent: EmailOut[], now: string): Set<string> {
  const byCustomer = new Map<string, string[]>();
  for (const e of sent) byCustomer.set(e.customer_id, [...(byCustomer.get(e.customer_id) ?? []), e.at]);
  const emailedToday = (r: DailyRow) => r.step_type === EMAIL_STEP_TYPE && (byCustomer.get(r.customer_id) ?? []).some((at) => sameLocalDay(at, now, r.timezone));
  const held = new Set(rows.filter((r) => r.merged_into === null && emailedToday(r)).map((r) => r.id));
  for (const r of rows) if (r.merged_into !== null && held.has(r.merged_into)) held.add(r.id);
  return held;
}

/** The words of the hold, for a refused send; the queue says it through hold_reason emailed_today. */
export function dailyLimitWords(customerName: string): string {
  return `${customerName} already got an email from us today. One email a day: this step waits for tomorrow`;
}
