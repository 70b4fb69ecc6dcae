import { describe, expect, it } from 'vitest';
import { clampWeeks, forecastCalendar, mondayOf, nextMonday, weekIndexOf } from '../../core/analytics/calendar';
import { buildForecast, type DueInflow, type ExpectedInflow } from '../../core/analytics/forecast';
import { expectedInflows } from '../../core/analytics/forecast-inflows';

describe('forecast calendar', () => {
  it('finds the Monday strictly after a date', () => {
    expect(nextMonday('2026-11-23')).toBe('2026-11-30'); // a Monday: the next one
    expect(nextMonday('2026-11-24')).toBe('2026-11-30'); // Tuesday
    expect(nextMonday('2026-11-29')).toBe('2026-11-30'); // Sunday
    expect(nextMonday('2026-12-28')).toBe('2027-01-04'); // across a year
  });

  it('clamps the number of weeks to 1..26', () => {
    expect(clampWeeks(0)).toBe(1);
    expect(clampWeeks(-5)).toBe(1);
    expect(clampWeeks(13)).toBe(13);
    expect(clampWeeks(27)).toBe(26);
    expect(clampWeeks(400)).toBe(26);
  });

  it('starts with this week from the request date, then Monday-to-Sunday weeks coded W1..Wn', () => {
    const weeks = forecastCalendar('2026-11-26', 3);
    expect(weeks).toEqual([
      { week_index: 1, code: 'W1', label: 'This week, from Nov 26', start_date: '2026-11-26', end_date: '2026-11-29' },
      { week_index: 2, code: 'W2', label: 'Nov 30 - Dec 6', start_date: '2026-11-30', end_date: '2026-12-06' },
      { week_index: 3, code: 'W3', label: 'Dec 7 - Dec 13', start_date: '2026-12-07', end_date: '2026-12-13' },
    ]);
    expect(weekIndexOf(weeks, '2026-11-25')).toBe(-1);
    expect(weekIndexOf(weeks, '2026-11-26')).toBe(0);
    expect(weekIndexOf(weeks, '2026-11-30')).toBe(1);
    expect(weekIndexOf(weeks, '2026-12-14')).toBe(-1);
    // A Monday request: this week is the whole week.
    expect(forecastCalendar('2026-11-23', 1)[0]).toMatchObject({ start_date: '2026-11-23', end_date: '2026-11-29' });
  });
});

describe('forecast model', () => {
  const dated = (customer: string, date: string, balance: number, p: number): ExpectedInflow => ({
    customer_id: customer,
    customer_name: `Customer ${customer}`,
    date,
    amount: balance * p,
    sq: balance * balance * p,
    sq2: balance * balance * p * p,
  });
  const due = (customer: string, date: string, balance: number): DueInflow => ({ customer_id: customer, customer_name: `Customer ${customer}`, due_date: date, balance });

  it('puts each invoice in its weeks at its probabilities, the due-date series by due date, and sorts customers by predicted total', () => {
    const f = buildForecast({
      requestDate: '2026-11-26',
      weeks: 2,
      trailingSixMonthPayments: 2_600_00,
      due: [due('a', '2026-12-01', 100_00), due('b', '2026-11-27', 250_50), due('a', '2026-12-30', 999_00)],
      // b promised Nov 27 (0.6), else Dec 2 (0.4); a: Dec 8 at 0.5 (outside: W2 ends Dec 6), Dec 1 at 0.5.
      expected: [dated('b', '2026-11-27', 250_50, 0.6), dated('b', '2026-12-02', 250_50, 0.4), dated('a', '2026-12-08', 100_00, 0.5), dated('a', '2026-12-01', 100_00, 0.5)],
    });
    expect(f.time_series.due_date_cash_inflows).toEqual([250.5, 100]);
    expect(f.time_series.model_predicted_cash_inflows).toEqual([150.3, 150.2]);
    expect(f.model_predicted_total).toBe(300.5);
    expect(f.time_series.trailing_6m_avg_weekly_inflows).toEqual([100, 100]);
    expect(f.customers.map((c) => c.customer)).toEqual(['b', 'a']);
    expect(f.customers[1]).toMatchObject({ total_due: 100, total_predicted: 50 });
    expect(f.table_inflows_by_customer.totals).toMatchObject({ W1: 150.3, W2: 150.2, total: 300.5 });
    expect(f.week_customers[1]).toEqual({
      code: 'W2',
      customer_count: 2,
      customers: [
        { customer: 'b', customer_name: 'Customer b', predicted: 100.2 },
        { customer: 'a', customer_name: 'Customer a', predicted: 50 },
      ],
    });
    // The 80% range: W1 holds one invoice at 0.6 (250.50 or nothing), so it is wide but not below 0.
    expect(f.time_series.model_predicted_low[0]).toBeGreaterThanOrEqual(0);
    expect(f.time_series.model_predicted_low[0]).toBeLessThan(150.3);
    expect(f.time_series.model_predicted_high[0]).toBeGreaterThan(150.3);
    expect(f.chart.series_meta.map((s) => [s.key, s.type])).toEqual([
      ['due_date_cash_inflows', 'bar'],
      ['model_predicted_cash_inflows', 'bar'],
      ['trailing_6m_avg_weekly_inflows', 'line'],
    ]);
  });

  it('keeps a very late invoice by its collectible_90d, spread over the next 90 days, and a date already passed in this week', () => {
    const f = buildForecast({
      requestDate: '2026-11-26',
      weeks: 26,
      trailingSixMonthPayments: 0,
      due: [],
      expected: [{ customer_id: 'x', customer_name: 'X', date: null, amount: 90_00 * 0.5, sq: 90_00 ** 2 * 0.5, sq2: 90_00 ** 2 * 0.25 }, dated('y', '2026-11-20', 40_00, 1)],
    });
    // 45.00 expected: W1 has 4 of its 90 days (2.00), each full week 7 (3.50); y's stale date: W1.
    expect(f.time_series.model_predicted_cash_inflows[0]).toBe(42);
    expect(f.time_series.model_predicted_cash_inflows[1]).toBe(3.5);
    expect(f.model_predicted_total).toBe(85);
    expect(f.time_series.model_predicted_cash_inflows.slice(14).every((v) => v === 0)).toBe(true);
  });

  it('pages the customers, while the week totals and per-week customers cover every one', () => {
    const expected = Array.from({ length: 30 }, (_, i) => dated(`c${String(i).padStart(2, '0')}`, '2026-11-27', (i + 1) * 100, 1));
    const f = buildForecast({ requestDate: '2026-11-26', weeks: 1, trailingSixMonthPayments: 0, due: [], expected, customerOffset: 10, customerLimit: 5 });
    expect(f.customers_total).toBe(30);
    expect(f.customers.map((c) => c.customer)).toEqual(['c19', 'c18', 'c17', 'c16', 'c15']);
    expect(f.table_inflows_by_customer.rows).toHaveLength(5);
    expect(f.table_inflows_by_customer.totals).toMatchObject({ W1: 465, total: 465 });
    expect(f.week_customers[0].customer_count).toBe(30);
    expect(f.week_customers[0].customers.map((c) => c.customer)).toEqual(['c29', 'c28', 'c27', 'c26', 'c25']);
  });
});

