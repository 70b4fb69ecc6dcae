/**
 * The weekly cash-in forecast, as of any day, from what was known that day; and its backtest:
 * replay the ledger week by week, forecast each of the next 8 weeks, compare with what came in
 * (README.md beside this file, "The cash-in forecast, backtested").
 *
 * The model's forecast of a week is the sum of three parts:
 * - each open invoice's balance times the chance it is paid that week, given it is still unpaid
 *   today: the portfolio's distribution of days late (Kaplan-Meier over the invoices settled so
 *   far, the open ones censored at their age), read from the invoice's age;
 * - a promise known today: its amount in its week, weighted by the promise-kept rate known today;
 * - invoices not yet issued: what, in the last 8 weeks, came in from invoices issued after the
 *   moment a forecast of the same horizon would have been made.
 * The forecast shown is the mean of the model's and the run rate's (the last 4 weeks' average):
 * chosen by the worst of the ledgers it was replayed on (README.md), it is the only form tried that
 * beats both baselines at every horizon on each.
 */
import { addDays, daysBetween, toEpochDay } from '../dates';

export interface CashInvoice {
  id: string;
  customerId: string;
  invoiceDate: string;
  dueDate: string;
  /** Cents. */
  amount: number;
}

export interface CashPayment {
  invoiceId: string;
  date: string;
  /** Cents, positive. */
  amount: number;
}

/**
 * A payment the customer said is coming (a promise, or money scheduled or already sent): its
 * amount in its week, weighted by the promise-kept rate. About one invoice, or (invoiceId null)
 * about every open invoice of the customer.
 */
export interface CashPromise {
  customerId: string;
  invoiceId: string | null;
  /** The day it was made (known from then). */
  madeOn: string;
  /** The day the money is expected. */
  date: string;
  /** Cents, or null: the balance (of the invoice, or of the customer's open invoices). */
  amount: number | null;
  /** Days past `date` it still stands (money already sent, still in transit); 0 for a promise. */
  standsDays: number;
}

export interface CashHistory {
  invoices: CashInvoice[];
  payments: CashPayment[];
  promises: CashPromise[];
}

export const HORIZONS = 8;
/** Weeks of history before the first forecast, and weeks the new-business part averages over. */
const WARM_UP_WEEKS = 8;
const NEW_BUSINESS_WEEKS = 8;
const RUN_RATE_WEEKS = 4;
/** The model's share of the forecast shown; the run rate has the rest. */
const MODEL_SHARE = 0.5;
/** A promise counts as kept when paid by its date plus these days. */
const PROMISE_GRACE = 3;
/** The kept rate before 5 promises were judged. */
const PROMISE_PRIOR = { kept: 1, judged: 2 };

/** The ledger indexed once for the weeks replayed. */
interface Ledger {
  /** By invoice date ascending. */
  invoices: CashInvoice[];
  /** Per invoice (same order): its due date as an epoch day, the day it was paid in full (undefined: not) and its days late then. */
  dueDays: Int32Array;
  settledOn: Array<string | undefined>;
  daysLate: Int32Array;
  byId: Map<string, CashInvoice>;
  /** Payments by date ascending. */
  payments: CashPayment[];
  /** Each invoice's payments, of the invoices paid in more than one. */
  instalments: Map<string, CashPayment[]>;
  /** Payment dates of each invoice and of each customer, ascending (for judging promises). */
  paidOn: Map<string, string[]>;
}

function ledgerOf(history: CashHistory): Ledger {
  const payments = [...history.payments].sort((a, b) => cmp(a.date, b.date));
  const invoices = [...history.invoices].sort((a, b) => cmp(a.invoiceDate, b.invoiceDate));
  const byId = new Map(invoices.map((i) => [i.id, i]));
  const paid = new Map<string, number>();
  const settled = new Map<string, string>();
  const paidOn = new Map<string, string[]>();
  const note = (key: string, date: string) => {
    const dates = paidOn.get(key);
    if (dates) dates.push(date);
    else paidOn.set(key, [date]);
  };
  for (const p of payments) {
    const total = (paid.get(p.invoiceId) ?? 0) + p.amount;
    paid.set(p.invoiceId, total);
    const invoice = byId.get(p.invoiceId);
    if (invoice && !settled.has(p.invoiceId) && total >= invoice.amount) settled.set(p.invoiceId, p.date);
    note(`i:${p.invoiceId}`, p.date);
    if (invoice) note(`c:${invoice.customerId}`, p.date);
  }
  const instalments = new Map<string, CashPayment[]>();
  for (const p of payments) {
    if (settled.get(p.invoiceId) === p.date && paidOn.get(`i:${p.invoiceId}`)!.length === 1) continue;
    const list = instalments.get(p.invoiceId);
    if (list) list.push(p);
    else instalments.set(p.invoiceId, [p]);
  }
  return {
    invoices,
    dueDays: Int32Array.from(invoices, (i) => toEpochDay(i.dueDate)),
    settledOn: invoices.map((i) => settled.get(i.id)),
    daysLate: Int32Array.from(invoices, (i) => (settled.has(i.id) ? daysBetween(i.dueDate, settled.get(i.id)!) : 0)),
    byId,
    payments,
    instalments,
    paidOn,
  };
}

