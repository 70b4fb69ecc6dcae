/**
 * The time still to wait for an invoice of a given age: the pay-date model's distribution of days
 * late, given that the invoice is still unpaid at that age (see README.md beside this file).
 *
 * Two views of where an invoice's days late come from, mixed by how well each explains that the
 * invoice is still open:
 * - the customer's: the pay-date model's predictive distribution (its location, and its noise: the
 *   within-customer deviations for a customer with history, the portfolio's for a new one) with the
 *   invoice's shifts;
 * - the portfolio's: every settled invoice's residual plus the invoice's shifts, as a Kaplan-Meier
 *   estimate in which the portfolio's open invoices are censored at their age (paid later than
 *   that, when not known), so a ledger of old open invoices is not read as one that pays.
 * Before it is due an invoice is the customer's; the longer it stays open past what the customer's
 * view allows, the more the portfolio's view (what happened to invoices that got this late) takes
 * over (Bayes: prior weights times the probability each gives of being still unpaid at the age).
 * The distribution past the latest payment ever seen is unknown: a quantile that falls there is
 * no date.
 */
import { addDays } from '../dates';
import type { ResidualDistribution, ResidualSamples, Scenario } from './pay-date';

export const CONDITIONAL_SETTINGS = {
  /** Prior weight of the portfolio's view against the customer's. */
  portfolioPrior: 0.1,
  /**
   * Portfolio invoices (settled or open) that must have reached an age before a date is given for
   * it: below this the conditional backtest's intervals stop covering (README.md beside this file).
   */
  minReached: 20,
  /** The window of collectible_90d. */
  horizonDays: 90,
};

/** An open invoice of the portfolio at the moment: censored at its age, in residual days (its shifts taken off). */
export interface CensoredAge {
  /** Days past due at the moment (negative before its due date). */
  age: number;
  /** Its dispute and channel shift (PayDateModel.shiftOf). */
  shift: number;
}

/** The portfolio's Kaplan-Meier distribution of residual days late, and how many invoices reached each age. */
export interface PortfolioSurvival {
  /** Residual values where a payment happened, ascending, and the probability of each. */
  values: Float64Array;
  masses: Float64Array;
  /** Probability beyond the last payment seen (open invoices older than any paid one). */
  tail: number;
  /** Settled days late with counts (ascending), and the open invoices' ages ascending. */
  settled: Pick<ResidualSamples, 'daysLate' | 'counts'>;
  openAges: Int32Array;
}

/** Builds the portfolio's survival from the model's residuals and the open invoices censored at their ages. */
export function portfolioSurvival(residuals: ResidualSamples, open: CensoredAge[]): PortfolioSurvival {
  const censored = open.map((o) => o.age - o.shift).sort((a, b) => a - b);
  const values: number[] = [];
  const masses: number[] = [];
  let atRisk = residuals.weights.reduce((s, w) => s + w, 0) + censored.length;
  let survival = 1;
  let c = 0;
  for (let i = 0; i < residuals.values.length; ) {
    const v = residuals.values[i];
    // Invoices censored before this value left the risk set without a payment (a tie stays at risk).
    while (c < censored.length && censored[c] < v) {
      c += 1;
      atRisk -= 1;
    }
    let events = 0;
    while (i < residuals.values.length && residuals.values[i] === v) events += residuals.weights[i++];
    if (atRisk <= 0) break;
    const mass = survival * (events / atRisk);
    values.push(v);
    masses.push(mass);
    survival -= mass;
    atRisk -= events;
  }
  return {
    values: Float64Array.from(values),
    masses: Float64Array.from(masses),
    tail: Math.max(0, survival),
    settled: { daysLate: residuals.daysLate, counts: residuals.counts },
    openAges: Int32Array.from(open.map((o) => o.age).sort((a, b) => a - b)),
  };
}

