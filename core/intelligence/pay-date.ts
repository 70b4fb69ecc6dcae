/**
 * The pay-date model: how many days after its due date an invoice will be settled, as a predictive
 * distribution built from the company's own settled invoices.
 *
 * - Each settled invoice is an observation of days late (settled date minus due date, negative
 *   when early). It becomes known on its settled date: the model only learns what was settled
 *   strictly before the moment it predicts for (the caller feeds observations in that order).
 * - Portfolio shifts: disputes move lateness a lot, and so does the channel (how the bill was sent,
 *   a fact of the invoice known when it is issued; without one, how the customer paid last). The
 *   model learns each shift and removes it from each observation (its residual), so a customer's
 *   disputed and undisputed, paper and electronic invoices inform one baseline.
 * - A customer's effect is the recency-weighted mean of its residuals against the portfolio's mean,
 *   shrunk toward 0 by k pseudo-observations (empirical Bayes): k is the ratio of the variance
 *   within customers (days late around the customer's own mean, per dispute flag and channel) to
 *   the variance between them (the rest of the portfolio's), so a new customer gets the portfolio
 *   and a customer with history mostly its own. Both are kept as running sums: learning or
 *   forgetting a customer never walks the other customers.
 * - A customer's observations are kept packed in an Int32Array (three numbers each), not as
 *   objects: at a million settled invoices, objects made the model about 110 MB of live heap, and V8
 *   lets the heap grow to several times its live size between full collections.
 * - An invoice of the customer still open past its due date at the prediction moment is known to
 *   be at least that many days late: it joins the customer's observations at that lower bound (a
 *   customer behind on its bills is predicted late before any of them is settled).
 * - The predictive distribution is the customer's location plus the noise of an invoice around
 *   its customer's mean: the portfolio's residuals, centred and narrowed to the within-customer
 *   spread. The point prediction is its median; the 80% interval its 10th-90th percentile;
 *   scenarios its quartile bands.
 */
import { addDays, daysBetween, toEpochDay } from '../dates';

export interface PayDateObservation {
  customerId: string;
  dueDate: string;
  settledDate: string;
  disputed: boolean;
  /** How it was paid (the last payment's method), when known. */
  method?: string | null;
  /** How the bill was sent (paper, electronic), when the source says. */
  billChannel?: string | null;
}

export interface PayDateQuery {
  customerId: string;
  dueDate: string;
  disputed: boolean;
  /** How the bill was sent, when known: a fact of the invoice from the day it is issued. */
  billChannel?: string | null;
  /** The prediction moment (YYYY-MM-DD): recency is measured from it. */
  asOf: string;
  /** The customer's invoices open and past due at that moment. */
  overdue?: OverdueInvoice[];
}

/** A customer's invoice still open and past its due date at the prediction moment. */
export interface OverdueInvoice {
  dueDate: string;
  disputed: boolean;
  billChannel?: string | null;
}

export interface Scenario {
  date: string;
  probability: number;
}

export interface PayDatePrediction {
  predicted_date: string;
  days_late: number;
  interval: { low: string; high: string };
  scenarios: Scenario[];
  /** How many of the customer's own settled invoices informed it, and their weight against the prior. */
  customer_observations: number;
  customer_weight_share: number;
  dispute_shift_days: number;
  /** The shift of the invoice's channel (0 when none is known or learnt). */
  channel_shift_days: number;
  portfolio_observations: number;
}

export const MODEL_SETTINGS = {
  /** Shrinkage, in observations' worth, until the portfolio can measure it (minSide repeat settlements of a customer). */
  priorWeight: 1,
  /** A customer's observation loses half its weight after this many days. */
  halfLifeDays: 365,
  /** Observations a shift (dispute, channel) needs on each side before it is trusted; also the repeat settlements k needs. */
  minSide: 10,
  /** Days-late values are clamped to this range so one odd record cannot dominate. */
  clampDays: 365,
};

