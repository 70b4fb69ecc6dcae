/**
 * The one contact rule (core/contact/rule.ts), decided from facts: invoice-level holds drop an
 * invoice from the email, customer-level holds stop it, and every reason reads in words.
 */
import { describe, expect, it } from 'vitest';
import { type ContactFacts, decideContact, isHeldWords } from '../../core/contact/rule';
import type { ChaseFacts } from '../../core/holds/holds';

const NOW = '2026-11-23T15:00:00.000Z';

function facts(over: Partial<ChaseFacts> = {}, rest: Partial<Omit<ContactFacts, 'chase'>> = {}): ContactFacts {
  return {
    chase: {
      customerName: 'Granite State Roofing',
      openInvoices: [
        { id: 'a', invoice_number: 'INV-1' },
        { id: 'b', invoice_number: 'INV-2' },
      ],
      lastReplyAt: null,
      lastAnswerAt: null,
      replyHandledAt: null,
      resumedAt: null,
      promises: [],
      disputes: [],
      ...over,
    },
    invoices: [
      { id: 'a', invoiceNumber: 'INV-1', dueDate: '2026-10-01', closed: false },
      { id: 'b', invoiceNumber: 'INV-2', dueDate: '2026-10-15', closed: false },
    ],
    pause: null,
    emailsSent: [],
    ...rest,
  };
}

const ask = (invoiceIds: string[], more: object = {}) => ({ channel: 'action' as const, invoiceIds, ...more });

