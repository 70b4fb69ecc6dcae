/**
 * The pay-date model: how many days after its due date an invoice will be settled, as a predictive
 * distribution built from the company's own settled invoices.
 *
 * - Each settled invoice is an observation of days late (settled date minus due date, negative
 *   when early). It becomes known on its settled date: the model only learns what was settled
 *   strictly before the moment it predicts for (the caller feeds observations in that order).
 * - Disputes move lateness a lot; the model learns the portfolio's dispute shift and removes it
 *   from each observation, so a customer's disputed and undisputed invoices inform one baseline.
 * - A customer's distribution is its own residuals, weighted toward recent ones (half-life in
 *   days), mixed with the portfolio's residuals as PRIOR_WEIGHT pseudo-observations: a new customer
 *   gets the portfolio, a customer with a long history mostly its own.
 * - An invoice of the customer still open past its due date at the prediction moment is known to
 *   be at least that many days late: it joins the customer's observations at that lower bound (a
 *   customer behind on its bills is predicted late before any of them is settled).
 * - The point prediction is the distribution's weighted median (what minimises absolute error); the
 *   80% interval is its 10th-90th percentile; scenarios are its quartile bands.
 */
import { addDays, daysBetween, toEpochDay } from '../dates';

export interface PayDateObservation {
  customerId: string;
  dueDate: string;
  settledDate: string;
  disputed: boolean;
  /** How it was paid (the last payment's method), when known. */
  method?: string | null;
}

export interface PayDateQuery {
  customerId: string;
  dueDate: string;
  disputed: boolean;
  /** The prediction moment (YYYY-MM-DD): recency is measured from it. */
  asOf: string;
  /** The customer's invoices open and past due at that moment. */
  overdue?: OverdueInvoice[];
}

/** A customer's invoice still open and past its due date at the prediction moment. */
export interface OverdueInvoice {
  dueDate: string;
  disputed: boolean;
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
  portfolio_observations: number;
}

export const MODEL_SETTINGS = {
  /** Weight of the portfolio's distribution, in observations' worth. */
  priorWeight: 1,
  /** A customer's observation loses half its weight after this many days. */
  halfLifeDays: 240,
  /** Observations a shift (dispute, payment method) needs on each side before it is trusted. */
  minSide: 10,
  /** Days-late values are clamped to this range so one odd record cannot dominate. */
  clampDays: 365,
};

interface Sample {
  value: number;
  weight: number;
}

/** A customer's residual distribution at one moment, and the shifts its invoices get back. */
export interface ResidualDistribution {
  quantiles: Record<'q10' | 'q125' | 'q375' | 'q50' | 'q625' | 'q875' | 'q90', number>;
  customerObservations: number;
  customerWeightShare: number;
  disputeShift: number;
  /** The shift of the payment method the customer used last (0 without history). */
  methodShift: number;
  method: string | null;
  portfolioObservations: number;
}

const QUANTILES = { q10: 0.1, q125: 0.125, q375: 0.375, q50: 0.5, q625: 0.625, q875: 0.875, q90: 0.9 } as const;

interface CustomerHistory {
  observations: { daysLate: number; disputed: boolean; method: string | null; settledDay: number }[];
  lastMethod: string | null;
  lastSettledDay: number;
}

interface Sums {
  n: number;
  daysLate: number;
  disputed: number;
}

/** The observations learnt so far, per customer and as a portfolio histogram. */
export class PayDateModel {
  private readonly customers = new Map<string, CustomerHistory>();
  /** Portfolio counts keyed by days late, dispute flag and method. */
  private readonly histogram = new Map<string, { daysLate: number; disputed: boolean; method: string | null; count: number }>();
  private readonly disputedSums: Sums = { n: 0, daysLate: 0, disputed: 0 };
  private readonly plainSums: Sums = { n: 0, daysLate: 0, disputed: 0 };
  private readonly methodSums = new Map<string, Sums>();
  /** The portfolio's residuals as sorted samples and the shifts they were built with; rebuilt after new observations. */
  private cache: { samples: Sample[]; dispute: number; methods: Map<string, number> } | null = null;