interface Sample {
  value: number;
  weight: number;
}

type Quantiles = Record<'q10' | 'q125' | 'q375' | 'q50' | 'q625' | 'q875' | 'q90', number>;

/** A customer's predictive distribution at one moment, before the shifts of the invoice itself. */
export interface ResidualDistribution {
  quantiles: Quantiles;
  customerObservations: number;
  customerWeightShare: number;
  disputeShift: number;
  /** The learnt shift per channel key (see channelKey). */
  channelShifts: ReadonlyMap<string, number>;
  /** The channel of an invoice that has no bill channel: how the customer paid last (null without history). */
  fallbackChannel: string | null;
  portfolioObservations: number;
  /** The customer's location (days late without the invoice's shifts). */
  location: number;
  /** The portfolio's residuals (days late without the shifts), sorted, with their counts, and their mean. */
  residuals: ResidualSamples;
  /** The noise of an invoice around the location (ascending, weighted): its days late are location + noiseScale x noise + its shifts. */
  noise: WeightedValues;
  noiseScale: number;
}

/** Values in ascending order with their weights (parallel arrays). */
export interface WeightedValues {
  values: Float64Array;
  weights: Float64Array;
}

/** Residual values in ascending order with their weights (parallel arrays). */
export interface ResidualSamples {
  values: Float64Array;
  weights: Float64Array;
  mean: number;
  /** Settled days late (clamped, without the shifts) in ascending order with their counts: how many reached an age. */
  daysLate: Int32Array;
  counts: Float64Array;
}

const QUANTILES = { q10: 0.1, q125: 0.125, q375: 0.375, q50: 0.5, q625: 0.625, q875: 0.875, q90: 0.9 } as const;

/**
 * The prefix of a bill channel's key. Only bill channels get a shift: how a settled invoice was paid
 * is known only once it is paid, and the customer's last method stands in for it at the prediction;
 * on the demo ledger that shift cost 3 points of MAE against the customer mean (README.md).
 */
const BILL = 'bill:';

/**
 * The channel an invoice is grouped by: how its bill was sent when known, else how it was paid (a
 * settled invoice; for a prediction, how the customer paid last). Two namespaces, so the two kinds
 * never share a shift.
 */
export function channelKey(billChannel: string | null | undefined, method: string | null | undefined): string | null {
  if (billChannel) return `${BILL}${billChannel}`;
  return method ? `paid:${method}` : null;
}

interface Observation {
  daysLate: number;
  disputed: boolean;
  channel: string | null;
  settledDay: number;
}

/** Numbers per packed observation: days late, flags (disputed, channel index), settled day. */
const PACKED = 3;

interface CustomerHistory {
  /** The observations, packed (see PACKED), `count` of them used. */
  packed: Int32Array;
  count: number;
  /** Count, sum and sum of squares of days late per dispute flag and channel (a handful: a list). */
  cells: Cell[];
  lastMethod: string | null;
  lastSettledDay: number;
}

interface Cell {
  disputed: boolean;
  channel: string | null;
  n: number;
  sum: number;
  sumSq: number;
}

interface Sums {
  n: number;
  daysLate: number;
  disputed: number;
}

interface Portfolio {
  dispute: number;
  channels: Map<string, number>;
  /** The portfolio's mean residual. */
  mean: number;
  /** Pseudo-observations of the portfolio mixed into a customer's effect. */
  k: number;
  /** Variance of the residuals across the portfolio, and of an invoice around its customer's mean. */
  variance: number;
  withinVariance: number;
  /** Quantiles of the portfolio's residuals, centred on their mean. */
  noise: Quantiles;
  residuals: ResidualSamples;
  /** The residuals minus their mean: a new customer's noise. */
  centred: WeightedValues;
  /** How an invoice varies around its own customer's mean (null until minSide deviations measure it). */
  within: (WeightedValues & { quantiles: Quantiles }) | null;
}

