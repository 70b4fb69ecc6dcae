/**
 * Conversation summaries from the communications (reminders sent, replies received, calls and
 * notes logged), by rules: an extractive summary (the most telling sentence of the latest message
 * from the customer, else of the latest message), tone from VADER (a lexicon with negation
 * handling) over what the customer said, promise dates parsed with chrono, who holds the ball,
 * the next step, and a stress level from silence, lateness, tone and amount.
 */
import vader from 'vader-sentiment';
import { daysBetween, longDate } from '../dates';
import { formatMoney } from '../money';
import { SUMMARY_MAX_WORDS } from '../insights/payloads';
import { type EvidenceItem, fact } from '../insights/evidence';
import type { Communication, CustomerFacts, OpenInvoice } from './facts';
import type { InsightDraft } from './predictions';
import { agingStep } from './signals';
import { type PaymentPromise, refuses, sentences } from './promises';

export type Tone = 'cooperative' | 'neutral' | 'frustrated' | 'avoidant' | 'unknown' | 'amicable' | 'defiant';

/** VADER compound score bounds for the tones. */
export const TONE_THRESHOLDS = { amicable: 0.6, cooperative: 0.2, frustrated: -0.2 };

const TOPICS_UNRELATED: [RegExp, string][] = [
  [/\b(deliver(y|ies)|shipment|shipping)\b/i, 'delivery'],
  [/\b(new order|purchase order|re-?order)\b/i, 'new order'],
  [/\b(contract|renewal)\b/i, 'contract'],
  [/\b(meeting|visit|demo)\b/i, 'meeting'],
  [/\b(address change|new address|contact change)\b/i, 'account details'],
];

const DISPUTE_WORDS = /\b(dispute|disputed|wrong|incorrect|overcharged|pricing|price|damaged|missing|credit note|credit memo)\b/i;

function text(c: Communication): string {
  return [c.subject, c.body].filter(Boolean).join('. ');
}

/** The customer's own words: inbound messages, and calls logged with them. */
function fromCustomer(c: Communication): boolean {
  return c.direction === 'inbound' || c.kind === 'call';
}

export function toneOf(communications: Communication[], silent: boolean): Tone {
  const theirs = communications.filter(fromCustomer).slice(-3);
  if (!theirs.length) return silent ? 'avoidant' : 'unknown';
  const latest = text(theirs[theirs.length - 1]);
  if (refuses(latest)) return 'defiant';
  const score = vader.SentimentIntensityAnalyzer.polarity_scores(theirs.map(text).join(' ')).compound;
  if (score >= TONE_THRESHOLDS.amicable) return 'amicable';
  if (score >= TONE_THRESHOLDS.cooperative) return 'cooperative';
  if (score <= TONE_THRESHOLDS.frustrated) return 'frustrated';
  return 'neutral';
}

/** The most telling sentence: one about paying, disputing or a date, else the first; at most 18 words. */
export function extractiveSummary(c: Communication): string {
  const all = sentences(text(c)).filter((s) => /\w/.test(s));
  const telling = all.find((s) => /\b(pay|paid|payment|dispute|invoice|transfer|credit|refuse|plan)\b/i.test(s)) ?? all[0] ?? '';
  const words = telling.split(/\s+/).filter(Boolean);
  return words.length > SUMMARY_MAX_WORDS ? `${words.slice(0, SUMMARY_MAX_WORDS - 1).join(' ')} …` : words.join(' ');
}

export function lastTouch(c: Communication) {
  return { at: c.occurredAt, channel: c.kind, direction: c.direction, by: c.authorName, summary: c.subject ?? extractiveSummary(c) };
}

/** The last touch of a conversation (oldest first): its latest contact with the customer; an internal note is none. */
function lastTouchOf(comms: readonly Communication[]) {
  const last = comms.findLast((c) => c.direction !== 'internal');
  return last ? lastTouch(last) : {};
}

export interface ConversationState {
  tone: Tone;
  activeCourt: 'AR' | 'Sales' | 'Operations' | 'Executive' | 'Customer';
  action: string | null;
  /** Days since the customer last wrote or called (null: never). */
  silenceDays: number | null;
  disputeRaised: boolean;
}

