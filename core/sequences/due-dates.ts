/**
 * Steps timed from each invoice's due date, as pure functions: an invoice's schedule, which rows
 * are due at an instant, which rows leave (their invoice closed) and how a customer's rows of one
 * day merge into one email. The engine (due-store.ts) loads rows, asks these and writes the answer.
 */
import { addDays } from '../dates';
import type { SequenceTiming } from '../db/schema';
import { type Schedule } from './schedule';
import { zonedToUtc } from '../zones';

export const SEQUENCE_TIMINGS = ['enrollment_start', 'due_date'] as const satisfies readonly SequenceTiming[];

/** The cancel reason of a row whose invoice was paid, credited or written off before it ran. */
export const INVOICE_CLOSED = 'invoice_closed';

export interface DueStep {
  id: string;
  due_offset_days: number;
  offset_time: string;
}

export interface InvoiceStepSchedule extends Schedule {
  step_id: string;
}

/**
 * When each step runs for one invoice: due date + due_offset_days at offset_time in the zone.
 * An invoice joins on `joinDate` (enrolment, or the day it became open): steps whose day is
 * already past are not sent late one by one (a pile of stale reminders); only the latest of them
 * runs on the join day, and only when no step of its own falls on that day.
 */
export function invoiceSchedule(dueDate: string, steps: DueStep[], timeZone: string, joinDate: string): InvoiceStepSchedule[] {
  const dated = steps.map((s) => ({ step: s, date: addDays(dueDate, s.due_offset_days) }));
  const future = dated.filter((d) => d.date >= joinDate);
  const past = dated.filter((d) => d.date < joinDate).sort((a, b) => b.date.localeCompare(a.date) || b.step.offset_time.localeCompare(a.step.offset_time));
  const plan = future.map((d) => ({ step: d.step, date: d.date }));
  if (past.length && !future.some((d) => d.date === joinDate)) plan.push({ step: past[0].step, date: joinDate });
  return plan
    .map(({ step, date }) => ({ step_id: step.id, scheduled_date: date, scheduled_at: zonedToUtc(date, step.offset_time, timeZone) }))
    .sort((a, b) => a.scheduled_at.localeCompare(b.scheduled_at) || a.step_id.localeCompare(b.step_id));
}

/** An invoice is chased while open: no closing reason (paid, credited, written off) and a balance left. */
export function invoiceOpen(invoice: { closing_reason: string | null; balance: number }): boolean {
  return invoice.closing_reason === null && invoice.balance > 0;
}

export interface DueRow {
  id: string;
  enrollment_id: string;
  scheduled_date: string;
  scheduled_at: string;
  step_type: string;
  /** Held by last-touch awareness (a manual touch in the quiet days): not promoted. */
  held: boolean;
}

/** Rows of one enrollment, day and step type: the ones that become one email (or one call, one task). */
function dayKey(r: { enrollment_id: string; scheduled_date: string; step_type: string }): string {
  return `${r.enrollment_id}|${r.scheduled_date}|${r.step_type}`;
}

/**
 * The scheduled rows that become ready at `now`: a day's rows of one customer move together as soon
 * as the earliest of them is due, so a step at 09:00 and another at 14:00 the same day still make
 * one email. A held row stays (it becomes due again once the quiet period ends).
 */
export function dueRowIds(rows: DueRow[], now: string): string[] {
  const firstDue = new Set(rows.filter((r) => !r.held && r.scheduled_at <= now).map(dayKey));
  return rows.filter((r) => !r.held && firstDue.has(dayKey(r))).map((r) => r.id);
}

export interface OpenRow {
  id: string;
  invoice_open: boolean;
  /** Claimed by a send (the email may be on the wire): it belongs to that send now. */
  claimed: boolean;
}

/** Rows that leave the schedule: scheduled or ready rows of a closed invoice that no send has claimed. */
export function leavingRowIds(rows: OpenRow[]): string[] {
  return rows.filter((r) => !r.invoice_open && !r.claimed).map((r) => r.id);
}

export interface ReadyRow {
  id: string;
  enrollment_id: string;
  scheduled_date: string;
  step_type: string;
  due_offset_days: number;
  merged_into: string | null;
  /** A send claimed it: its group is fixed (the email is written). */
  claimed: boolean;
  /** The collector edited its email: it stays the one that is sent. */
  edited: boolean;
}

/**
 * Which row each ready row of a due-date sequence merges into (null: it leads, and its email lists
 * every invoice merged into it). Per customer (enrollment) and step type, one leader for everything
 * ready: a day's rows become ready together (dueRowIds), and a day left unsent joins the next one
 * rather than going out as a second email. A claimed row keeps its group as it is; among the
 * others, an edited row leads, else the step furthest from the due date (the most pressing words),
 * then the lowest id.
 */
export function mergeAssignments(rows: ReadyRow[]): Map<string, string | null> {
  const out = new Map<string, string | null>();
  const claimedLeaders = new Set(rows.filter((r) => r.claimed && r.merged_into === null).map((r) => r.id));
  const groups = new Map<string, ReadyRow[]>();
  for (const r of rows) {
    if (r.claimed || (r.merged_into !== null && claimedLeaders.has(r.merged_into))) {
      out.set(r.id, r.merged_into);
      continue;
    }
    const key = `${r.enrollment_id}|${r.step_type}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  for (const group of groups.values()) {
    const [leader] = [...group].sort((a, b) => Number(b.edited) - Number(a.edited) || b.due_offset_days - a.due_offset_days || a.id.localeCompare(b.id));
    for (const r of group) out.set(r.id, r.id === leader.id ? null : leader.id);
  }
  return out;
}

/** "3 days before due", "on the due date", "7 days after due". */
export function dueOffsetWords(days: number): string {
  if (days === 0) return 'on the due date';
  const n = Math.abs(days);
  return `${n} ${n === 1 ? 'day' : 'days'} ${days < 0 ? 'before' : 'after'} due`;
}