/** The observations learnt so far, per customer and as a portfolio histogram. */
export class PayDateModel {
  private readonly customers = new Map<string, CustomerHistory>();
  /** Channel keys by index (packed observations store index + 1; 0 is none), and back. */
  private readonly channelNames: string[] = [];
  private readonly channelIndex = new Map<string, number>();
  /** Portfolio counts keyed by days late, dispute flag and channel. */
  private readonly histogram = new Map<string, { daysLate: number; disputed: boolean; channel: string | null; count: number }>();
  private readonly disputedSums: Sums = { n: 0, daysLate: 0, disputed: 0 };
  private readonly plainSums: Sums = { n: 0, daysLate: 0, disputed: 0 };
  private readonly channelSums = new Map<string, Sums>();
  /**
   * Deviations of days late from their customer's cell mean (cells of NOISE_CELL_MIN or more), in
   * half days: how an invoice varies around its customer, its shape as measured. A customer about
   * to change has its deviations taken out (`touch`) and put back at the next rebuild.
   */
  private readonly noiseBins = new Map<number, number>();
  private noiseTotal = 0;
  private readonly noiseDirty = new Set<CustomerHistory>();
  /** Squared deviations of days late from their customer's cell mean, and their degrees of freedom. */
  private withinSquares = 0;
  private withinFreedom = 0;
  /** The shifts, shrinkage and noise; rebuilt after new observations. */
  private cache: Portfolio | null = null;

  constructor(private readonly settings = MODEL_SETTINGS) {}

  get observationCount(): number {
    return this.plainSums.n + this.disputedSums.n;
  }

  observe(o: PayDateObservation): void {
    const daysLate = clamp(daysBetween(o.dueDate, o.settledDate), this.settings.clampDays);
    const method = o.method ?? null;
    const channel = channelKey(o.billChannel, method);
    this.count({ daysLate, disputed: o.disputed, channel }, 1);
    let history = this.customers.get(o.customerId);
    if (!history) this.customers.set(o.customerId, (history = { packed: new Int32Array(PACKED * 4), count: 0, cells: [], lastMethod: null, lastSettledDay: -Infinity }));
    this.touch(history);
    const settledDay = toEpochDay(o.settledDate);
    this.append(history, { daysLate, disputed: o.disputed, channel, settledDay });
    this.addToCell(history, { daysLate, disputed: o.disputed, channel }, 1);
    if (settledDay >= history.lastSettledDay && method !== null) {
      history.lastSettledDay = settledDay;
      history.lastMethod = method;
    }
    this.cache = null;
  }

  /** Takes a customer's observations out (before observing its current history again). */
  forget(customerId: string): void {
    const history = this.customers.get(customerId);
    if (!history) return;
    this.touch(history);
    this.noiseDirty.delete(history);
    for (const o of this.observationsOf(history)) {
      this.count(o, -1);
      this.addToCell(history, o, -1);
    }
    this.customers.delete(customerId);
    this.cache = null;
  }

  /** A customer's days late, oldest settlement first. */
  daysLateOf(customerId: string): { daysLate: number; disputed: boolean; settledDay: number }[] {
    const history = this.customers.get(customerId);
    return history ? [...this.observationsOf(history)].sort((a, b) => a.settledDay - b.settledDay) : [];
  }

  customerObservationCount(customerId: string): number {
    return this.customers.get(customerId)?.count ?? 0;
  }

