/**
 * The one contact rule: may we write to this customer about these invoices, on this channel, now?
 * Every channel that sends to a customer asks it (sequence steps, reminders, approved actions,
 * statements), when it claims the send and again right before SMTP. Pure: store.ts gathers the facts.
 *
 * Invoice-level holds drop the invoice from the email (an open dispute on it, a standing promise on
 * it, the invoice closed, or not yet due for past-due words); customer-level holds stop the email
 * (an unanswered reply, a pause by a person, the one-email-a-day cap counted on what went out).
 */
import { addDays } from '../dates';
import { type ChaseFacts, type HoldSettings, ALL_HOLDS, replyHold, shortDate, standingPromise, unansweredDisputes } from '../holds/holds';
import { PermanentJobError } from '../jobs/worker';
import { localDate } from '../zones';

export type ContactChannel = 'sequence' | 'reminder' | 'action' | 'statement' | 'reply';

export const CONTACT_HOLD_KINDS = ['dispute', 'promise', 'closed', 'not_due', 'reply', 'paused', 'do_not_contact', 'daily_cap'] as const;
export type ContactHoldKind = (typeof CONTACT_HOLD_KINDS)[number];

export interface ContactInvoice {
  id: string;
  invoiceNumber: string;
  dueDate: string;
  /** Closed, paid or credited: nothing left to ask for. */
  closed: boolean;
}

export interface ContactFacts {
  chase: ChaseFacts;
  /** The invoices asked about (the company's; unknown ids are absent). */
  invoices: ContactInvoice[];
  /** A person's pause of the customer's chase, in words naming who and when ("Paused by Ann on Nov 20"). */
  pause: string | null;
  /** A person marked the customer "do not contact", in words naming who, when and why; null when not. */
  doNotContact?: string | null;
  /** The company's promise grace days: a promise holds until its date plus these. */
  graceDays?: number;
  /** The hold kinds an owner forbids sending through: an override of them does not count. */
  noOverride?: ContactHoldKind[];
  /**
   * The outbound emails to the customer, recently (the daily cap counts those of today): when each
   * went out, and when the send that made it was decided (a job's request), null when not known.
   */
  emailsSent: Array<{ at: string; decidedAt: string | null }>;
}

export interface ContactRequest {
  channel: ContactChannel;
  /** The invoices the email is about; none for the account as a whole (a statement). */
  invoiceIds: string[];
  /** The words say "past due": an invoice not yet past due is dropped. */
  pastDue?: boolean;
  /**
   * Which customer-wide chase holds count (a sequence's own settings: a reply, a promise for the
   * whole account); all by default. A disputed or promised invoice is left out whatever they say.
   */
  holds?: HoldSettings;
  /** The day the cap counts in (a sequence's zone); UTC by default. */
  timeZone?: string;
  /** Days a promise still holds after its date; the company's grace (the facts') by default. */
  graceDays?: number;
  /**
   * When a person decided the send (a reminder request, an approval): the emails of that same
   * decision (the other reminders of one bulk request) do not count against the daily cap, every
   * other email of the day does.
   */
  decidedAt?: string;
  /** Holds of these kinds a person chose to send through, with a reason kept in the change log. */
  overridden?: ContactHoldKind[];
  /**
   * The words were written about every asked invoice and cannot drop one (an approved decision on
   * the customer, its text naming the invoices it lists): one invoice held holds the email.
   */
  whole?: boolean;
}

export interface ContactHold {
  kind: ContactHoldKind;
  /** The invoice held; null for a hold on the customer. */
  invoiceId: string | null;
  reason: string;
}

export interface ContactAnswer {
  allowed: boolean;
  /** The invoices the email may still be about (the asked ones less the held). */
  invoiceIds: string[];
  held: ContactHold[];
  /** Every hold in words, one sentence; null when allowed and nothing was dropped. */
  reason: string | null;
}

function graceOf(facts: ContactFacts, request: ContactRequest): number {
  return request.graceDays ?? facts.graceDays ?? 0;
}

/** The holds on one invoice, in order: dispute, promise, closed, not yet due. */
export function invoiceHolds(facts: ContactFacts, invoice: ContactInvoice, request: ContactRequest, today: string): ContactHold[] {
  const out: ContactHold[] = [];
  const n = invoice.invoiceNumber;
  if (invoice.closed) return [{ kind: 'closed', invoiceId: invoice.id, reason: `${n} is closed: nothing is owed on it` }];
  const dispute = facts.chase.disputes.find((d) => d.invoiceId === invoice.id);
  if (dispute) out.push({ kind: 'dispute', invoiceId: invoice.id, reason: `${n} is disputed${dispute.reason ? ` (${dispute.reason})` : ''}` });
  // A promise stands until its date plus the grace days: seen from `today - grace`, it is not yet past.
  const p = standingPromise({ ...facts.chase, promises: facts.chase.promises.filter((x) => x.invoiceId === invoice.id) }, addDays(today, -graceOf(facts, request)));
  if (p) out.push({ kind: 'promise', invoiceId: invoice.id, reason: p.date ? `${facts.chase.customerName} promised to pay ${n} by ${shortDate(p.date, today)}` : `${n} has a promise to pay` });
  const asked = unansweredDisputes(facts.chase).find((d) => d.invoiceId === invoice.id);
  if (asked && !dispute) out.push({ kind: 'dispute', invoiceId: invoice.id, reason: `${facts.chase.customerName} may dispute ${n} (their reply of ${shortDate(asked.at, today)}) and nobody has answered yet` });
  if (request.pastDue && invoice.dueDate >= today) out.push({ kind: 'not_due', invoiceId: invoice.id, reason: `${n} is not past due (due ${shortDate(invoice.dueDate, today)})` });
  return out;
}