export function conversationState(communications: Communication[], promise: PaymentPromise | null, disputed: boolean, today: string): ConversationState {
  const last = communications[communications.length - 1];
  const lastTheirs = [...communications].reverse().find(fromCustomer);
  const silenceDays = lastTheirs ? daysBetween(lastTheirs.occurredAt.slice(0, 10), today) : null;
  const outboundSince = communications.filter((c) => c.direction === 'outbound' && (!lastTheirs || c.occurredAt > lastTheirs.occurredAt)).length;
  const tone = toneOf(communications, outboundSince >= 2);
  // A reply's kept reading says whether it raises a dispute (a person may have corrected it); other words are read for dispute terms.
  const disputeRaised = disputed || communications.some((c) => fromCustomer(c) && (c.reading ? c.reading.kind === 'dispute' : DISPUTE_WORDS.test(text(c))));
  if (!last) return { tone, activeCourt: 'AR', action: null, silenceDays, disputeRaised };
  if (disputeRaised) return { tone, activeCourt: 'Operations', action: 'Resolve the disputed items with operations and confirm the corrected amount', silenceDays, disputeRaised };
  if (promise && promise.date >= today) return { tone, activeCourt: 'Customer', action: `Check for the payment promised for ${longDate(promise.date)}`, silenceDays, disputeRaised };
  if (promise) return { tone, activeCourt: 'AR', action: `Call about the payment promised for ${longDate(promise.date)}, which has not arrived`, silenceDays, disputeRaised };
  if (tone === 'defiant') return { tone, activeCourt: 'Executive', action: 'Escalate the refusal to pay to a manager', silenceDays, disputeRaised };
  if (last.direction === 'inbound') return { tone, activeCourt: 'AR', action: 'Reply to the customer’s last message', silenceDays, disputeRaised };
  if (outboundSince >= 2) return { tone, activeCourt: 'AR', action: 'Call the billing contact: reminders are going unanswered', silenceDays, disputeRaised };
  return { tone, activeCourt: 'Customer', action: 'Wait for the customer’s answer to the last reminder', silenceDays, disputeRaised };
}

export function customerConversationSummary(customer: CustomerFacts, promise: PaymentPromise | null, predictedPayDate: string | null, today: string): InsightDraft {
  const comms = customer.communications;
  const cref = { type: 'customer' as const, id: customer.id };
  if (!comms.length) {
    return {
      payload: {
        summary: '',
        tone: 'unknown',
        active_court: 'AR',
        action: null,
        action_breakdown: {},
        last_touch: {},
        commitment_date: null,
        predicted_pay_date: predictedPayDate,
        evidence_trace: null,
        unrelated_items: [],
      },
      evidence: [fact('Communications with the customer', 0, 'communication', cref)],
    };
  }
  const disputed = customer.openInvoices.some((i) => i.disputed);
  const state = conversationState(comms, promise, disputed, today);
  const lastTheirs = [...comms].reverse().find(fromCustomer);
  const key = lastTheirs ?? comms[comms.length - 1];
  const unrelated = [...new Set(comms.filter(fromCustomer).flatMap((c) => TOPICS_UNRELATED.filter(([re]) => re.test(text(c))).map(([, topic]) => topic)))];
  const evidence: EvidenceItem[] = [
    fact('Summary taken from', `${key.kind} ${key.direction} on ${key.occurredAt.slice(0, 10)}`, 'communication', { type: 'communication', id: key.id }),
    fact('Communications read', comms.length, 'communication', cref),
    fact('Tone', state.tone, 'vader_sentiment'),
  ];
  if (promise) evidence.push(fact('Promise to pay on', promise.date, 'communication', { type: 'communication', id: promise.communicationId }));
  return {
    payload: {
      summary: extractiveSummary(key),
      tone: state.tone,
      active_court: state.activeCourt,
      action: state.action,
      action_breakdown: {
        owner: state.activeCourt,
        channel: state.activeCourt === 'Customer' ? 'none' : state.tone === 'defiant' || (state.silenceDays ?? 0) > 14 ? 'call' : 'email',
        reason: state.disputeRaised ? 'dispute' : promise ? 'promise' : state.tone,
      },
      last_touch: lastTouchOf(comms),
      commitment_date: promise?.date ?? null,
      predicted_pay_date: predictedPayDate,
      evidence_trace: [`${key.occurredAt.slice(0, 10)} ${key.kind} ${key.direction}: ${oneLine(extractiveSummary(key))}`],
      unrelated_items: unrelated,
    },
    evidence,
  };
}