  /**
   * The customer's predictive distribution as of a date, its overdue invoices counted at the days
   * late they have reached; null when nothing has been settled yet.
   */
  distribution(customerId: string, asOf: string, overdue: OverdueInvoice[] = []): ResidualDistribution | null {
    const total = this.observationCount;
    if (total === 0) return null;
    const p = this.portfolio();
    const residual = (daysLate: number, disputed: boolean, channel: string | null) =>
      daysLate - (disputed ? p.dispute : 0) - (channel === null ? 0 : (p.channels.get(channel) ?? 0)) - p.mean;
    const asOfDay = toEpochDay(asOf);
    const history = this.customers.get(customerId);
    let weight = 0;
    let sum = 0;
    for (const r of history ? this.observationsOf(history) : []) {
      const w = Math.pow(0.5, Math.max(0, asOfDay - r.settledDay) / this.settings.halfLifeDays);
      weight += w;
      sum += w * residual(r.daysLate, r.disputed, r.channel);
    }
    const fallbackChannel = channelKey(null, history?.lastMethod);
    const bounds: number[] = [];
    for (const o of overdue) {
      const daysLate = clamp(asOfDay - toEpochDay(o.dueDate), this.settings.clampDays);
      if (daysLate <= 0) continue;
      bounds.push(residual(daysLate, o.disputed, channelKey(o.billChannel, null) ?? fallbackChannel));
    }
    const effect = censoredEffect(sum, weight, p.k, bounds);
    weight += bounds.length;
    const location = p.mean + effect;
    // An invoice varies around its customer's mean, which is itself known up to within / (weight + k):
    // a customer with a long history gets the within-customer spread, a new one the portfolio's.
    const spread = weight + p.k > 0 ? p.withinVariance * (1 + 1 / (weight + p.k)) : p.variance;
    const scale = p.variance > 0 ? Math.min(1, Math.sqrt(spread / p.variance)) : 0;
    // With history of its own, the shape of that spread is the measured within-customer noise (the
    // portfolio's residuals mix customers: scaled down, their centre is too narrow and their tail
    // too long for one customer's invoices); a new customer gets the portfolio's.
    const own = weight > 0 && p.within !== null;
    const noiseScale = own ? Math.sqrt(1 + 1 / (weight + p.k)) : scale;
    const quantiles = {} as Quantiles;
    for (const q of Object.keys(QUANTILES) as (keyof Quantiles)[]) quantiles[q] = location + (own ? p.within!.quantiles[q] : p.noise[q]) * noiseScale;
    return {
      quantiles,
      customerObservations: history?.count ?? 0,
      customerWeightShare: round2(weight / (weight + p.k)),
      disputeShift: round2(p.dispute),
      channelShifts: p.channels,
      fallbackChannel,
      portfolioObservations: total,
      location,
      residuals: p.residuals,
      noise: own ? p.within! : p.centred,
      noiseScale,
    };
  }

  /** The portfolio's residuals (conditional.ts builds its survival on them). */
  residualSamples(): ResidualSamples {
    return this.portfolio().residuals;
  }

  /** Shifts an invoice's days late by its dispute and channel (see predictFrom). */
  shiftOf(disputed: boolean, billChannel: string | null | undefined): number {
    const p = this.portfolio();
    const channel = channelKey(billChannel, null);
    return (disputed ? p.dispute : 0) + (channel === null ? 0 : (p.channels.get(channel) ?? 0));
  }

  /** Null when nothing has been settled yet: there is no behaviour to learn from. */
  predict(q: PayDateQuery): PayDatePrediction | null {
    const dist = this.distribution(q.customerId, q.asOf, q.overdue);
    return dist && predictFrom(dist, q);
  }

  private append(history: CustomerHistory, o: Observation): void {
    if ((history.count + 1) * PACKED > history.packed.length) {
      const grown = new Int32Array(history.packed.length * 2);
      grown.set(history.packed);
      history.packed = grown;
    }
    const at = history.count++ * PACKED;
    history.packed[at] = o.daysLate;
    history.packed[at + 1] = ((o.channel === null ? 0 : this.channelNumber(o.channel)) << 1) | (o.disputed ? 1 : 0);
    history.packed[at + 2] = o.settledDay;
  }

  /** A channel key's number in packed observations: its index + 1. */
  private channelNumber(key: string): number {
    let n = this.channelIndex.get(key);
    if (n === undefined) this.channelIndex.set(key, (n = this.channelNames.push(key)));
    return n;
  }