  constructor(private readonly settings = MODEL_SETTINGS) {}

  get observationCount(): number {
    return this.plainSums.n + this.disputedSums.n;
  }

  observe(o: PayDateObservation): void {
    const daysLate = clamp(daysBetween(o.dueDate, o.settledDate), this.settings.clampDays);
    const method = o.method ?? null;
    addTo(o.disputed ? this.disputedSums : this.plainSums, daysLate, o.disputed);
    if (method !== null) {
      let sums = this.methodSums.get(method);
      if (!sums) this.methodSums.set(method, (sums = { n: 0, daysLate: 0, disputed: 0 }));
      addTo(sums, daysLate, o.disputed);
    }
    const key = `${daysLate}|${o.disputed ? 1 : 0}|${method ?? ''}`;
    const bin = this.histogram.get(key);
    if (bin) bin.count += 1;
    else this.histogram.set(key, { daysLate, disputed: o.disputed, method, count: 1 });
    let history = this.customers.get(o.customerId);
    if (!history) this.customers.set(o.customerId, (history = { observations: [], lastMethod: null, lastSettledDay: -Infinity }));
    const settledDay = toEpochDay(o.settledDate);
    history.observations.push({ daysLate, disputed: o.disputed, method, settledDay });
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
    for (const o of history.observations) {
      addTo(o.disputed ? this.disputedSums : this.plainSums, o.daysLate, o.disputed, -1);
      if (o.method !== null) addTo(this.methodSums.get(o.method)!, o.daysLate, o.disputed, -1);
      const key = `${o.daysLate}|${o.disputed ? 1 : 0}|${o.method ?? ''}`;
      const bin = this.histogram.get(key)!;
      if (--bin.count === 0) this.histogram.delete(key);
    }
    this.customers.delete(customerId);
    this.cache = null;
  }

  /** A customer's days late, oldest settlement first. */
  daysLateOf(customerId: string): { daysLate: number; disputed: boolean; settledDay: number }[] {
    return [...(this.customers.get(customerId)?.observations ?? [])].sort((a, b) => a.settledDay - b.settledDay);
  }

  customerObservationCount(customerId: string): number {
    return this.customers.get(customerId)?.observations.length ?? 0;
  }

  /**
   * The customer's residual distribution as of a date, its overdue invoices counted at the days
   * late they have reached; null when nothing has been settled yet.
   */
  distribution(customerId: string, asOf: string, overdue: OverdueInvoice[] = []): ResidualDistribution | null {
    const total = this.observationCount;
    if (total === 0) return null;
    const { samples, dispute, methods } = this.portfolio();
    const residual = (r: { daysLate: number; disputed: boolean; method: string | null }) =>
      r.daysLate - (r.disputed ? dispute : 0) - (r.method === null ? 0 : (methods.get(r.method) ?? 0));
    const asOfDay = toEpochDay(asOf);
    const history = this.customers.get(customerId);
    const own: Sample[] = [];
    let ownWeight = 0;
    for (const r of history?.observations ?? []) {
      const weight = Math.pow(0.5, Math.max(0, asOfDay - r.settledDay) / this.settings.halfLifeDays);
      ownWeight += weight;
      own.push({ value: residual(r), weight });
    }
    const method = history?.lastMethod ?? null;
    for (const o of overdue) {
      const daysLate = clamp(asOfDay - toEpochDay(o.dueDate), this.settings.clampDays);
      if (daysLate <= 0) continue;
      ownWeight += 1;
      own.push({ value: residual({ daysLate, disputed: o.disputed, method }), weight: 1 });
    }
    own.sort((a, b) => a.value - b.value);
    return {
      quantiles: mergedQuantiles(own, ownWeight, samples, this.settings.priorWeight / total, this.settings.priorWeight),
      customerObservations: history?.observations.length ?? 0,
      customerWeightShare: round2(ownWeight / (ownWeight + this.settings.priorWeight)),
      disputeShift: round2(dispute),
      methodShift: round2(method === null ? 0 : (methods.get(method) ?? 0)),
      method,
      portfolioObservations: total,
    };
  }