/** 1 = routine, 10 = total silence / potential loss. */
export function stressLevel(input: { daysPastDue: number; silenceDays: number | null; tone: Tone; balance: number; typicalBalance: number; contacted: boolean }): number {
  let stress = 1;
  if (input.daysPastDue > 0) stress += 1;
  if (input.daysPastDue > 30) stress += 1;
  if (input.daysPastDue > 60) stress += 1;
  if (input.daysPastDue > 90) stress += 1;
  if (input.contacted && (input.silenceDays === null || input.silenceDays > 14)) stress += 1;
  if (input.contacted && (input.silenceDays === null || input.silenceDays > 30)) stress += 1;
  if (input.tone === 'frustrated' || input.tone === 'avoidant') stress += 1;
  if (input.tone === 'defiant') stress += 2;
  if (input.typicalBalance > 0 && input.balance > 2 * input.typicalBalance) stress += 1;
  return Math.max(1, Math.min(10, stress));
}

export function invoiceConversationSummary(customer: CustomerFacts, invoice: OpenInvoice, promise: PaymentPromise | null, today: string): InsightDraft {
  const comms = customer.communications.filter((c) => c.invoiceId === invoice.id || c.invoiceId === null);
  const state = conversationState(comms, promise, invoice.disputed, today);
  const daysPastDue = Math.max(0, daysBetween(invoice.dueDate, today));
  const typical = customer.openInvoices.reduce((s, i) => s + i.balance, 0) / Math.max(1, customer.openInvoices.length);
  const stress = stressLevel({ daysPastDue, silenceDays: state.silenceDays, tone: state.tone, balance: invoice.balance, typicalBalance: typical, contacted: comms.length > 0 });
  const amount = formatMoney(invoice.balance, invoice.currency);
  const blocker = state.disputeRaised
    ? 'The customer disputes the invoice'
    : promise && promise.date >= today
      ? `Payment promised for ${longDate(promise.date)}`
      : promise
        ? `The promise for ${longDate(promise.date)} was not kept`
        : state.tone === 'defiant'
          ? 'The customer refuses to pay'
          : comms.length === 0
            ? 'No contact yet'
            : state.silenceDays === null || state.silenceDays > 14
              ? 'No answer from the customer'
              : 'Waiting on the customer';
  const lastTheirs = [...comms].reverse().find(fromCustomer);
  const step = agingStep(invoice.dueDate, today);
  return {
    payload: {
      stress_level: stress,
      active_topic: state.action ?? (step ? `Remind about ${invoice.number}, ${step.label}` : `Confirm ${invoice.number} is scheduled for payment`),
      desired_outcome: `${amount} paid on ${invoice.number}`,
      blocker,
      last_touch: lastTouchOf(comms),
    },
    evidence: [
      fact('Due date', invoice.dueDate, 'invoice', { type: 'invoice', id: invoice.id }),
      fact('Open balance', amount, 'invoice', { type: 'invoice', id: invoice.id }),
      // Said only with a date: without one the clause read "last wrote or called on" and nothing.
      ...(lastTheirs ? [fact('The customer last wrote or called on', lastTheirs.occurredAt.slice(0, 10), 'communication', { type: 'communication', id: lastTheirs.id })] : []),
      fact('Tone', state.tone, 'vader_sentiment'),
    ],
  };
}

function oneLine(s: string): string {
  return s.replace(/[\r\n]+/g, ' ');
}
