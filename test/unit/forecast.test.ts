import { describe, expect, it } from 'vitest';
import { clampWeeks, forecastCalendar, nextMonday, weekIndexOf } from '../../core/analytics/calendar';
import { buildForecast, type ExpectedInflow } from '../../core/analytics/forecast';

describe('forecast calendar', () => {
  it('starts on the Monday strictly after the request date', () => {
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

  it('builds Monday-to-Sunday weeks coded W1..Wn', () => {
    const weeks = forecastCalendar('2026-11-25', 3);
    expect(weeks).toEqual([
      { week_index: 1, code: 'W1', label: 'Nov 30 - Dec 6', start_date: '2026-11-30', end_date: '2026-12-06' },
      { week_index: 2, code: 'W2', label: 'Dec 7 - Dec 13', start_date: '2026-12-07', end_date: '2026-12-13' },
      { week_index: 3, code: 'W3', label: 'Dec 14 - Dec 20', start_date: '2026-12-14', end_date: '2026-12-20' },
    ]);
    expect(weekIndexOf(weeks, '2026-11-29')).toBe(-1);
    expect(weekIndexOf(weeks, '2026-12-06')).toBe(0);
    expect(weekIndexOf(weeks, '2026-12-07')).toBe(1);
    expect(weekIndexOf(weeks, '2026-12-21')).toBe(-1);
  });
});

describe('forecast model', () => {
  const inflow = (customer: string, due: string, predicted: string, balance: number): ExpectedInflow => ({
    customer_id: customer,
    customer_name: `Customer ${customer}`,
    due_date: due,
    predicted_date: predicted,
    balance,
  });

  it('puts due-date and predicted inflows in their weeks and sorts customers by predicted total', () => {
    const f = buildForecast({
      requestDate: '2026-11-25',
      weeks: 2,
      trailingSixMonthPayments: 2_600_00,
      inflows: [inflow('a', '2026-12-01', '2026-12-08', 100_00), inflow('b', '2026-12-02', '2026-12-02', 250_50), inflow('a', '2026-12-30', '2026-12-31', 999_00)],
    });
    expect(f.time_series.due_date_cash_inflows).toEqual([350.5, 0]);
    expect(f.time_series.model_predicted_cash_inflows).toEqual([250.5, 100]);
    expect(f.time_series.trailing_6m_avg_weekly_inflows).toEqual([100, 100]);
    expect(f.customers.map((c) => c.customer)).toEqual(['b', 'a']);
    expect(f.customers[1]).toMatchObject({ total_due: 100, total_predicted: 100 });
    expect(f.table_inflows_by_customer.totals).toMatchObject({ W1: 250.5, W2: 100, total: 350.5 });
    expect(f.chart.series_meta.map((s) => [s.key, s.type])).toEqual([
      ['due_date_cash_inflows', 'bar'],
      ['model_predicted_cash_inflows', 'bar'],
      ['trailing_6m_avg_weekly_inflows', 'line'],
    ]);
    expect(f.calendar).toMatchObject({ week_start_day: 'MONDAY', num_weeks: 2 });
  });

  it('moves late predictions into the first week but leaves doubtful (90+ days past due) money out', () => {
    const f = buildForecast({
      requestDate: '2026-11-25',
      weeks: 1,
      trailingSixMonthPayments: 0,
      inflows: [inflow('a', '2026-10-01', '2026-11-10', 40_00), inflow('b', '2026-08-01', '2026-09-01', 70_00)],
    });
    expect(f.time_series.model_predicted_cash_inflows).toEqual([40]);
    expect(f.customers.map((c) => c.customer)).toEqual(['a']);
  });
});
