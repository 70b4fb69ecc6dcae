/**
 * What holds the chase of a customer's invoices, as pure rules: an open dispute (until resolved), a
 * standing promise to pay (until its date plus the company's grace days passes unpaid; one read automatically from a reply also
 * until a Resume), a real reply nobody has answered yet (a later email or call of ours answers it). The
 * facts are gathered by holds-store.ts; sequences, reminders and actions all ask these rules, so a
 * customer is never chased while they are waiting for us.
 */
import { addDays } from '../dates';
import type { ContactStop, PauseKind } from '../db/schema';

export type HoldKind = Exclude<PauseKind, 'manual'>;
/** The order holds are named in when several stand: the one that ends last (or never) first. */
export const HOLD_KINDS = ['dispute', 'promise', 'reply'] as const satisfies readonly HoldKind[];

export interface HoldSettings {
  reply: boolean;
  promise: boolean;
  dispute: boolean;
}

export const ALL_HOLDS: HoldSettings = { reply: true, promise: true, dispute: true };

export interface PromiseFact {
  /** The day payment was promised for; null for a promise label with no date on record. */
  date: string | null;
  /** The invoice promised; null for the customer as a whole. */
  invoiceId: string | null;
  /**
   * When the customer wrote the reply this promise was read from automatically; null for a promise
   * a person recorded (a call, an action, a label, a reading they corrected). A Resume after it
   * sets an automatic promise aside.
   */
  readAt?: string | null;
}

export interface DisputeFact {
  invoiceId: string;
  /** The dispute's reason; null for a dispute label. */
  reason: string | null;
}

export interface ChaseFacts {
  customerName: string;
  /** The customer's open invoices: a promise or dispute on a closed one holds nothing. */
  openInvoices: Array<{ id: string; invoice_number: string }>;
  /** When the customer last replied (a real reply: automatic answers and bounces are never recorded as replies). */
  lastReplyAt: string | null;
  /** When we last wrote to or called the customer. */
  lastAnswerAt: string | null;
  /** The collector marked the replies up to this instant handled. */
  replyHandledAt: string | null;
  /** The collector's last Resume: automatic holds read before it no longer stand. */
  resumedAt?: string | null;
  promises: PromiseFact[];
  disputes: DisputeFact[];
  /**
   * Replies the reader (or a person) read as disputing an invoice (null: the account), when each was
   * written: a "needs an answer" hold on it until we answer, a person resumes, or a dispute is opened.
   */
  proposedDisputes?: Array<{ invoiceId: string | null; at: string }>;
  /** The company's promise grace days: a promise pauses the chase until its date plus these, as the contact rule holds it. */
  graceDays?: number;
}

export interface Hold {
  kind: HoldKind;
  /** In words: "Paused: Tri-County promised payment by Nov 27". */
  reason: string;
  /** A promise's date (the hold ends when it passes unpaid); null when the hold has no end date. */
  until: string | null;
  invoiceId: string | null;
}

const SHORT = new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' });
const SHORT_YEAR = new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', year: 'numeric', timeZone: 'UTC' });

/** "Nov 27", or "Oct 1, 2027" when the date is not in today's year (no year when today is not given). */
export function shortDate(date: string, today?: string): string {
  const format = today !== undefined && today.slice(0, 4) !== date.slice(0, 4) ? SHORT_YEAR : SHORT;
  return format.format(new Date(`${date.slice(0, 10)}T00:00:00Z`));
}

/** A person's stop on the customer in words: "Do not contact, set by Ann on Nov 20: asked us to write to their lawyer only" / "Paused by Ann on Nov 20: ...". */
export function stopWords(r: { contact_stop: ContactStop | null; contact_stop_reason: string | null; contact_stop_by: string | null; contact_stop_at: string | null }, today: string): string {
  const by = r.contact_stop_by ?? 'a person';
  const when = r.contact_stop_at ? ` on ${shortDate(r.contact_stop_at, today)}` : '';
  const why = r.contact_stop_reason ? `: ${r.contact_stop_reason}` : '';
  return r.contact_stop === 'do_not_contact' ? `Do not contact, set by ${by}${when}${why}` : `Paused by ${by}${when}${why}`;
}

function numberOf(facts: ChaseFacts, invoiceId: string | null): string | null {
  return facts.openInvoices.find((i) => i.id === invoiceId)?.invoice_number ?? null;
}

function isOpen(facts: ChaseFacts, invoiceId: string | null): boolean {
  return invoiceId === null ? facts.openInvoices.length > 0 : facts.openInvoices.some((i) => i.id === invoiceId);
}

