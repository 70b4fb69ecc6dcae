/**
 * Promises to pay: the ones logged with a call (its promise date and amount, whatever the call's
 * direction), and those found in what the customer said (inbound messages, calls and notes logged
 * by the team) as core/replies/reading.ts reads them: explicit commitment words with a date within
 * its horizon. A reply's reading kept with it (automatic, or as a person corrected it) wins.
 */
import { readReply, type ReplyReading } from '../replies/reading';
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

const REFUSAL = /\b(won't|will not|cannot|can't|refuse|not going to)\s+(?:\w+\s+){0,2}(pay|settle)/i;

export function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** How a communication reads: its kept reading, else read now (notes, calls, replies recorded before 0350). */
export function readingOf(c: Communication): ReplyReading {
  if (c.reading !== null) return c.reading;
  return readReply(c.subject, c.body, c.occurredAt);
}

/**
 * The promise a communication makes, if any: the one logged with it (the collector recorded it, so
 * it wins over anything read in the text), else the dated promise its reading finds.
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
      // An inbound note is the customer's own promise, written in the portal: what they said.
      logged: c.direction !== 'inbound',
      amount: c.promiseAmount,
    };
  }
  if (c.direction === 'outbound') return null;
  const reading = readingOf(c);
  if (reading.kind !== 'promise' || reading.date === null) return null;
  return { date: reading.date, communicationId: c.id, invoiceId: c.invoiceId, madeAt: c.occurredAt, sentence: reading.sentence ?? '', logged: false, amount: reading.amount };
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
