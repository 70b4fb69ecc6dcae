/**
 * Promises to pay: the ones logged with a call (its promise date and amount, whatever the call's
 * direction), and those found in what the customer said (inbound messages, calls and notes logged
 * by the team): a sentence that speaks of paying and names a date, read relative to when it was said.
 */
import type { Communication } from './facts';

export interface PaymentPromise {
  date: string;
  /** The communication it was read from, and the sentence. */
  communicationId: string;
  invoiceId: string | null;
  madeAt: string;
  /** What was said: the sentence read, or for a logged promise the call's note (or a line saying it was logged). */
  sentence: string;
  /** Logged with a call (rather than read from text), with the amount promised when given (minor units). */
  logged: boolean;
  amount: number | null;
}

const PAY_WORDS = /\b(pay|paying|paid|payment|transfer|wire|remit|settle|send (?:the )?(?:money|funds|check|cheque)|cheque|check)\b/i;
const REFUSAL = /\b(won't|will not|cannot|can't|refuse|not going to)\s+(?:\w+\s+){0,2}(pay|settle)/i;

let chrono: typeof import('chrono-node') | null = null;

/** chrono-node, loaded when the first payment sentence is read: the command line and a server's start need none. */
function dateParser(): typeof import('chrono-node') {
  chrono ??= require('chrono-node') as typeof import('chrono-node');
  return chrono;
}

export function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * The promise a communication makes, if any: the one logged with it (the collector recorded it, so
 * it wins over anything read in the text), else its latest dated payment sentence, on or after the
 * day it was said.
 */
export function promiseIn(c: Communication): PaymentPromise | null {
  if (c.promiseDate !== null) {
    const note = sentences(c.body ?? '')[0];
    return {
      date: c.promiseDate,
      communicationId: c.id,
      invoiceId: c.invoiceId,
      madeAt: c.occurredAt,
      sentence: note ?? `Promise to pay logged with the ${c.kind}`,
      logged: true,
      amount: c.promiseAmount,
    };
  }
  if (c.direction === 'outbound') return null;
  const text = [c.subject, c.body].filter(Boolean).join('\n');
  const said = new Date(c.occurredAt);
  let found: PaymentPromise | null = null;
  for (const sentence of sentences(text)) {
    if (!PAY_WORDS.test(sentence) || REFUSAL.test(sentence)) continue;
    const parsed = dateParser().parse(sentence, said, { forwardDate: true });
    if (!parsed.length) continue;
    const date = parsed[parsed.length - 1].start.date().toISOString().slice(0, 10);
    if (date < c.occurredAt.slice(0, 10)) continue;
    found = { date, communicationId: c.id, invoiceId: c.invoiceId, madeAt: c.occurredAt, sentence, logged: false, amount: null };
  }
  return found;
}

/** The latest promise among communications (oldest first), for one invoice or for the customer as a whole. */
export function latestPromise(communications: Communication[], invoiceId: string | null = null): PaymentPromise | null {
  for (let i = communications.length - 1; i >= 0; i--) {
    const c = communications[i];
    if (invoiceId !== null && c.invoiceId !== null && c.invoiceId !== invoiceId) continue;
    const p = promiseIn(c);
    if (p) return p;
  }
  return null;
}

export function refuses(text: string): boolean {
  return REFUSAL.test(text);
}