/** How many of the portfolio's invoices (settled, or open at the moment) reached `age` days past due unpaid. */
export function reachedAge(s: PortfolioSurvival, age: number): number {
  let n = 0;
  for (let i = s.settled.daysLate.length - 1; i >= 0 && s.settled.daysLate[i] >= age; i--) n += s.settled.counts[i];
  let lo = 0;
  let hi = s.openAges.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (s.openAges[mid] < age) lo = mid + 1;
    else hi = mid;
  }
  return n + s.openAges.length - lo;
}

export interface ConditionalPrediction {
  /** Null when too few invoices reached this age, or the median lies past every payment seen. */
  predicted: { days_late: number; date: string; interval: { low: string; high: string }; scenarios: Scenario[] } | null;
  /** Probability of payment within the next 90 days, given still unpaid today. */
  collectible_90d: number;
  /** Portfolio invoices that reached this age. */
  reached: number;
  /** The share of the probability from the portfolio's view (0: all the customer's). */
  portfolio_share: number;
  /** Why there is no date, in words. */
  reason: string | null;
}

/**
 * The distribution of days late of an invoice `age` days past due and still unpaid (age negative:
 * not yet due), `shift` its dispute and channel shift. Every date it gives is on or after
 * due + age, the moment of the prediction.
 */
export function conditionalPrediction(dist: ResidualDistribution, survival: PortfolioSurvival, invoice: { dueDate: string; shift: number }, age: number, settings = CONDITIONAL_SETTINGS): ConditionalPrediction {
  // The customer's view and the portfolio's at whole days for this shift (built once per customer,
  // or portfolio, and shift: a customer's invoices share them), those at or past the age.
  const noise = dist.noise;
  const customer = viewOf(customerViews, dist, invoice.shift, noise.values.length, (i) => dist.location + dist.noiseScale * noise.values[i] + invoice.shift, (i) => noise.weights[i]);
  const portfolio = viewOf(portfolioViews, survival, invoice.shift, survival.values.length, (i) => survival.values[i] + invoice.shift, (i) => survival.masses[i]);
  const c0 = firstAtOrAfter(customer.days, age);
  const p0 = firstAtOrAfter(portfolio.days, age);
  const customerAlive = customer.total - customer.before[c0];
  const s1 = customer.total > 0 ? customerAlive / customer.total : 0;
  // The portfolio's view keeps the unknown tail beyond its last payment.
  const s2 = survival.tail + portfolio.total - portfolio.before[p0];
  const w1 = (1 - settings.portfolioPrior) * s1;
  const w2 = settings.portfolioPrior * s2;
  const reached = reachedAge(survival, Math.max(age, 0));
  if (w1 + w2 <= 0) return { predicted: null, collectible_90d: 0, reached, portfolio_share: 1, reason: 'No invoice of this company was ever paid this late; no reliable date' };
  const p1 = w1 / (w1 + w2);
  const p2 = 1 - p1;
  // The two views merged in day order, each renormalised to what is left at the age (into scratch
  // arrays: this runs for every open invoice of a refresh).
  const room = customer.days.length - c0 + portfolio.days.length - p0;
  if (mergedDays.length < room) {
    mergedDays = new Int32Array(room * 2);
    mergedMasses = new Float64Array(room * 2);
  }
  let n = 0;
  let i = c0;
  let j = p0;
  while (i < customer.days.length || j < portfolio.days.length) {
    const takeCustomer = j >= portfolio.days.length || (i < customer.days.length && customer.days[i] <= portfolio.days[j]);
    const d = takeCustomer ? customer.days[i] : portfolio.days[j];
    const p = takeCustomer ? (p1 * customer.weights[i++]) / customerAlive : (p2 * portfolio.weights[j++]) / s2;
    if (n && mergedDays[n - 1] === d) mergedMasses[n - 1] += p;
    else {
      mergedDays[n] = d;
      mergedMasses[n++] = p;
    }
  }
  let within = 0;
  for (let k = 0; k < n; k++) if (mergedDays[k] < age + settings.horizonDays) within += mergedMasses[k];
  const collectible = round3(Math.min(1, within));
  // Each quantile is the first day whose running mass reaches it; the levels ascend, so one pass.
  const qs: (number | null)[] = QUANTILE_LEVELS.map(() => null);
  let running = 0;
  let level = 0;
  for (let k = 0; k < n && level < QUANTILE_LEVELS.length; k++) {
    running += mergedMasses[k];
    while (level < QUANTILE_LEVELS.length && running >= QUANTILE_LEVELS[level] - 1e-9) qs[level++] = mergedDays[k];
  }
  const tooFew = age > 0 && reached < settings.minReached;
  if (tooFew || qs.some((q) => q === null)) {
    const share = Math.round(collectible * 100);
    return {
      predicted: null,
      collectible_90d: collectible,
      reached,
      portfolio_share: round3(p2),
      reason: `Invoices this late were paid within 90 days ${share}% of the time; no reliable date`,
    };
  }
  const [q10, q125, q375, q50, q625, q875, q90] = qs as number[];
  const bands = new Map<number, number>();
  for (const d of [q125, q375, q625, q875]) bands.set(d, (bands.get(d) ?? 0) + 0.25);
  return {
    predicted: {
      days_late: q50,
      date: addDays(invoice.dueDate, q50),
      interval: { low: addDays(invoice.dueDate, q10), high: addDays(invoice.dueDate, q90) },
      scenarios: [...bands].map(([d, probability]) => ({ date: addDays(invoice.dueDate, d), probability })),
    },
    collectible_90d: collectible,
    reached,
    portfolio_share: round3(p2),
    reason: null,
  };
}

