import { describe, expect, it } from 'vitest';
import { coveredWords, latestCustomerEvent, nextStepWords } from '../../renderer/src/desk/glance-words';

type Entry = Parameters<typeof latestCustomerEvent>[0][number];
const entry = (fields: Partial<Entry> & Pick<Entry, 'at'>): Entry => ({
  kind: 'communication',
  direction: 'outbound',
  title: 'Email',
  outcome: null,
  promise_date: null,
  promise_amount: null,
  ...fields,
});

/** Issue 24: the panel leads with the customer's latest word: the newest of a reply, a promise and a dispute. */
describe("the panel's latest customer event (renderer/src/desk/glance-words)", () => {
  const reply = entry({ at: '2026-11-20T09:00:00.000Z', direction: 'inbound', title: 'Re: INV-1042' });
  const reminder = entry({ at: '2026-11-24T08:00:00.000Z', title: 'Reminder: INV-1042 is past due' });

  it('is the reply when nothing came after it; our own emails and calls without news are not the customer speaking', () => {
    const noAnswer = entry({ at: '2026-11-22T10:00:00.000Z', title: 'Call: No answer', outcome: 'no_answer' });
    expect(latestCustomerEvent([reminder, noAnswer, reply], [], 'USD')).toEqual({ kind: 'reply', at: reply.at, text: 'Reply: Re: INV-1042' });
    expect(latestCustomerEvent([reminder, noAnswer], [], 'USD')).toBeNull();
  });

  it('is a promise made on a later call, in words with its amount and date', () => {
    const promise = entry({ at: '2026-11-23T15:00:00.000Z', title: 'Call: Promised to pay', outcome: 'promised_to_pay', promise_date: '2026-11-27', promise_amount: 600.5 });
    expect(latestCustomerEvent([reminder, promise, reply], [], 'USD')).toEqual({ kind: 'promise', at: promise.at, text: 'Promised to pay $600.50 by Nov 27, 2026' });
  });

  it('is a dispute opened after the reply, even though the activity shows it only as an internal note', () => {
    const note = entry({ at: '2026-11-23T16:00:00.000Z', direction: 'internal', title: 'Dispute opened' });
    const event = latestCustomerEvent([note, reminder, reply], [{ created_at: '2026-11-23T16:00:00.000Z', reason: 'Short shipment: 3 cartons missing' }], 'USD');
    expect(event).toEqual({ kind: 'dispute', at: '2026-11-23T16:00:00.000Z', text: 'Disputed: Short shipment: 3 cartons missing' });
    // An older dispute does not hide a newer reply.
    const later = entry({ at: '2026-11-25T09:00:00.000Z', direction: 'inbound', title: 'Re: the missing cartons' });
    expect(latestCustomerEvent([later, note, reply], [{ created_at: '2026-11-23T16:00:00.000Z', reason: 'Short shipment' }], 'USD')?.kind).toBe('reply');
  });

  it('reads a dispute said on a call as a dispute', () => {
    const call = entry({ at: '2026-11-22T10:00:00.000Z', direction: 'inbound', title: 'Call from the customer: Disputed', outcome: 'disputed' });
    expect(latestCustomerEvent([call, reply], [], 'USD')).toEqual({ kind: 'dispute', at: call.at, text: 'Disputed on a call' });
  });

  it('names the next scheduled step by its label and date, never by its position number', () => {
    const plan = [
      { step: 1, label: 'Friendly reminder', scheduled_date: '2026-11-10', status: 'sent' },
      { step: 2, label: 'Second notice', scheduled_date: '2026-11-30', status: 'scheduled' },
      { step: 3, label: 'Call the billing contact', scheduled_date: '2026-12-07', status: 'scheduled' },
    ];
    expect(nextStepWords(plan)).toBe('Second notice on Nov 30, 2026');
    expect(nextStepWords([{ ...plan[1], status: 'ready' }])).toBe('Second notice, ready to go');
    expect(nextStepWords([plan[0], { ...plan[1], status: 'cancelled' }])).toBeNull();
  });
});

describe('the decision on the customer that covers the invoice (issue 36)', () => {
  it('says how many other invoices it decides for, and whether it was approved', () => {
    expect(coveredWords({ invoice_count: 5, status: 'proposed' })).toEqual({ lead: 'Decision for this and 4 more invoices: ', state: 'waiting for a decision' });
    expect(coveredWords({ invoice_count: 2, status: 'processing' })).toEqual({ lead: 'Decision for this and 1 more invoice: ', state: 'approved' });
    expect(coveredWords({ invoice_count: 1, status: 'scheduled' }).lead).toBe('Decision on the customer for this invoice: ');
  });
});