/** What was known on `day` (strictly before it): open balances and their ages, the lateness model. */
interface Moment {
  day: string;
  open: Array<{ invoice: CashInvoice; balance: number; age: number }>;
  /** Survival of days late: P(days late >= x), x ascending steps. */
  survival: { days: Int32Array; surviving: Float64Array };
}

function momentOf(ledger: Ledger, day: string): Moment {
  const today = toEpochDay(day);
  const open: Moment['open'] = [];
  const lateness: number[] = [];
  const censored: number[] = [];
  for (let i = 0; i < ledger.invoices.length; i++) {
    const invoice = ledger.invoices[i];
    if (invoice.invoiceDate >= day) break;
    const settledOn = ledger.settledOn[i];
    if (settledOn !== undefined && settledOn < day) {
      lateness.push(ledger.daysLate[i]);
      continue;
    }
    const age = today - ledger.dueDays[i];
    censored.push(age);
    let balance = invoice.amount;
    for (const p of ledger.instalments.get(invoice.id) ?? []) if (p.date < day) balance -= p.amount;
    if (balance > 0) open.push({ invoice, balance, age });
  }
  return { day, open, survival: kaplanMeier(lateness, censored) };
}

/** P(days late >= x) from settled invoices' days late and open ones censored at their ages. */
export function kaplanMeier(events: number[], censoredAt: number[]): { days: Int32Array; surviving: Float64Array } {
  // Typed arrays sort numerically, without a comparator call per pair (a million invoices).
  const e = Float64Array.from(events).sort();
  const c = Float64Array.from(censoredAt).sort();
  let atRisk = e.length + c.length;
  let survival = 1;
  let ci = 0;
  const days: number[] = [];
  const surviving: number[] = [];
  for (let i = 0; i < e.length; ) {
    const v = e[i];
    while (ci < c.length && c[ci] < v) {
      ci += 1;
      atRisk -= 1;
    }
    let n = 0;
    while (i < e.length && e[i] === v) {
      n += 1;
      i += 1;
    }
    // S just before v is `survival`; after the payments at v it drops.
    days.push(v);
    surviving.push(survival);
    if (atRisk > 0) survival *= 1 - n / atRisk;
    atRisk -= n;
  }
  days.push(Number.MAX_SAFE_INTEGER);
  surviving.push(survival);
  return { days: Int32Array.from(days.map((d) => Math.min(d, 2 ** 31 - 1))), surviving: Float64Array.from(surviving) };
}

