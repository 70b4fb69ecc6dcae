import { describe, expect, it } from 'vitest';
import { type CashHistory, forecastAsOf, forecastBacktest, kaplanMeier, weeklyChances } from '../../core/intelligence/cash-forecast';

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
    promises: [{ invoiceId: 'open', madeOn: '2026-02-25', date: '2026-03-20', amount: null }],
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
