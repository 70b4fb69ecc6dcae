import { addDays, daysBetween } from '../dates';
import { fromMinor } from '../money';
import { type ForecastWeek, forecastCalendar, weekIndexOf } from './calendar';

/** Open money due from one customer on one due date (the due-date series). */
export interface DueInflow {
  customer_id: string;
  customer_name: string;
  due_date: string;
  balance: number; // minor units
}

/**
 * Expected money from one customer: on a date (an invoice's scenario at its probability, a promise
 * at the promise's), or, with `date` null, spread evenly over the next 90 days (invoices too late
 * to date, by their collectible_90d). Amounts in minor units; `sq` and `sq2` are the sums of
 * balance² x p and balance² x p² that give the week's variance.
 */
export interface ExpectedInflow {
  customer_id: string;
  customer_name: string;
  date: string | null;
  amount: number;
  sq: number;
  sq2: number;
}

/** Money a customer promised for a date (minor units): a promise that still stands. */
export interface PromisedInflow {
  customer_id: string;
  date: string;
  amount: number;
}

export interface ForecastInput {
  requestDate: string;
  weeks: number;
  due: DueInflow[];
  expected: ExpectedInflow[];
  /** Standing promises; a date before the window (in its grace days) counts in the first week. */
  promised?: PromisedInflow[];
  /** Settled payments (minor units) in the 182 days up to and including the request date. */
  trailingSixMonthPayments: number;
  /** The page of customers returned (the totals are over all of them). */
  customerOffset?: number;
  customerLimit?: number;
}

export const SERIES_META = [
  { key: 'due_date_cash_inflows', label: 'Due by invoice due date', type: 'bar', color: '#94a3b8', color_background: '#e2e8f0' },
  { key: 'model_predicted_cash_inflows', label: 'Predicted by payment model', type: 'bar', color: '#2563eb', color_background: '#dbeafe' },
  { key: 'trailing_6m_avg_weekly_inflows', label: 'Trailing 6-month weekly average', type: 'line', color: '#f59e0b' },
] as const;

/** Days over which an undated invoice's collectible_90d is spread. */
export const UNDATED_SPREAD_DAYS = 90;
/** The z of a two-sided 80% range (the weekly low and high, a normal approximation). */
const Z80 = 1.2816;
/** Customers named per week ("which customers make each week"). */
export const WEEK_CUSTOMERS = 5;
export const DEFAULT_CUSTOMER_LIMIT = 100;
export const MAX_CUSTOMER_LIMIT = 1_000;

/**
 * The weekly forecast. Each open invoice contributes its expected amount per week: its balance
 * times the probability of each of its predicted dates (the conditional pay-date distribution; a
 * promise at its probability), or, when too late to date, its collectible_90d spread over the next
 * 90 days. A date before the window (a prediction not yet refreshed today) counts in the first week;
 * after it, outside the window. So the window's total is the sum of the invoices' expected amounts
 * in it. The weekly low/high is an 80% range: each invoice pays in a week or not (variance
 * balance² x p(1-p) summed), normal approximation, never below 0.
 */