  /** A customer's observations unpacked, in the order they were learnt. */
  private *observationsOf(history: CustomerHistory): Generator<Observation> {
    for (let at = 0; at < history.count * PACKED; at += PACKED) {
      const flags = history.packed[at + 1];
      yield { daysLate: history.packed[at], disputed: (flags & 1) === 1, channel: flags >> 1 ? this.channelNames[(flags >> 1) - 1] : null, settledDay: history.packed[at + 2] };
    }
  }

  /** Moves one observation in or out of its customer's cell, keeping the within-customer sums. */
  private addToCell(history: CustomerHistory, o: Omit<Observation, 'settledDay'>, sign: 1 | -1): void {
    let cell = history.cells.find((c) => c.disputed === o.disputed && c.channel === o.channel);
    if (!cell) history.cells.push((cell = { disputed: o.disputed, channel: o.channel, n: 0, sum: 0, sumSq: 0 }));
    this.withinSquares -= squares(cell);
    this.withinFreedom -= Math.max(0, cell.n - 1);
    cell.n += sign;
    cell.sum += sign * o.daysLate;
    cell.sumSq += sign * o.daysLate * o.daysLate;
    this.withinSquares += squares(cell);
    this.withinFreedom += Math.max(0, cell.n - 1);
  }

  private count(o: Omit<Observation, 'settledDay'>, sign: 1 | -1): void {
    addTo(o.disputed ? this.disputedSums : this.plainSums, o.daysLate, o.disputed, sign);
    if (o.channel !== null) {
      let sums = this.channelSums.get(o.channel);
      if (!sums) this.channelSums.set(o.channel, (sums = { n: 0, daysLate: 0, disputed: 0 }));
      addTo(sums, o.daysLate, o.disputed, sign);
    }
    const key = `${o.daysLate}|${o.disputed ? 1 : 0}|${o.channel ?? ''}`;
    const bin = this.histogram.get(key);
    if (bin) bin.count += sign;
    else this.histogram.set(key, { daysLate: o.daysLate, disputed: o.disputed, channel: o.channel, count: sign });
    if (bin && bin.count === 0) this.histogram.delete(key);
  }

  /**
   * The shifts (dispute: mean difference, each side needing minSide observations; channel: its
   * mean days late without the dispute shift, against the portfolio's), the residuals' mean and
   * spread, and the shrinkage k = within / between variance, all from running sums and the
   * histogram: no pass over customers or observations.
   */
  private portfolio(): Portfolio {
    if (this.cache) return this.cache;
    const min = this.settings.minSide;
    const d = this.disputedSums;
    const p = this.plainSums;
    const n = d.n + p.n;
    const dispute = d.n >= min && p.n >= min ? d.daysLate / d.n - p.daysLate / p.n : 0;
    const overall = (d.daysLate + p.daysLate - dispute * d.n) / n;
    const channels = new Map<string, number>();
    for (const [channel, sums] of this.channelSums) {
      if (channel.startsWith(BILL) && sums.n >= min && sums.n < n) channels.set(channel, (sums.daysLate - dispute * sums.disputed) / sums.n - overall);
    }
    const shift = (disputed: boolean, channel: string | null) => (disputed ? dispute : 0) + (channel === null ? 0 : (channels.get(channel) ?? 0));
    const samples: Sample[] = [];
    let mean = 0;
    for (const bin of this.histogram.values()) {
      const value = bin.daysLate - shift(bin.disputed, bin.channel);
      samples.push({ value, weight: bin.count });
      mean += value * bin.count;
    }
    mean /= n;
    let spread = 0;
    for (const s of samples) spread += s.weight * (s.value - mean) ** 2;
    const variance = spread / n;
    // Until enough repeat settlements measure it: the whole spread, and priorWeight.
    let k = this.settings.priorWeight;
    let withinVariance = variance;
    if (this.withinFreedom >= min && variance > 0) {
      withinVariance = Math.max(0, this.withinSquares) / this.withinFreedom;
      // The portfolio's spread is the customers' differences plus an invoice's spread around its customer.
      k = withinVariance / Math.max(variance - withinVariance, withinVariance / 100, 1e-6);
    }
    samples.sort((a, b) => a.value - b.value);
    const noise = weightedQuantiles(samples, n);
    for (const q of Object.keys(noise) as (keyof Quantiles)[]) noise[q] -= mean;
    const raw = new Map<number, number>();
    for (const bin of this.histogram.values()) raw.set(bin.daysLate, (raw.get(bin.daysLate) ?? 0) + bin.count);
    const rawSorted = [...raw].sort(([a], [b]) => a - b);
    const residuals: ResidualSamples = {
      values: Float64Array.from(samples, (s) => s.value),
      weights: Float64Array.from(samples, (s) => s.weight),
      mean,
      daysLate: Int32Array.from(rawSorted, ([d]) => d),
      counts: Float64Array.from(rawSorted, ([, c]) => c),
    };
    const centred = { values: Float64Array.from(samples, (x) => x.value - mean), weights: residuals.weights };
    return (this.cache = { dispute, channels, mean, k, variance, withinVariance, noise, residuals, centred, within: this.withinNoise() });
  }

