import { describe, expect, it } from 'vitest';
import { type CashHistory, forecastAsOf, forecastBacktest, forecastOrigins, kaplanMeier, weeklyChances } from '../../core/intelligence/cash-forecast';
import { scheduledPayments } from '../../core/intelligence/cash-history';
import type { Communication } from '../../core/intelligence/facts';

describe('the days-late distribution behind the forecast', () => {
  it('is a Kaplan-Meier estimate: open invoices count as unpaid up to their age', () => {
    // Paid 0, 10 and 20 days late; one open invoice 15 days past due (so it pays at 15 or later).
    const s = kaplanMeier([0, 10, 20], [15]);
    // Before 0 all four are at risk: S(0) = 1; one pays at 0 (3/4 left); at 10, 3 at risk, one pays
    // (1/2 left); the open one leaves the risk set at 15; at 20 the last one pays (0 left).
    expect(Array.from(s.days.slice(0, 3))).toEqual([0, 10, 20]);
    expect(Array.from(s.surviving)).toEqual([1, 0.75, 0.5, 0]);
  });

  it('gives the chance of payment in each coming week, given still unpaid at the age', () => {
    const s = kaplanMeier([0, 10, 20], [15]);
    // At 5 days past due: P(late >= 5) = 0.75; paid in days 5-11: 0.25 of it; 12-18: none; 19-25: the rest.
    expect(weeklyChances(s, 5, 4).map((p) => Math.round(p * 1000) / 1000)).toEqual([0.333, 0, 0.667, 0]);
    // Older than any payment seen: no chance is made up.
    expect(weeklyChances(s, 30, 2)).toEqual([0, 0]);
  });
});

describe('the forecast as of a day', () => {
  const invoice = (id: string, invoiceDate: string, dueDate: string, amount: number) => ({ id, customerId: 'c', invoiceDate, dueDate, amount });
  const history: CashHistory = {
    invoices: [invoice('a', '2026-01-01', '2026-01-31', 1000), invoice('b', '2026-01-05', '2026-02-04', 2000), invoice('open', '2026-02-20', '2026-03-02', 4000)],
    payments: [
      { invoiceId: 'a', date: '2026-02-03', amount: 1000 },
      { invoiceId: 'b', date: '2026-02-11', amount: 2000 },
    ],
    promises: [{ customerId: 'c', invoiceId: 'open', madeOn: '2026-02-25', date: '2026-03-20', amount: null, standsDays: 0 }],
  };

  it('puts an open balance where the history says, a promise in its week, and knows nothing of later payments', () => {
    // On Mar 2 the open invoice is 0 days late; the history paid 3 and 7 days late: half of it in
    // each of the first two weeks. The run rate (3000 in the 4 weeks before) is 750 a week; the
    // forecast shown is the mean of the two.
    const f = forecastAsOf({ ...history, promises: [] }, '2026-03-02');
    expect(f.model.slice(0, 5)).toEqual([0.5 * 2000 + 375, 0.5 * 2000 + 375, 375, 375, 375]);
    // From 6 weeks ahead, a forecast made then would not have seen a (Jan 1) nor b (Jan 5): their
    // 3000 over the last 8 weeks is 375 a week of invoices not yet issued.
    expect(f.model.slice(5)).toEqual([0.5 * 375 + 375, 0.5 * 375 + 375, 0.5 * 375 + 375]);
    expect(f.dueDate).toEqual([4000, 0, 0, 0, 0, 0, 0, 0]);
    expect(f.runRate[0]).toBe(750);
    // The promise (made Feb 25 for Mar 20, in the third week; none judged yet: a kept rate of 1/2)
    // takes half of the balance to its week.
    const promised = forecastAsOf(history, '2026-03-02');
    expect(promised.model.slice(0, 3)).toEqual([0.5 * 1000 + 375, 0.5 * 1000 + 375, 0.5 * 2000 + 375]);
    // A payment after the day changes nothing of the forecast made that day.
    const later = forecastAsOf({ ...history, payments: [...history.payments, { invoiceId: 'open', date: '2026-03-05', amount: 4000 }] }, '2026-03-02');
    expect(later).toEqual(promised);
  });

  it('scores nothing on a ledger too short to replay, rather than a perfect 0', () => {
    const report = forecastBacktest(history);
    expect(report).toHaveLength(8);
    expect(report.every((r) => r.weeks === 0 && r.wape === null && r.mape === null && r.bias === null)).toBe(true);
  });
});

