/**
 * The rules of logged calls and notes, as small pure functions: what a call or note may carry,
 * and how one reads as a line of activity.
 */
import type { CallOutcome, CommunicationKind } from '../db/schema';
import { isValidDate } from '../dates';
import type { FieldErrors } from '../errors';

export const CALL_OUTCOMES = ['reached', 'left_voicemail', 'no_answer', 'wrong_number', 'promised_to_pay', 'disputed'] as const satisfies readonly CallOutcome[];

export const OUTCOME_LABELS: Record<CallOutcome, string> = {
  reached: 'Reached',
  left_voicemail: 'Left voicemail',
  no_answer: 'No answer',
  wrong_number: 'Wrong number',
  promised_to_pay: 'Promised to pay',
  disputed: 'Disputed',
};

export const LOGGED_KINDS = ['call', 'note'] as const satisfies readonly CommunicationKind[];
export type LoggedKind = (typeof LOGGED_KINDS)[number];

export const BODY_MAX = 20_000;
/** A logged time may run this far ahead of the server's clock (two machines' clocks disagree). */
export const FUTURE_SKEW_MS = 5 * 60_000;

export interface LoggedFields {
  kind: LoggedKind;
  outcome: CallOutcome | null;
  body: string | null;
  promise_date: string | null;
  /** Minor units. */
  promise_amount: number | null;
  /** ISO instant. */
  occurred_at: string;
}

/**
 * A note is text; a call may carry an outcome; a promise (date, amount) belongs to a call whose
 * outcome is promised_to_pay, which needs its date, on or after the day of the call. Nothing is
 * logged in the future.
 */
export function loggedFieldErrors(f: LoggedFields, now: string): FieldErrors {
  const errors: FieldErrors = {};
  const add = (field: string, message: string) => (errors[field] ??= []).push(message);
  if (f.kind === 'note') {
    if (!f.body) add('body', 'A note needs its text');
    if (f.outcome !== null) add('outcome', 'Only a call has an outcome');
  }
  if (f.body !== null && f.body.length > BODY_MAX) add('body', `Use at most ${BODY_MAX} characters`);
  const promising = f.outcome === 'promised_to_pay';
  if (!promising) {
    if (f.promise_date !== null) add('promise_date', 'Only a call with the outcome promised_to_pay carries a promise');
    if (f.promise_amount !== null) add('promise_amount', 'Only a call with the outcome promised_to_pay carries a promise');
  } else if (f.promise_date === null) add('promise_date', 'A promise to pay needs its date');
  if (f.promise_date !== null && !isValidDate(f.promise_date)) add('promise_date', 'Must be a date (YYYY-MM-DD)');
  const when = Date.parse(f.occurred_at);
  if (Number.isNaN(when)) add('occurred_at', 'Must be a date-time with a time zone');
  else {
    if (when - Date.parse(now) > FUTURE_SKEW_MS) add('occurred_at', 'Must not be in the future');
    if (f.promise_date !== null && isValidDate(f.promise_date) && f.promise_date < f.occurred_at.slice(0, 10)) add('promise_date', 'Must not be before the day of the call');
  }
  return errors;
}

/** The line an activity list shows: the subject, else the kind; a call adds its outcome. */
export function communicationTitle(kind: CommunicationKind, direction: string, subject: string | null, outcome: CallOutcome | null): string {
  const base = subject ?? (kind === 'call' ? (direction === 'inbound' ? 'Call from the customer' : 'Call') : kind === 'note' ? 'Note' : direction === 'inbound' ? 'Email received' : 'Email');
  return outcome ? `${base}: ${OUTCOME_LABELS[outcome]}` : base;
}
