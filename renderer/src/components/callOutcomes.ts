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
