import type { Schemas } from '../api/client';

/** A call's outcome in a collector's words; the keys are the API's (core/communications). */
export type CallOutcome = NonNullable<Schemas['NewCommunication']['outcome']>;

export const CALL_OUTCOME_WORDS: Record<CallOutcome, string> = {
  reached: 'Reached the customer',
  left_voicemail: 'Left a voicemail',
  no_answer: 'No answer',
  wrong_number: 'Wrong number',
  promised_to_pay: 'Promised to pay',
  disputed: 'Disputes the invoice',
};

export const CALL_OUTCOMES = Object.keys(CALL_OUTCOME_WORDS) as CallOutcome[];

/** A promise amount typed by a person: a positive number with at most two decimals, else nothing. */
export function promiseAmountValue(text: string): number | undefined {
  const n = Number(text);
  return text.trim() && Number.isFinite(n) && n > 0 ? Math.round(n * 100) / 100 : undefined;
}