/** An open dispute on an open invoice. */
export function disputeHold(facts: ChaseFacts): Hold | null {
  const d = facts.disputes.find((x) => isOpen(facts, x.invoiceId));
  if (!d) return null;
  const reason = d.reason ? ` (${d.reason})` : '';
  return { kind: 'dispute', reason: `Paused: ${numberOf(facts, d.invoiceId)} is disputed${reason}`, until: null, invoiceId: d.invoiceId };
}

/**
 * A promise that stands today: its date not yet passed, on an invoice still open. Of several, the
 * latest date (the customer asked for that long); a dated promise wins over an undated label.
 */
export function standingPromise(facts: ChaseFacts, today: string): PromiseFact | null {
  const resumed = facts.resumedAt ?? null;
  const standing = facts.promises.filter(
    (p) => isOpen(facts, p.invoiceId) && (p.date === null || p.date >= today) && !(p.readAt && resumed !== null && p.readAt <= resumed),
  );
  if (standing.length === 0) return null;
  return standing.reduce((best, p) => ((p.date ?? '') > (best.date ?? '') ? p : best));
}

export function promiseHold(facts: ChaseFacts, today: string): Hold | null {
  // Seen from `today - grace`, a promise in its grace days still stands (the contact rule's reading).
  const p = standingPromise(facts, addDays(today, -(facts.graceDays ?? 0)));
  if (!p) return null;
  const about = p.invoiceId ? ` for ${numberOf(facts, p.invoiceId)}` : '';
  const reason = p.date ? `Paused: ${facts.customerName} promised payment${about} by ${shortDate(p.date, today)}` : `Paused: ${numberOf(facts, p.invoiceId) ?? facts.customerName} has a promise to pay`;
  return { kind: 'promise', reason, until: p.date, invoiceId: p.invoiceId };
}

/** The customer's last reply is newer than our last message to them and than the last "handled". */
export function replyHold(facts: ChaseFacts, today?: string): Hold | null {
  const at = facts.lastReplyAt;
  if (at === null) return null;
  if ((facts.lastAnswerAt !== null && facts.lastAnswerAt >= at) || (facts.replyHandledAt !== null && facts.replyHandledAt >= at)) return null;
  return { kind: 'reply', reason: `Paused: ${facts.customerName} replied on ${shortDate(at, today)} and nobody has answered yet`, until: null, invoiceId: null };
}

/** The replies read as a dispute that still wait for us: nothing of ours and no Resume since. */
export function unansweredDisputes(facts: ChaseFacts): Array<{ invoiceId: string | null; at: string }> {
  const answered = [facts.lastAnswerAt, facts.replyHandledAt, facts.resumedAt ?? null].filter((x): x is string => x !== null).sort().at(-1) ?? null;
  return (facts.proposedDisputes ?? []).filter((d) => (answered === null || d.at > answered) && !facts.disputes.some((x) => x.invoiceId === d.invoiceId));
}

/** Every hold that stands, in HOLD_KINDS order. */
export function chaseHolds(facts: ChaseFacts, today: string): Hold[] {
  return [disputeHold(facts), promiseHold(facts, today), replyHold(facts, today)].filter((h): h is Hold => h !== null);
}

/**
 * The hold that pauses a sequence's enrollment: the first standing hold the sequence pauses on. A
 * dispute is on one invoice: it pauses the enrollment only when every open invoice is disputed;
 * otherwise the steps go about the others and leave the disputed ones out (core/contact).
 */
export function pauseFor(facts: ChaseFacts, settings: HoldSettings, today: string): Hold | null {
  return chaseHolds(facts, today).find((h) => settings[h.kind] && (h.kind !== 'dispute' || everyOpenDisputed(facts))) ?? null;
}

/** Every open invoice of the customer has an open dispute (and there is at least one). */
export function everyOpenDisputed(facts: ChaseFacts): boolean {
  const disputed = new Set(facts.disputes.map((d) => d.invoiceId));
  return facts.openInvoices.length > 0 && facts.openInvoices.every((i) => disputed.has(i.id));
}

export interface PausedState {
  kind: PauseKind | null;
  until: string | null;
  invoiceId: string | null;
}

/**
 * A promise that paused the enrollment has broken: its date has passed, what was promised is still
 * open, and no other promise stands in its place.
 */
export function promiseMissed(before: PausedState, after: Hold | null, facts: ChaseFacts, today: string): boolean {
  if (before.kind !== 'promise' || before.until === null || addDays(before.until, facts.graceDays ?? 0) >= today) return false;
  if (after?.kind === 'promise') return false;
  return isOpen(facts, before.invoiceId);
}