describe('decideContact', () => {
  it('allows an email with nothing held, saying nothing', () => {
    expect(decideContact(facts(), ask(['a', 'b']), NOW)).toEqual({ allowed: true, invoiceIds: ['a', 'b'], held: [], reason: null });
  });

  it('drops a disputed invoice from an email about two, and holds an email about it alone', () => {
    const f = facts({ disputes: [{ invoiceId: 'a', reason: 'Wrong quantity' }] });
    const both = decideContact(f, ask(['a', 'b']), NOW);
    expect(both).toMatchObject({ allowed: true, invoiceIds: ['b'], reason: 'Left out: INV-1 is disputed (Wrong quantity).' });
    const alone = decideContact(f, ask(['a']), NOW);
    expect(alone).toMatchObject({ allowed: false, invoiceIds: [], reason: 'Held: INV-1 is disputed (Wrong quantity).' });
    expect(isHeldWords(alone.reason)).toBe(true);
    // The dispute is on INV-1 only: an email about INV-2 goes.
    expect(decideContact(f, ask(['b']), NOW).allowed).toBe(true);
  });

  it('holds an email written about every invoice it asks for (a decision naming them) when one of them is held', () => {
    const f = facts({ disputes: [{ invoiceId: 'a', reason: 'Wrong quantity' }] });
    expect(decideContact(f, ask(['a', 'b'], { whole: true }), NOW)).toMatchObject({ allowed: false, invoiceIds: [], reason: 'Held: INV-1 is disputed (Wrong quantity).' });
    expect(decideContact(facts(), ask(['a', 'b'], { whole: true }), NOW)).toMatchObject({ allowed: true, invoiceIds: ['a', 'b'], reason: null });
  });

  it('holds an invoice with a promise until its date plus the grace days, then lets it go', () => {
    const f = facts({ promises: [{ date: '2026-11-20', invoiceId: 'a' }] });
    expect(decideContact(f, ask(['a']), NOW).allowed).toBe(true);
    expect(decideContact(f, ask(['a'], { graceDays: 3 }), NOW)).toMatchObject({ allowed: false, reason: 'Held: Granite State Roofing promised to pay INV-1 by Nov 20.' });
    const later = facts({ promises: [{ date: '2027-01-05', invoiceId: 'a' }] });
    // A date in another year carries the year.
    expect(decideContact(later, ask(['a']), NOW).reason).toBe('Held: Granite State Roofing promised to pay INV-1 by Jan 5, 2027.');
  });

  it('holds the whole account for a promise not tied to an invoice, a statement included', () => {
    const f = facts({ promises: [{ date: '2026-11-30', invoiceId: null }] });
    expect(decideContact(f, { channel: 'statement', invoiceIds: [] }, NOW)).toMatchObject({ allowed: false, reason: 'Held: Granite State Roofing promised payment by Nov 30.' });
  });

  it('holds a closed invoice, and one not yet past due only when the words say past due', () => {
    const f = facts({}, { invoices: [{ id: 'a', invoiceNumber: 'INV-1', dueDate: '2026-12-26', closed: false }, { id: 'b', invoiceNumber: 'INV-2', dueDate: '2026-10-15', closed: true }] });
    expect(decideContact(f, ask(['a']), NOW).allowed).toBe(true);
    expect(decideContact(f, ask(['a'], { pastDue: true }), NOW)).toMatchObject({ allowed: false, held: [{ kind: 'not_due', invoiceId: 'a' }], reason: 'Held: INV-1 is not past due (due Dec 26).' });
    expect(decideContact(f, ask(['b']), NOW)).toMatchObject({ allowed: false, held: [{ kind: 'closed' }] });
    // Due today is not past due: "0 days past due" is never written.
    const today = facts({}, { invoices: [{ id: 'a', invoiceNumber: 'INV-1', dueDate: '2026-11-23', closed: false }] });
    expect(decideContact(today, ask(['a'], { pastDue: true }), NOW).allowed).toBe(false);
  });

  it('holds every channel on an unanswered reply, until we answered or a person marked it handled', () => {
    const replied = facts({ lastReplyAt: '2026-11-22T10:00:00.000Z' });
    expect(decideContact(replied, { channel: 'statement', invoiceIds: [] }, NOW)).toMatchObject({ allowed: false, held: [{ kind: 'reply', invoiceId: null }] });
    expect(decideContact(replied, ask(['a']), NOW).reason).toBe('Held: Granite State Roofing replied on Nov 22 and nobody has answered yet.');
    expect(decideContact(facts({ lastReplyAt: '2026-11-22T10:00:00.000Z', lastAnswerAt: '2026-11-22T11:00:00.000Z' }), ask(['a']), NOW).allowed).toBe(true);
    expect(decideContact(facts({ lastReplyAt: '2026-11-22T10:00:00.000Z', replyHandledAt: '2026-11-22T12:00:00.000Z' }), ask(['a']), NOW).allowed).toBe(true);
    // A sequence that does not pause on replies is not held by one.
    expect(decideContact(replied, ask(['a'], { holds: { reply: false, promise: true, dispute: true } }), NOW).allowed).toBe(true);
  });

  it("holds on a person's pause, naming who", () => {
    expect(decideContact(facts({}, { pause: 'Paused by Dana Demo on Nov 20' }), ask(['a']), NOW).reason).toBe('Held: Paused by Dana Demo on Nov 20.');
  });

  it('holds a second email of the day, counted on what went out, in the day of the zone asked', () => {
    const f = facts({}, { emailsSent: [{ at: '2026-11-23T09:00:00.000Z', decidedAt: '2026-11-23T08:00:00.000Z' }] });
    expect(decideContact(f, ask(['a']), NOW)).toMatchObject({ allowed: false, reason: 'Held: Granite State Roofing already got an email from us today (one a day).' });
    // Yesterday's email, in UTC, is not today's.
    expect(decideContact(facts({}, { emailsSent: [{ at: '2026-11-22T23:00:00.000Z', decidedAt: null }] }), ask(['a']), NOW).allowed).toBe(true);
    // In Honolulu (UTC-10) the 09:00Z email went out on Nov 22, and it is Nov 23 there now.
    expect(decideContact(f, ask(['a'], { timeZone: 'Pacific/Honolulu' }), NOW).allowed).toBe(true);
    // The emails of one decision (a bulk request) do not hold each other; those of any other decision do.
    expect(decideContact(f, ask(['a'], { decidedAt: '2026-11-23T08:00:00.000Z' }), NOW).allowed).toBe(true);
    expect(decideContact(f, ask(['a'], { decidedAt: '2026-11-23T07:00:00.000Z' }), NOW).allowed).toBe(false);
  });

  it('lets a person send through the holds they saw, and no others', () => {
    const f = facts({ disputes: [{ invoiceId: 'a', reason: null }] }, { emailsSent: [{ at: '2026-11-23T09:00:00.000Z', decidedAt: null }] });
    expect(decideContact(f, ask(['a'], { overridden: ['dispute', 'daily_cap'] }), NOW)).toEqual({ allowed: true, invoiceIds: ['a'], held: [], reason: null });
    // A reply that came in after they decided still holds it.
    const later = { ...f, chase: { ...f.chase, lastReplyAt: '2026-11-23T14:00:00.000Z' } };
    expect(decideContact(later, ask(['a'], { overridden: ['dispute', 'daily_cap'] }), NOW)).toMatchObject({ allowed: false, held: [{ kind: 'reply' }] });
  });

  it('names every hold at once, customer-level first', () => {
    const f = facts({ disputes: [{ invoiceId: 'a', reason: null }] }, { pause: 'Paused by Ann on Nov 20' });
    const answer = decideContact(f, ask(['a', 'b']), NOW);
    expect(answer.held.map((h) => h.kind)).toEqual(['paused', 'dispute']);
    expect(answer).toMatchObject({ allowed: false, invoiceIds: [], reason: 'Held: Paused by Ann on Nov 20; INV-1 is disputed.' });
  });
});