describe('the inflows the refresh keeps per customer and week', () => {
  it('places each amount in the Monday of its week: scenarios at their probability, undated collectible apart, else the due date pushed by the lateness', () => {
    expect(['2026-11-23', '2026-11-25', '2026-11-29', '2026-11-30'].map(mondayOf)).toEqual(['2026-11-23', '2026-11-23', '2026-11-23', '2026-11-30']);
    const rows = expectedInflows(
      [
        { customerId: 'a', dueDate: '2026-11-01', balance: 1000, prediction: { predicted_date: '2026-11-26', alternative_scenarios: [{ date: '2026-11-26', probability: 0.6 }, { date: '2026-12-02', probability: 0.4 }] } },
        { customerId: 'a', dueDate: '2026-11-01', balance: 500, prediction: { predicted_date: '2026-11-24', alternative_scenarios: [{ date: '2026-11-24', probability: 1 }] } },
        { customerId: 'b', dueDate: '2026-06-01', balance: 200, prediction: { predicted_date: null, alternative_scenarios: [], collectible_90d: 0.5 } },
        // No prediction: the customer's 7 days (15 over 2, truncated) after the due date, a Monday week later.
        { customerId: 'c', dueDate: '2026-11-20', balance: 300, prediction: null },
        // The company's 3 days for a customer who has paid nothing; a zero balance counts nothing.
        { customerId: 'd', dueDate: '2026-11-27', balance: 400, prediction: null },
        { customerId: 'd', dueDate: '2026-11-27', balance: 0, prediction: null },
      ],
      new Map([['c', { lateDays: 15, paidCount: 2 }]]),
      () => ({ lateDays: 9, paidCount: 3 }),
    );
    expect(rows).toEqual([
      { customer_id: 'a', week: '2026-11-23', amount: 1100, sq: 1000 * 1000 * 0.6 + 500 * 500, sq2: 1000 * 1000 * 0.36 + 500 * 500 },
      { customer_id: 'a', week: '2026-11-30', amount: 400, sq: 1000 * 1000 * 0.4, sq2: 1000 * 1000 * 0.4 * 0.4 },
      { customer_id: 'b', week: '', amount: 100, sq: 200 * 200 * 0.5, sq2: 200 * 200 * 0.25 },
      { customer_id: 'c', week: '2026-11-23', amount: 300, sq: 90_000, sq2: 90_000 },
      { customer_id: 'd', week: '2026-11-30', amount: 400, sq: 160_000, sq2: 160_000 },
    ]);
  });
});
