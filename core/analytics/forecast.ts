import { daysBetween } from '../dates';
import { fromMinor } from '../money';
import { type ForecastWeek, forecastCalendar, weekIndexOf } from './calendar';

/** Open money expected from one customer on one due date, with its predicted payment date. */
export interface ExpectedInflow {
  customer_id: string;
  customer_name: string;
  due_date: string;
  predicted_date: string;
  balance: number; // minor units
}

export interface ForecastInput {
  requestDate: string;
  weeks: number;
  inflows: ExpectedInflow[];
  /** Settled payments (minor units) in the 182 days up to and including the request date. */
  trailingSixMonthPayments: number;
}

export const SERIES_META = [
  { key: 'due_date_cash_inflows', label: 'Due by invoice due date', type: 'bar', color: '#94a3b8', color_background: '#e2e8f0' },
  { key: 'model_predicted_cash_inflows', label: 'Predicted by payment model', type: 'bar', color: '#2563eb', color_background: '#dbeafe' },
  { key: 'trailing_6m_avg_weekly_inflows', label: 'Trailing 6-month weekly average', type: 'line', color: '#f59e0b' },
] as const;

/** Money older than this many days past due at the request date is treated as doubtful, not as W1 cash. */
export const DOUBTFUL_AFTER_DAYS = 90;

/**
 * The weekly forecast. A predicted date before the window moves into the first week (the money is
 * expected as soon as possible), unless the invoice is more than 90 days past due: then it is left
 * out of the model series as doubtful. Due-date inflows count only due dates inside the window.
 */
export function buildForecast(input: ForecastInput) {
  const calendar = forecastCalendar(input.requestDate, input.weeks);
  const zeros = () => calendar.map(() => 0);
  const due = zeros();
  const predicted = zeros();
  const byCustomer = new Map<string, { customer: string; customer_name: string; due: number[]; predicted: number[] }>();
  const customerRow = (id: string, name: string) => {
    let row = byCustomer.get(id);
    if (!row) byCustomer.set(id, (row = { customer: id, customer_name: name, due: zeros(), predicted: zeros() }));
    return row;
  };
  // Inflows share a few thousand dates: each date's week is worked out once.
  const dueWeeks = new Map<string, number>();
  const predictedWeeks = new Map<string, number>();
  for (const inflow of input.inflows) {
    let dueWeek = dueWeeks.get(inflow.due_date);
    if (dueWeek === undefined) dueWeeks.set(inflow.due_date, (dueWeek = weekIndexOf(calendar, inflow.due_date)));
    if (dueWeek >= 0) {
      due[dueWeek] += inflow.balance;
      customerRow(inflow.customer_id, inflow.customer_name).due[dueWeek] += inflow.balance;
    }
    const predictedKey = `${inflow.predicted_date} ${inflow.due_date}`;
    let predictedWeek = predictedWeeks.get(predictedKey);
    if (predictedWeek === undefined) predictedWeeks.set(predictedKey, (predictedWeek = predictedWeekOf(calendar, inflow, input.requestDate)));
    if (predictedWeek >= 0) {
      predicted[predictedWeek] += inflow.balance;
      customerRow(inflow.customer_id, inflow.customer_name).predicted[predictedWeek] += inflow.balance;
    }
  }
  const trailingAverage = Math.round(input.trailingSixMonthPayments / 26);
  const customers = [...byCustomer.values()]
    .map((row) => ({
      customer: row.customer,
      customer_name: row.customer_name,
      total_due: fromMinor(sum(row.due)),
      total_predicted: fromMinor(sum(row.predicted)),
      weeks: calendar.map((week, i) => ({ code: week.code, due: fromMinor(row.due[i]), predicted: fromMinor(row.predicted[i]) })),
    }))
    .filter((row) => row.total_due !== 0 || row.total_predicted !== 0)
    .sort((a, b) => b.total_predicted - a.total_predicted || b.total_due - a.total_due || a.customer_name.localeCompare(b.customer_name));

  return {
    request_date: input.requestDate,
    sidebar_label: 'Predicted inflows by customer',
    chart: {
      title: `${calendar.length}-week cash flow forecast`,
      x_axis_label: 'Week starting',
      y_axis_label: 'Cash inflows',
      series_meta: SERIES_META.map((s) => ({ ...s })),
    },
    calendar: { week_start_day: 'MONDAY' as const, num_weeks: calendar.length, weeks: calendar },
    time_series: {
      x: calendar.map((w) => w.label),
      due_date_cash_inflows: due.map(fromMinor),
      model_predicted_cash_inflows: predicted.map(fromMinor),
      trailing_6m_avg_weekly_inflows: calendar.map(() => fromMinor(trailingAverage)),
    },
    customers,
    table_inflows_by_customer: inflowTable(calendar, customers),
  };
}

function predictedWeekOf(calendar: ForecastWeek[], inflow: ExpectedInflow, requestDate: string): number {
  if (calendar.length === 0) return -1;
  if (inflow.predicted_date < calendar[0].start_date) {
    return daysBetween(inflow.due_date, requestDate) > DOUBTFUL_AFTER_DAYS ? -1 : 0;
  }
  return weekIndexOf(calendar, inflow.predicted_date);
}

function inflowTable(calendar: ForecastWeek[], customers: Array<{ customer: string; customer_name: string; total_predicted: number; weeks: Array<{ predicted: number }> }>) {
  const predictedCustomers = customers.filter((c) => c.total_predicted !== 0);
  // One pass over the customers, adding in their order (the same sums as week by week).
  const weekSums = calendar.map(() => 0);
  for (const c of predictedCustomers) for (let i = 0; i < weekSums.length; i++) weekSums[i] += c.weeks[i].predicted;
  const weekTotal = (i: number) => round2(weekSums[i]);
  return {
    columns: [{ key: 'customer_name', label: 'Customer' }, ...calendar.map((w) => ({ key: w.code, label: w.label })), { key: 'total', label: 'Total' }],
    rows: predictedCustomers.map((c) => {
      const row: Record<string, string | number> = { customer: c.customer, customer_name: c.customer_name };
      calendar.forEach((w, i) => (row[w.code] = c.weeks[i].predicted));
      row.total = c.total_predicted;
      return row;
    }),
    totals: {
      customer_name: 'Total',
      ...Object.fromEntries(calendar.map((w, i) => [w.code, weekTotal(i)])),
      total: round2(predictedCustomers.reduce((s, c) => s + c.total_predicted, 0)),
    },
  };
}

function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}