/** Weighted points at whole days, ascending, with the weight before each index (`before[n]` = total). */
interface View {
  days: Int32Array;
  weights: Float64Array;
  before: Float64Array;
  total: number;
}

const customerViews = new WeakMap<object, Map<number, View>>();
const portfolioViews = new WeakMap<object, Map<number, View>>();

/** The merged distribution's scratch arrays (days and their probability), grown as needed. */
let mergedDays = new Int32Array(1024);
let mergedMasses = new Float64Array(1024);

/** The quantiles a prediction reads: 10th-90th interval, quartile bands' medians and the median. */
const QUANTILE_LEVELS = [0.1, 0.125, 0.375, 0.5, 0.625, 0.875, 0.9];

/**
 * The points (value, weight) at whole days, cached per owner and shift. The values come in
 * ascending order and the day is a monotone function of each (an offset, and a non-negative scale),
 * so equal days are neighbours: summed in one pass, in the order a keyed merge would sum them.
 */
function viewOf(cache: WeakMap<object, Map<number, View>>, owner: object, shift: number, count: number, valueAt: (i: number) => number, weightAt: (i: number) => number): View {
  let byShift = cache.get(owner);
  if (!byShift) cache.set(owner, (byShift = new Map()));
  let view = byShift.get(shift);
  if (view) return view;
  const days = new Int32Array(count);
  const weights = new Float64Array(count);
  let n = 0;
  for (let i = 0; i < count; i++) {
    const d = Math.round(valueAt(i));
    if (n && days[n - 1] === d) weights[n - 1] += weightAt(i);
    else {
      days[n] = d;
      weights[n++] = weightAt(i);
    }
  }
  const before = new Float64Array(n + 1);
  for (let k = 0; k < n; k++) before[k + 1] = before[k] + weights[k];
  view = { days: days.slice(0, n), weights: weights.slice(0, n), before, total: before[n] };
  byShift.set(shift, view);
  return view;
}

/** The index of the first day at or after `age` (the length when none). */
function firstAtOrAfter(days: Int32Array, age: number): number {
  let lo = 0;
  let hi = days.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (days[mid] < age) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}