  /** Null when nothing has been settled yet: there is no behaviour to learn from. */
  predict(q: PayDateQuery): PayDatePrediction | null {
    const dist = this.distribution(q.customerId, q.asOf, q.overdue);
    return dist && predictFrom(dist, q.dueDate, q.disputed);
  }

  /**
   * The shifts (dispute: mean difference, each side needing minSide observations; method: its
   * mean days late without the dispute shift, against the portfolio's) and the residual samples.
   */
  private portfolio(): NonNullable<PayDateModel['cache']> {
    if (this.cache) return this.cache;
    const min = this.settings.minSide;
    const d = this.disputedSums;
    const p = this.plainSums;
    const dispute = d.n >= min && p.n >= min ? d.daysLate / d.n - p.daysLate / p.n : 0;
    const overall = (d.daysLate + p.daysLate - dispute * d.n) / (d.n + p.n);
    const methods = new Map<string, number>();
    for (const [method, sums] of this.methodSums) {
      if (sums.n >= min && sums.n < d.n + p.n) methods.set(method, (sums.daysLate - dispute * sums.disputed) / sums.n - overall);
    }
    const samples: Sample[] = [];
    for (const bin of this.histogram.values()) {
      const value = bin.daysLate - (bin.disputed ? dispute : 0) - (bin.method === null ? 0 : (methods.get(bin.method) ?? 0));
      samples.push({ value, weight: bin.count });
    }
    samples.sort((a, b) => a.value - b.value);
    return (this.cache = { samples, dispute, methods });
  }
}

function addTo(sums: Sums, daysLate: number, disputed: boolean, sign = 1): void {
  sums.n += sign;
  sums.daysLate += sign * daysLate;
  if (disputed) sums.disputed += sign;
}

/** An invoice's prediction from its customer's distribution: the dispute shift applies to disputed invoices. */
export function predictFrom(dist: ResidualDistribution, dueDate: string, disputed: boolean): PayDatePrediction {
  const offset = (disputed ? dist.disputeShift : 0) + dist.methodShift;
  const days = (q: number) => Math.round(q + offset);
  const { quantiles: q } = dist;
  const median = days(q.q50);
  return {
    predicted_date: addDays(dueDate, median),
    days_late: median,
    interval: { low: addDays(dueDate, days(q.q10)), high: addDays(dueDate, days(q.q90)) },
    scenarios: scenarios(dueDate, [days(q.q125), days(q.q375), days(q.q625), days(q.q875)]),
    customer_observations: dist.customerObservations,
    customer_weight_share: dist.customerWeightShare,
    dispute_shift_days: dist.disputeShift,
    portfolio_observations: dist.portfolioObservations,
  };
}

/**
 * Weighted quantiles of the union of two sorted sample lists, the second scaled by `scale`, in one
 * merge pass (the portfolio list has at most a few hundred entries).
 */
function mergedQuantiles(own: Sample[], ownWeight: number, portfolio: Sample[], scale: number, portfolioWeight: number): ResidualDistribution['quantiles'] {
  const total = ownWeight + portfolioWeight;
  const entries = Object.entries(QUANTILES) as [keyof typeof QUANTILES, number][];
  const out = {} as ResidualDistribution['quantiles'];
  let k = 0;
  let running = 0;
  let i = 0;
  let j = 0;
  let last = 0;
  while (k < entries.length && (i < own.length || j < portfolio.length)) {
    const takeOwn = j >= portfolio.length || (i < own.length && own[i].value <= portfolio[j].value);
    const s = takeOwn ? own[i++] : portfolio[j++];
    running += takeOwn ? s.weight : s.weight * scale;
    last = s.value;
    while (k < entries.length && running >= entries[k][1] * total - 1e-9) out[entries[k++][0]] = s.value;
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