/** P(days late >= x). */
function survivalAt(s: Moment['survival'], x: number): number {
  if (s.days.length === 0) return 1;
  let lo = 0;
  let hi = s.days.length - 1;
  // The first step at or after x: its value is the probability of paying at x or later.
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (s.days[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return s.surviving[lo];
}

/** The chance an invoice `age` days past due today (still unpaid) is paid in each of the next weeks. */
export function weeklyChances(s: Moment['survival'], age: number, weeks = HORIZONS): number[] {
  const now = survivalAt(s, age);
  if (now <= 0) return new Array<number>(weeks).fill(0);
  return Array.from({ length: weeks }, (_, k) => Math.max(0, survivalAt(s, age + 7 * k) - survivalAt(s, age + 7 * (k + 1))) / now);
}

function weekIndex(day: string, moment: string): number {
  return Math.floor(daysBetween(moment, day) / 7);
}

/** The index of the first of the ascending `dates` on or after `day`. */
function firstOnOrAfter<T>(items: T[], day: string, dateOf: (item: T) => string): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (dateOf(items[mid]) < day) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function cashIn(ledger: Ledger, from: string, to: string, issuedOnOrAfter?: string): number {
  let sum = 0;
  for (let i = firstOnOrAfter(ledger.payments, from, (p) => p.date); i < ledger.payments.length; i++) {
    const p = ledger.payments[i];
    if (p.date >= to) break;
    if (issuedOnOrAfter !== undefined && (ledger.byId.get(p.invoiceId)?.invoiceDate ?? '') < issuedOnOrAfter) continue;
    sum += p.amount;
  }
  return sum;
}

/**
 * The promise-kept rate known on `day`: promises whose date plus grace (and the days it stood) has
 * passed, kept when the invoice (the customer, for a promise about every invoice) paid by then.
 */
function promiseKeptRate(ledger: Ledger, promises: CashPromise[], day: string): number {
  let kept = PROMISE_PRIOR.kept;
  let judged = PROMISE_PRIOR.judged;
  for (const p of promises) {
    const by = addDays(p.date, p.standsDays + PROMISE_GRACE);
    if (by >= day) continue;
    judged += 1;
    const dates = ledger.paidOn.get(p.invoiceId === null ? `c:${p.customerId}` : `i:${p.invoiceId}`) ?? [];
    const first = firstOnOrAfter(dates, p.madeOn, (d) => d);
    if (first < dates.length && dates[first] <= by) kept += 1;
  }
  return kept / judged;
}

/**
 * The payments said to be coming that still stand on `day`, the latest made first: those made
 * before the day whose date (plus the days money in transit stands) has not passed.
 */
function standingPromises(promises: CashPromise[], day: string): { byInvoice: Map<string, CashPromise>; byCustomer: Map<string, CashPromise> } {
  const byInvoice = new Map<string, CashPromise>();
  const byCustomer = new Map<string, CashPromise>();
  for (const p of promises) {
    if (p.madeOn >= day || addDays(p.date, p.standsDays) < day) continue;
    const map = p.invoiceId === null ? byCustomer : byInvoice;
    const key = p.invoiceId ?? p.customerId;
    const held = map.get(key);
    if (!held || held.madeOn <= p.madeOn) map.set(key, p);
  }
  return { byInvoice, byCustomer };
}

export interface WeeklyForecast {
  /** The forecast shown: the model's and the run rate's mean. */
  model: number[];
  dueDate: number[];
  runRate: number[];
}

/** The forecast of the next 8 weeks' cash-in (cents) made on `day`, with both baselines. */
export function forecastAsOf(history: CashHistory, day: string, ledger = ledgerOf(history)): WeeklyForecast {
  const m = momentOf(ledger, day);
  const model = new Array<number>(HORIZONS).fill(0);
  const dueDate = new Array<number>(HORIZONS).fill(0);
  const standing = standingPromises(history.promises, day);
  const keptRate = standing.byInvoice.size || standing.byCustomer.size ? promiseKeptRate(ledger, history.promises, day) : 0;
  /** What is left of a customer-wide promise's amount, given to its invoices by due date. */
  const left = new Map<CashPromise, number>();
  const open = standing.byCustomer.size ? [...m.open].sort((a, b) => cmp(a.invoice.dueDate, b.invoice.dueDate)) : m.open;
  for (const { invoice, balance, age } of open) {
    const chances = weeklyChances(m.survival, age);
    // As the product reads promises: the latest said about the invoice or about the customer as a whole.
    const own = standing.byInvoice.get(invoice.id);
    const customers = standing.byCustomer.get(invoice.customerId);
    const promise = own && (!customers || own.madeOn >= customers.madeOn) ? own : customers;
    const promiseWeek = promise ? Math.max(0, weekIndex(promise.date, day)) : HORIZONS;
    let covered = 0;
    if (promise && promiseWeek < HORIZONS) {
      if (promise.amount === null) covered = balance;
      else if (promise.invoiceId !== null) covered = Math.min(balance, promise.amount);
      else {
        covered = Math.min(balance, left.get(promise) ?? promise.amount);
        left.set(promise, (left.get(promise) ?? promise.amount) - covered);
      }
    }
    // The promised part in its week at the kept rate; the rest of the balance as the history says.
    const onPromise = covered * keptRate;
    for (let k = 0; k < HORIZONS; k++) model[k] += (balance - onPromise) * chances[k];
    if (onPromise) model[promiseWeek] += onPromise;
    const dueWeek = Math.max(0, Math.floor(-age / 7));
    if (dueWeek < HORIZONS) dueDate[dueWeek] += balance;
  }
  for (let k = 0; k < HORIZONS; k++) {
    // Cash from invoices a forecast k weeks ahead could not see, in the last weeks that have ended.
    let unseen = 0;
    for (let j = 1; j <= NEW_BUSINESS_WEEKS; j++) {
      const week = addDays(day, -7 * j);
      unseen += cashIn(ledger, week, addDays(week, 7), addDays(week, -7 * k));
    }
    model[k] += unseen / NEW_BUSINESS_WEEKS;
  }
  const runRate = cashIn(ledger, addDays(day, -7 * RUN_RATE_WEEKS), day) / RUN_RATE_WEEKS;
  return { model: model.map((v) => MODEL_SHARE * v + (1 - MODEL_SHARE) * runRate), dueDate, runRate: new Array<number>(HORIZONS).fill(runRate) };
}

export interface HorizonScore {
  horizon_weeks: number;
  weeks: number;
  /** Over weeks with cash in; null when there were none. */
  mape: number | null;
  wape: number | null;
  bias: number | null;
  baselines: { due_date: { wape: number | null }; run_rate: { wape: number | null } };
}

/**
 * The days forecasts are replayed from: every 7 days from 8 weeks after the first invoice while a
 * week of cash after it is known; with `lastWeeks`, only the latest that many.
 */
export function forecastOrigins(history: CashHistory, lastWeeks = Number.POSITIVE_INFINITY): string[] {
  if (!history.invoices.length) return [];
  const first = history.invoices.reduce((min, i) => (i.invoiceDate < min ? i.invoiceDate : min), '9999-12-31');
  const last = lastDay(history);
  const days: string[] = [];
  for (let day = addDays(first, 7 * WARM_UP_WEEKS); addDays(day, 7) <= last; day = addDays(day, 7)) days.push(day);
  return days.slice(Math.max(0, days.length - lastWeeks));
}

function lastDay(history: CashHistory): string {
  let max = '0000-01-01';
  for (const p of history.payments) if (p.date > max) max = p.date;
  for (const i of history.invoices) if (i.invoiceDate > max) max = i.invoiceDate;
  return max;
}

/**
 * Forecasts made on each of the origins (forecastOrigins), each week ahead scored against the cash
 * that came in, up to the ledger's last day.
 */
export function forecastBacktest(history: CashHistory, options: { lastWeeks?: number } = {}): HorizonScore[] {
  const ledger = ledgerOf(history);
  const last = lastDay(history);
  const rows = Array.from({ length: HORIZONS }, () => ({ forecast: [] as number[], due: [] as number[], run: [] as number[], actual: [] as number[] }));
  for (const day of forecastOrigins(history, options.lastWeeks)) {
    const f = forecastAsOf(history, day, ledger);
    for (let k = 0; k < HORIZONS; k++) {
      const from = addDays(day, 7 * k);
      if (addDays(from, 7) > last) break;
      const row = rows[k];
      row.forecast.push(f.model[k]);
      row.due.push(f.dueDate[k]);
      row.run.push(f.runRate[k]);
      row.actual.push(cashIn(ledger, from, addDays(from, 7)));
    }
  }
  return rows.map((r, k) => {
    const actual = r.actual.reduce((s, v) => s + v, 0);
    const wape = (f: number[]) => (actual > 0 ? round3(f.reduce((s, v, i) => s + Math.abs(v - r.actual[i]), 0) / actual) : null);
    const withCash = r.actual.map((a, i) => [a, r.forecast[i]] as const).filter(([a]) => a > 0);
    return {
      horizon_weeks: k + 1,
      weeks: r.actual.length,
      mape: withCash.length ? round3(withCash.reduce((s, [a, f]) => s + Math.abs(f - a) / a, 0) / withCash.length) : null,
      wape: wape(r.forecast),
      bias: actual > 0 ? round3(r.forecast.reduce((s, v, i) => s + v - r.actual[i], 0) / actual) : null,
      baselines: { due_date: { wape: wape(r.due) }, run_rate: { wape: wape(r.run) } },
    };
  });
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}