/** The holds on the customer as a whole: a promise for the whole account, a reply, a person's pause, today's email. */
export function customerHolds(facts: ContactFacts, request: ContactRequest, now: string): ContactHold[] {
  const settings = request.holds ?? ALL_HOLDS;
  const zone = request.timeZone ?? 'UTC';
  const today = localDate(new Date(now), zone);
  const name = facts.chase.customerName;
  const out: ContactHold[] = [];
  if (facts.doNotContact) out.push({ kind: 'do_not_contact', invoiceId: null, reason: facts.doNotContact });
  if (facts.pause) out.push({ kind: 'paused', invoiceId: null, reason: facts.pause });
  if (settings.promise) {
    const since = addDays(today, -graceOf(facts, request));
    const p = standingPromise({ ...facts.chase, promises: facts.chase.promises.filter((x) => x.invoiceId === null) }, since);
    if (p) out.push({ kind: 'promise', invoiceId: null, reason: p.date ? `${name} promised payment by ${shortDate(p.date, today)}` : `${name} has a promise to pay` });
  }
  // A reply read as disputing the account as a whole needs an answer before anything else, whatever the sequence pauses on.
  const disputing = unansweredDisputes(facts.chase).find((d) => d.invoiceId === null);
  if (disputing) out.push({ kind: 'dispute', invoiceId: null, reason: `${name} may dispute what they owe (their reply of ${shortDate(disputing.at, today)}) and nobody has answered yet` });
  const reply = settings.reply ? replyHold(facts.chase, today) : null;
  if (reply) out.push({ kind: 'reply', invoiceId: null, reason: reply.reason.replace(/^Paused: /, '') });
  const decided = request.decidedAt;
  if (facts.emailsSent.some((e) => !(decided !== undefined && e.decidedAt === decided) && localDate(new Date(e.at), zone) === today)) out.push({ kind: 'daily_cap', invoiceId: null, reason: `${name} already got an email from us today (one a day)` });
  return out;
}

/** The rule's answer for one customer. A whole-account email (no invoices) is held by customer-level holds only. */
export function decideContact(facts: ContactFacts, request: ContactRequest, now: string): ContactAnswer {
  const today = localDate(new Date(now), request.timeZone ?? 'UTC');
  const customer = customerHolds(facts, request, now);
  // A customer-wide promise stands for every invoice; asked about none, it holds the statement too.
  const byId = new Map(facts.invoices.map((i) => [i.id, i]));
  const asked = [...new Set(request.invoiceIds)];
  const invoiceHeld = asked.flatMap((id) => {
    const invoice = byId.get(id);
    return invoice ? invoiceHolds(facts, invoice, request, today) : [{ kind: 'closed' as const, invoiceId: id, reason: 'The invoice no longer exists' }];
  });
  // An override counts for the kinds a person chose to send through, unless an owner forbids it for that kind.
  const standing = (h: ContactHold) => !request.overridden?.includes(h.kind) || (facts.noOverride ?? []).includes(h.kind);
  const heldIds = new Set(invoiceHeld.filter(standing).map((h) => h.invoiceId));
  const remaining = asked.filter((id) => !heldIds.has(id));
  const held = [...customer, ...invoiceHeld].filter(standing);
  const allowed = !customer.some(standing) && (asked.length === 0 || (request.whole ? remaining.length === asked.length : remaining.length > 0));
  return { allowed, invoiceIds: allowed ? remaining : [], held, reason: held.length ? reasonWords(held, allowed) : null };
}

const HELD = 'Held: ';

/** "Held: INV-1 is disputed; Dover replied on Nov 23 and nobody has answered yet." or, with some left, "Left out: ...". */
export function reasonWords(held: ContactHold[], allowed: boolean): string {
  return `${allowed ? 'Left out: ' : HELD}${held.map((h) => h.reason).join('; ')}.`;
}

/** A failure stored in the rule's words: the send was held, not refused by the mail server. */
export function isHeldWords(words: string | null): boolean {
  return words?.startsWith(HELD) ?? false;
}

/**
 * A send the rule held at the moment of sending: nothing went out. Permanent for a job: it does not
 * try again by itself; a person sends it again once the hold is lifted.
 */
export class ContactHeldError extends PermanentJobError {
  constructor(readonly answer: ContactAnswer) {
    super(answer.reason ?? 'Held.');
    this.name = 'ContactHeldError';
  }
}