  /** Takes a customer's noise deviations out before it changes; they come back at the next rebuild. */
  private touch(history: CustomerHistory): void {
    if (this.noiseDirty.has(history)) return;
    this.addNoise(history, -1);
    this.noiseDirty.add(history);
  }

  private addNoise(history: CustomerHistory, sign: 1 | -1): void {
    for (const o of this.observationsOf(history)) {
      const cell = history.cells.find((c) => c.disputed === o.disputed && c.channel === o.channel)!;
      if (cell.n < NOISE_CELL_MIN) continue;
      const bin = withinDeviation(o.daysLate, cell.n, cell.sum);
      const count = (this.noiseBins.get(bin) ?? 0) + sign;
      if (count === 0) this.noiseBins.delete(bin);
      else this.noiseBins.set(bin, count);
      this.noiseTotal += sign;
    }
  }

  /** The within-customer noise, its changed customers' deviations put back first. */
  private withinNoise(): (WeightedValues & { quantiles: Quantiles }) | null {
    for (const history of this.noiseDirty) this.addNoise(history, 1);
    this.noiseDirty.clear();
    if (this.noiseTotal < this.settings.minSide) return null;
    const samples = [...this.noiseBins].map(([value, weight]) => ({ value, weight })).sort((a, b) => a.value - b.value);
    return { values: Float64Array.from(samples, (x) => x.value), weights: Float64Array.from(samples, (x) => x.weight), quantiles: weightedQuantiles(samples, this.noiseTotal) };
  }
}

/**
 * A customer's effect: the shrunk mean of its residuals (`sum` over `weight`, plus k
 * pseudo-observations at 0), with its invoices open past due as lower bounds. An invoice open at
 * residual b says only "at least b": it counts at the larger of b and the effect itself, so a
 * customer that usually pays 40 days late is not pulled early by its invoices now 5 and 20 days
 * past due, while one whose open invoices are later than its history is pulled up. The fixed point
 * e = (sum + sum of max(b, e)) / (weight + k + bounds), found exactly over the bounds in descending
 * order (the right side grows more slowly than e, so there is one).
 */
export function censoredEffect(sum: number, weight: number, k: number, bounds: readonly number[]): number {
  const sorted = [...bounds].sort((a, b) => b - a);
  let above = sum;
  for (let j = 0; j <= sorted.length; j++) {
    if (j > 0) above += sorted[j - 1];
    const denominator = weight + k + j;
    if (denominator <= 0) continue;
    const effect = above / denominator;
    // Valid when the j bounds counted are at or above it and the rest at or below it.
    if ((j === 0 || sorted[j - 1] >= effect) && (j === sorted.length || sorted[j] <= effect)) return effect;
  }
  return 0;
}