describe('payments the customer said are coming', () => {
  const comm = (over: Partial<Communication>): Communication & { customerId: string } => ({
    id: 'm',
    customerId: 'c',
    invoiceId: 'open',
    kind: 'email',
    direction: 'inbound',
    subject: null,
    body: null,
    occurredAt: '2026-02-25T09:00:00Z',
    authorName: null,
    promiseDate: null,
    promiseAmount: null,
    reading: null,
    ...over,
  });

  it('reads them as the product reads promises: logged, written on the portal, scheduled in a reply; and remittance advices shared by their invoices', () => {
    const totals = new Map([
      ['open', 4000],
      ['other', 1000],
    ]);
    const found = scheduledPayments(
      [
        comm({ id: 'call', kind: 'call', direction: 'outbound', promiseDate: '2026-03-10', promiseAmount: 1500 }),
        comm({ id: 'portal', kind: 'note', invoiceId: null, body: "Wrote via the portal: I'll pay on March 12, 2026", promiseDate: '2026-03-12' }),
        comm({ id: 'reply', subject: 'Remittance advice', body: 'Payment of $25.00 scheduled for March 16, 2026.' }),
        // Our own email saying when we expect to be paid is no promise of theirs.
        comm({ id: 'ours', direction: 'outbound', body: 'We expect payment by March 20, 2026.' }),
        comm({ id: 'question', body: 'Can you send a copy of the invoice?' }),
      ],
      [{ customerId: 'c', invoiceIds: ['open', 'other', 'not-ours'], paidOn: '2026-02-27', amount: 2500, createdAt: '2026-03-01T08:00:00Z' }],
      totals,
    );
    expect(found).toEqual([
      { customerId: 'c', invoiceId: 'open', madeOn: '2026-02-25', date: '2026-03-10', amount: 1500, standsDays: 0 },
      { customerId: 'c', invoiceId: null, madeOn: '2026-02-25', date: '2026-03-12', amount: null, standsDays: 0 },
      { customerId: 'c', invoiceId: 'open', madeOn: '2026-02-25', date: '2026-03-16', amount: 2500, standsDays: 0 },
      // Sent Feb 27, said on Mar 1: expected from Mar 1, standing 5 days for the money to arrive;
      // 2,500 shared 4:1 by the invoice totals (an invoice not in the ledger takes nothing).
      { customerId: 'c', invoiceId: 'open', madeOn: '2026-03-01', date: '2026-03-01', amount: 2000, standsDays: 5 },
      { customerId: 'c', invoiceId: 'other', madeOn: '2026-03-01', date: '2026-03-01', amount: 500, standsDays: 5 },
    ]);
  });

  const invoice = (id: string, customerId: string, dueDate: string, amount: number) => ({ id, customerId, invoiceDate: '2026-01-01', dueDate, amount });
  // Two settled invoices teach the lateness (paid 3 and 7 days late); two open ones of customer c.
  const base: CashHistory = {
    invoices: [invoice('a', 'x', '2026-01-31', 1000), invoice('b', 'x', '2026-02-04', 2000), invoice('old', 'c', '2026-02-20', 3000), invoice('new', 'c', '2026-03-02', 4000)],
    payments: [
      { invoiceId: 'a', date: '2026-02-03', amount: 1000 },
      { invoiceId: 'b', date: '2026-02-11', amount: 2000 },
    ],
    promises: [],
  };
  const raw = (h: CashHistory, day: string) => {
    // The model's own part: the forecast shown is its mean with the run rate.
    const f = forecastAsOf(h, day);
    return f.model.map((v) => 2 * v - f.runRate[0]);
  };

  it('puts money already sent in its week at the promise-kept rate, while it stands, and the rest of the balance where the history says', () => {
    const advice = { customerId: 'c', invoiceId: 'new', madeOn: '2026-03-01', date: '2026-03-01', amount: 1000, standsDays: 5 };
    const without = raw(base, '2026-03-03');
    const withAdvice = raw({ ...base, promises: [advice] }, '2026-03-03');
    // On Mar 3 the newer invoice is 1 day past due; of the invoices paid 3 and 7 days late and the
    // older one open 11 days, the history says 2/3 of such a balance comes in this week (the rest
    // later than any payment seen). Said Mar 1 that 1,000 was sent: expected this week at the
    // kept rate (none judged yet: 1 in 2), 500, and the other 3,500 of the balance as before.
    expect(withAdvice[0] - without[0]).toBeCloseTo(500 - (500 * 2) / 3, 6);
    expect(withAdvice.slice(1)).toEqual(without.slice(1));
    // Past its 5 days in transit it no longer stands.
    expect(raw({ ...base, promises: [advice] }, '2026-03-07')).toEqual(raw(base, '2026-03-07'));
    // Not known before it was said.
    expect(raw({ ...base, promises: [advice] }, '2026-03-01')).toEqual(raw(base, '2026-03-01'));
  });

  it('a promise about the customer as a whole covers its open invoices by due date, up to its amount', () => {
    const whole = { customerId: 'c', invoiceId: null, madeOn: '2026-02-26', date: '2026-03-16', amount: 5000, standsDays: 0 };
    const f = raw({ ...base, promises: [whole] }, '2026-03-02');
    const without = raw(base, '2026-03-02');
    // On Mar 2 the history puts 1/3 of the newer invoice (due that day) in each of the first two
    // weeks, and nothing more of the older one (10 days past due). 5,000 promised for Mar 16 (the
    // third week) covers the older invoice's 3,000 and 2,000 of the newer, at the kept rate of 1/2:
    // 2,500 in that week; the newer invoice's other 3,000 as the history says.
    expect(f[2] - without[2]).toBeCloseTo(2500, 6);
    expect(f[0] - without[0]).toBeCloseTo(-1000 / 3, 6);
    expect(f[1] - without[1]).toBeCloseTo(-1000 / 3, 6);
    // Without an amount it covers every open balance: 7,000 at 1/2.
    const all = raw({ ...base, promises: [{ ...whole, amount: null }] }, '2026-03-02');
    expect(all[2] - without[2]).toBeCloseTo(3500, 6);
  });
});

describe('the replay of a recent window', () => {
  it('forecasts from every week after the first 8, or only the latest', () => {
    const invoices = Array.from({ length: 30 }, (_, i) => ({ id: `i${i}`, customerId: 'c', invoiceDate: `2026-01-${String(i + 1).padStart(2, '0')}`, dueDate: '2026-02-15', amount: 100 }));
    const history: CashHistory = { invoices, payments: [{ invoiceId: 'i0', date: '2026-05-01', amount: 100 }], promises: [] };
    // From Feb 26 (8 weeks after Jan 1) while a whole week is known before May 1: Feb 26 ... Apr 23.
    expect(forecastOrigins(history)).toEqual(['2026-02-26', '2026-03-05', '2026-03-12', '2026-03-19', '2026-03-26', '2026-04-02', '2026-04-09', '2026-04-16', '2026-04-23']);
    expect(forecastOrigins(history, 2)).toEqual(['2026-04-16', '2026-04-23']);
    expect(forecastBacktest(history, { lastWeeks: 2 })[0].weeks).toBe(2);
  });
});
