import { describe, expect, it } from 'vitest';
import { attentionNotes, dunningNote, followUpNote, orderNotes, pastDueNote, promiseNote, replyNote, worklistKey } from '../../core/invoices/attention';
import { followUpRange } from '../../core/invoices/filters';
import { openBalance } from '../../core/invoices/shape';

describe('worklist rules', () => {
  it('words each reason with the days it concerns', () => {
    expect(followUpNote('2026-11-23', '2026-11-23')).toEqual({ reason: 'follow_up_due', label: 'Follow-up due today' });
    expect(followUpNote('2026-11-20', '2026-11-23').label).toBe('Follow-up 3 days overdue');
    expect(promiseNote('2026-11-23', '2026-11-23')).toEqual({ reason: 'promise_due', label: 'Promised payment due today' });
    expect(promiseNote('2026-11-22', '2026-11-23')).toEqual({ reason: 'promise_broken', label: 'Promise to pay broken (due 1 day ago)' });
    expect(pastDueNote('2026-10-24', '2026-11-23').label).toBe('30 days past due');
  });

  it('orders reasons by urgency, once each, and adds past due only to an open invoice with a balance past its date', () => {
    expect(orderNotes([pastDueNote('2026-11-01', '2026-11-23'), replyNote(), promiseNote('2026-11-20', '2026-11-23'), replyNote()]).map((n) => n.reason)).toEqual([
      'promise_broken',
      'reply_received',
      'past_due',
    ]);
    const events = { today: '2026-11-23', byInvoice: new Map([['a', [followUpNote('2026-11-23', '2026-11-23')]]]) };
    expect(attentionNotes(events, { id: 'a', due_date: '2026-11-30', balance: 100, closing_reason: null }).map((n) => n.reason)).toEqual(['follow_up_due']);
    expect(attentionNotes(events, { id: 'b', due_date: '2026-11-01', balance: 100, closing_reason: null }).map((n) => n.reason)).toEqual(['past_due']);
    expect(attentionNotes(events, { id: 'b', due_date: '2026-11-01', balance: 0, closing_reason: null })).toEqual([]);
    expect(attentionNotes(events, { id: 'a', due_date: '2026-11-01', balance: 100, closing_reason: 'written_off' })).toEqual([]);
  });

  it('reads follow-up windows from today: this week runs to Sunday', () => {
    // 2026-11-23 is a Monday, 2026-11-29 a Sunday.
    expect(followUpRange('overdue', '2026-11-23')).toEqual({ from: null, to: '2026-11-22' });
    expect(followUpRange('today', '2026-11-23')).toEqual({ from: '2026-11-23', to: '2026-11-23' });
    expect(followUpRange('this_week', '2026-11-23')).toEqual({ from: '2026-11-23', to: '2026-11-29' });
    expect(followUpRange('this_week', '2026-11-29')).toEqual({ from: '2026-11-29', to: '2026-11-29' });
  });

  it('lets a closed invoice owe nothing, whatever was left of it', () => {
    expect(openBalance({ balance: 8000, closing_reason: 'written_off' })).toBe(0);
    expect(openBalance({ balance: -500, closing_reason: 'overpaid' })).toBe(0);
    expect(openBalance({ balance: 8000, closing_reason: null })).toBe(8000);
  });

  it('ranks a much larger and later invoice above a small one unless the customer did something: a reply waiting, a promise due', () => {
    const today = '2026-11-23';
    const big = worklistKey([], 1_418_300);
    // Routine events (a follow-up date, a ready dunning step) do not lift a $356 invoice.
    expect(big).toBeGreaterThan(worklistKey([followUpNote('2026-11-22', today)], 35_600));
    expect(big).toBeGreaterThan(worklistKey([dunningNote('Second notice'), followUpNote(today, today)], 35_600));
    // The customer's own doing does, whatever the balances.
    expect(worklistKey([replyNote()], 35_600)).toBeGreaterThan(big);
    expect(worklistKey([promiseNote(today, today)], 35_600)).toBeGreaterThan(big);
    expect(worklistKey([promiseNote('2026-11-20', today)], 35_600)).toBeGreaterThan(worklistKey([followUpNote(today, today)], 99_999_999_00));
    // Within a tier, the larger balance first.
    expect(worklistKey([replyNote()], 50_000)).toBeGreaterThan(worklistKey([promiseNote(today, today)], 49_999));
  });
});