export function buildForecast(input: ForecastInput) {
  const calendar = forecastCalendar(input.requestDate, input.weeks);
  const zeros = () => calendar.map(() => 0);
  const due = zeros();
  const predicted = zeros();
  const variance = zeros();
  const byCustomer = new Map<string, { customer: string; customer_name: string; due: number[]; predicted: number[] }>();
  const customerRow = (id: string, name: string) => {
    let row = byCustomer.get(id);
    if (!row) byCustomer.set(id, (row = { customer: id, customer_name: name, due: zeros(), predicted: zeros() }));
    return row;
  };
  // Inflows share a few thousand dates: each date's week is worked out once.
  const weeksOf = new Map<string, number>();
  const weekOf = (date: string) => {
    let w = weeksOf.get(date);
    if (w === undefined) weeksOf.set(date, (w = weekIndexOf(calendar, date)));
    return w;
  };
  for (const inflow of input.due) {
    const w = weekOf(inflow.due_date);
    if (w < 0) continue;
    due[w] += inflow.balance;
    customerRow(inflow.customer_id, inflow.customer_name).due[w] += inflow.balance;
  }
  const undatedShares = undatedWeekShares(calendar, input.requestDate);
  const add = (inflow: ExpectedInflow, w: number, share: number) => {
    predicted[w] += inflow.amount * share;
    variance[w] += share * inflow.sq - share * share * inflow.sq2;
    customerRow(inflow.customer_id, inflow.customer_name).predicted[w] += inflow.amount * share;
  };
  for (const inflow of input.expected) {
    if (inflow.date === null) {
      undatedShares.forEach((share, w) => share > 0 && add(inflow, w, share));
      continue;
    }
    const w = calendar.length && inflow.date < calendar[0].start_date ? 0 : weekOf(inflow.date);
    if (w >= 0) add(inflow, w, 1);
  }
  const promised = zeros();
  for (const p of input.promised ?? []) {
    const w = calendar.length && p.date < calendar[0].start_date ? 0 : weekOf(p.date);
    if (w >= 0) promised[w] += p.amount;
  }
  const trailingAverage = Math.round(input.trailingSixMonthPayments / 26);
  // Figures in whole minor units; the week-by-week objects are made for the page of customers only
  // (tens of thousands of customers at a million invoices).
  const all = [...byCustomer.values()]
    .map((row) => ({ ...row, due: row.due.map(Math.round), predicted: row.predicted.map(Math.round), totalDue: Math.round(sum(row.due)), totalPredicted: Math.round(sum(row.predicted)) }))
    .filter((row) => row.totalDue !== 0 || row.totalPredicted !== 0)
    .sort((a, b) => b.totalPredicted - a.totalPredicted || b.totalDue - a.totalDue || a.customer_name.localeCompare(b.customer_name));
  const offset = Math.max(0, input.customerOffset ?? 0);
  const limit = Math.min(MAX_CUSTOMER_LIMIT, Math.max(1, input.customerLimit ?? DEFAULT_CUSTOMER_LIMIT));
  const customers = all.slice(offset, offset + limit).map((row) => ({
    customer: row.customer,
    customer_name: row.customer_name,
    total_due: fromMinor(row.totalDue),
    total_predicted: fromMinor(row.totalPredicted),
    weeks: calendar.map((week, i) => ({ code: week.code, due: fromMinor(row.due[i]), predicted: fromMinor(row.predicted[i]) })),
  }));
  const weekCustomers = calendar.map((week, i) => {
    const top = topPaying(all, i, WEEK_CUSTOMERS);
    return {
      code: week.code,
      customer_count: top.count,
      customers: top.rows.map((c) => ({ customer: c.customer, customer_name: c.customer_name, predicted: fromMinor(c.predicted[i]) })),
    };
  });
  const range = (sign: 1 | -1) => predicted.map((p, i) => fromMinor(Math.max(0, Math.round(p + sign * Z80 * Math.sqrt(Math.max(0, variance[i]))))));

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
      model_predicted_cash_inflows: predicted.map((p) => fromMinor(Math.round(p))),
      trailing_6m_avg_weekly_inflows: calendar.map(() => fromMinor(trailingAverage)),
      promised_cash_inflows: promised.map(fromMinor),
      model_predicted_low: range(-1),
      model_predicted_high: range(1),
    },
    model_predicted_total: fromMinor(Math.round(sum(predicted))),
    week_customers: weekCustomers,
    customers_total: all.length,
    customer_offset: offset,
    customer_limit: limit,
    customers,
    table_inflows_by_customer: inflowTable(calendar, customers, predicted),
  };
}

/**
 * The customers paying in week `w` (predicted above zero) and the `n` paying most, in the order of
 * `rows` among equals.
 */
function topPaying<T extends { predicted: number[] }>(rows: T[], w: number, n: number): { count: number; rows: T[] } {
  const top: T[] = [];
  let count = 0;
  for (const row of rows) {
    if (row.predicted[w] <= 0) continue;
    count += 1;
    if (top.length === n && row.predicted[w] <= top[n - 1].predicted[w]) continue;
    let at = top.length;
    while (at > 0 && row.predicted[w] > top[at - 1].predicted[w]) at -= 1;
    top.splice(at, 0, row);
    if (top.length > n) top.pop();
  }
  return { count, rows: top };
}

/** The share of an undated invoice's collectible amount falling in each week: days of the week in the next 90, over 90. */
function undatedWeekShares(calendar: ForecastWeek[], requestDate: string): number[] {
  const end = addDays(requestDate, UNDATED_SPREAD_DAYS - 1);
  return calendar.map((w) => {
    const from = w.start_date < requestDate ? requestDate : w.start_date;
    const to = w.end_date > end ? end : w.end_date;
    return to < from ? 0 : (daysBetween(from, to) + 1) / UNDATED_SPREAD_DAYS;
  });
}

/** The page of customers as table rows; the totals are the whole window's (every customer, not the page). */
function inflowTable(calendar: ForecastWeek[], customers: Array<{ customer: string; customer_name: string; total_predicted: number; weeks: Array<{ predicted: number }> }>, weekSums: number[]) {
  const predictedCustomers = customers.filter((c) => c.total_predicted !== 0);
  const weekTotal = (i: number) => fromMinor(Math.round(weekSums[i]));
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
      total: fromMinor(Math.round(sum(weekSums))),
    },
  };
}

function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}