/**
 * Settlements a customer's cell (dispute flag, channel) needs before its deviations count as noise:
 * with 2, each is half their difference. Chosen on the worst ledger (README.md beside this file).
 */
const NOISE_CELL_MIN = 3;

/**
 * An invoice's deviation from its cell's mean, in half days, scaled by sqrt(n / (n - 1)): a mean
 * of n that includes the invoice itself sits closer to it than the customer's true mean.
 */
export function withinDeviation(daysLate: number, n: number, sum: number): number {
  return Math.round((daysLate - sum / n) * Math.sqrt(n / (n - 1)) * 2) / 2;
}

/** A cell's squared deviations from its mean. */
function squares(c: Cell): number {
  return c.n > 1 ? c.sumSq - (c.sum * c.sum) / c.n : 0;
}

function addTo(sums: Sums, daysLate: number, disputed: boolean, sign = 1): void {
  sums.n += sign;
  sums.daysLate += sign * daysLate;
  if (disputed) sums.disputed += sign;
}

/** An invoice's prediction from its customer's distribution: the shifts of its dispute and its channel apply. */
export function predictFrom(dist: ResidualDistribution, invoice: { dueDate: string; disputed: boolean; billChannel?: string | null }): PayDatePrediction {
  const { channelShift, offset } = shiftsOf(dist, invoice);
  const days = (q: number) => Math.round(q + offset);
  const { quantiles: q } = dist;
  const median = days(q.q50);
  const { dueDate } = invoice;
  return {
    predicted_date: addDays(dueDate, median),
    days_late: median,
    interval: { low: addDays(dueDate, days(q.q10)), high: addDays(dueDate, days(q.q90)) },
    scenarios: scenarios(dueDate, [days(q.q125), days(q.q375), days(q.q625), days(q.q875)]),
    customer_observations: dist.customerObservations,
    customer_weight_share: dist.customerWeightShare,
    dispute_shift_days: dist.disputeShift,
    channel_shift_days: round2(channelShift),
    portfolio_observations: dist.portfolioObservations,
  };
}

/** An invoice's shifts: its channel's (its bill channel, else how the customer paid last), and with its dispute's. */
export function shiftsOf(dist: ResidualDistribution, invoice: { disputed: boolean; billChannel?: string | null }): { channelShift: number; offset: number } {
  const channel = channelKey(invoice.billChannel, null) ?? dist.fallbackChannel;
  const channelShift = channel === null ? 0 : (dist.channelShifts.get(channel) ?? 0);
  return { channelShift, offset: (invoice.disputed ? dist.disputeShift : 0) + channelShift };
}

/** Weighted quantiles of sorted samples whose weights sum to `total`. */
function weightedQuantiles(samples: Sample[], total: number): Quantiles {
  const entries = Object.entries(QUANTILES) as [keyof Quantiles, number][];
  const out = {} as Quantiles;
  let k = 0;
  let running = 0;
  let last = 0;
  for (const s of samples) {
    running += s.weight;
    last = s.value;
    while (k < entries.length && running >= entries[k][1] * total - 1e-9) out[entries[k++][0]] = s.value;
    if (k === entries.length) break;
  }
  while (k < entries.length) out[entries[k++][0]] = last;
  return out;
}

/** The four quartile bands, each a quarter of the probability, merged where they land on one date. */
function scenarios(dueDate: string, bands: number[]): Scenario[] {
  const merged = new Map<number, number>();
  for (const days of bands) merged.set(days, (merged.get(days) ?? 0) + 0.25);
  return [...merged].map(([days, probability]) => ({ date: addDays(dueDate, days), probability }));
}

function clamp(value: number, limit: number): number {
  return Math.max(-limit, Math.min(limit, value));
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}
