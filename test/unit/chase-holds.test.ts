import { describe, expect, it } from 'vitest';
import { type ChaseFacts, chaseHolds, pauseFor, promiseMissed, shortDate, standingPromise } from '../../core/holds/holds';

const facts = (over: Partial<ChaseFacts> = {}): ChaseFacts => ({
  customerName: 'Tri-County',
  openInvoices: [
    { id: 'a', invoice_number: 'INV-10248' },
    { id: 'b', invoice_number: 'INV-10231' },
  ],
  lastReplyAt: null,
  lastAnswerAt: null,
  replyHandledAt: null,
  promises: [],
  disputes: [],
  ...over,
});
const ALL = { reply: true, promise: true, dispute: true };

describe('what holds the chase (core/sequences/holds)', () => {
  it('an unanswered real reply holds until we answer or mark it handled', () => {
    const replied = facts({ lastReplyAt: '2026-11-23T13:00:00.000Z', lastAnswerAt: '2026-11-20T09:00:00.000Z' });
    expect(pauseFor(replied, ALL, '2026-11-24')).toMatchObject({ kind: 'reply', reason: 'Paused: Tri-County replied on Nov 23 and nobody has answered yet' });
    expect(pauseFor({ ...replied, lastAnswerAt: '2026-11-23T15:00:00.000Z' }, ALL, '2026-11-24')).toBeNull();
    expect(pauseFor({ ...replied, replyHandledAt: '2026-11-23T13:00:00.000Z' }, ALL, '2026-11-24')).toBeNull();
    expect(pauseFor(replied, { ...ALL, reply: false }, '2026-11-24')).toBeNull();
  });

  it('a promise stands through its date and not after; on a closed invoice it holds nothing', () => {
    const promised = facts({ promises: [{ date: '2026-11-27', invoiceId: 'a' }] });
    expect(pauseFor(promised, ALL, '2026-11-27')).toMatchObject({ kind: 'promise', reason: 'Paused: Tri-County promised payment for INV-10248 by Nov 27', until: '2026-11-27' });
    expect(pauseFor(promised, ALL, '2026-11-28')).toBeNull();
    expect(pauseFor({ ...promised, openInvoices: [{ id: 'b', invoice_number: 'INV-10231' }] }, ALL, '2026-11-25')).toBeNull();
    // The latest date among standing promises; an undated label stands but a dated promise is named.
    const two = facts({ promises: [{ date: null, invoiceId: 'b' }, { date: '2026-12-05', invoiceId: null }, { date: '2026-11-27', invoiceId: 'a' }] });
    expect(standingPromise(two, '2026-11-25')).toEqual({ date: '2026-12-05', invoiceId: null });
    expect(pauseFor(facts({ promises: [{ date: null, invoiceId: 'b' }] }), ALL, '2026-11-25')?.reason).toBe('Paused: INV-10231 has a promise to pay');
  });

  it('a dispute on an open invoice comes first and names its reason', () => {
    const all = facts({ lastReplyAt: '2026-11-23T13:00:00.000Z', promises: [{ date: '2026-11-27', invoiceId: 'a' }], disputes: [{ invoiceId: 'b', reason: 'pricing' }] });
    expect(chaseHolds(all, '2026-11-25').map((h) => h.kind)).toEqual(['dispute', 'promise', 'reply']);
    // One invoice of two disputed: the enrollment pauses for the promise, the disputed invoice is left out of its emails.
    expect(pauseFor(all, ALL, '2026-11-25')?.kind).toBe('promise');
    expect(pauseFor(all, { ...ALL, dispute: false }, '2026-11-25')?.kind).toBe('promise');
    // Every open invoice disputed: nothing left to ask for, the dispute pauses it.
    const both = { ...all, disputes: [...all.disputes, { invoiceId: 'a', reason: null }] };
    expect(pauseFor(both, ALL, '2026-11-25')?.reason).toBe('Paused: INV-10231 is disputed (pricing)');
  });

  it('a promise that paused the chase is missed once its date passed with the invoice still open', () => {
    const before = { kind: 'promise' as const, until: '2026-11-27', invoiceId: 'a' };
    expect(promiseMissed(before, null, facts(), '2026-11-28')).toBe(true);
    expect(promiseMissed(before, null, facts(), '2026-11-27')).toBe(false);
    expect(promiseMissed(before, null, facts({ openInvoices: [{ id: 'b', invoice_number: 'INV-10231' }] }), '2026-11-28')).toBe(false);
    expect(promiseMissed(before, { kind: 'promise', reason: '', until: '2026-12-05', invoiceId: 'a' }, facts(), '2026-11-28')).toBe(false);
    expect(promiseMissed({ kind: 'reply', until: null, invoiceId: null }, null, facts(), '2026-11-28')).toBe(false);
  });
});

describe('automatic holds and dates in reasons (issue 36)', () => {
  it('a Resume sets aside a promise read automatically from a reply, not one a person recorded', () => {
    const read = { date: '2026-12-04', invoiceId: 'a', readAt: '2026-11-24T10:00:00.000Z' };
    expect(pauseFor(facts({ promises: [read] }), ALL, '2026-11-25')?.kind).toBe('promise');
    expect(pauseFor(facts({ promises: [read], resumedAt: '2026-11-24T11:00:00.000Z' }), ALL, '2026-11-25')).toBeNull();
    // A reply written after the Resume is read afresh.
    expect(pauseFor(facts({ promises: [{ ...read, readAt: '2026-11-24T12:00:00.000Z' }], resumedAt: '2026-11-24T11:00:00.000Z' }), ALL, '2026-11-25')?.kind).toBe('promise');
    expect(pauseFor(facts({ promises: [{ date: '2026-12-04', invoiceId: 'a', readAt: null }], resumedAt: '2026-11-24T11:00:00.000Z' }), ALL, '2026-11-25')?.kind).toBe('promise');
  });

  it('dates in reasons carry the year when it is not the current one', () => {
    expect(shortDate('2026-11-27', '2026-11-25')).toBe('Nov 27');
    expect(shortDate('2027-01-08', '2026-12-20')).toBe('Jan 8, 2027');
    expect(pauseFor(facts({ promises: [{ date: '2027-01-08', invoiceId: 'a' }] }), ALL, '2026-12-20')?.reason).toBe('Paused: Tri-County promised payment for INV-10248 by Jan 8, 2027');
    expect(pauseFor(facts({ lastReplyAt: '2026-12-30T10:00:00.000Z' }), ALL, '2027-01-02')?.reason).toBe('Paused: Tri-County replied on Dec 30, 2026 and nobody has answered yet');
  });
});
