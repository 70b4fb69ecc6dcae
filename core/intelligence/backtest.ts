/**
 * The backtest: replays a company's paid invoices in order of invoice date and predicts each one at
 * its invoice date from what was settled strictly before that date, with the pay-date model and two
 * baselines (the due date; the customer's running mean days-to-pay, the portfolio's for a first
 * invoice). Scores are days between predicted and actual settled date.
 *
 * What the prediction may know at its moment: the payments settled strictly before it, which of the
 * customer's invoices were issued and still open past due then, and a dispute only from the day it
 * was known (`disputedSince`).
 */
import { addDays, daysBetween } from '../dates';
import type { HistoryInvoice } from './facts';
import { type CensoredAge, conditionalPrediction, portfolioSurvival } from './conditional';
import { type OverdueInvoice, PayDateModel, predictFrom, shiftsOf } from './pay-date';

const disputedAt = (h: HistoryInvoice, moment: string) => h.disputedSince !== null && h.disputedSince <= moment;

export interface ReplayedPrediction {
  invoiceId: string;
  /** The prediction moment: the invoice date. */
  asOf: string;
  predicted: string;
  low: string;
  high: string;
  customerMean: string;
  actual: string;
  /** False for an invoice issued before anything was settled: the product gives no date nor interval then, the replay the due date. */
  modelled: boolean;
}

export interface Score {
  mae_days: number;
  late_accuracy: number;
}

export interface BacktestReport {
  invoices: number;
  mae_days: number;
  median_ae_days: number;
  late_accuracy: number;
  /** Predictions with an 80% interval: those made once something was settled. */
  intervals: number;
  /** Of them, the share paid within it. */
  interval_coverage: number;
  baselines: { due_date: Score; customer_mean: Score };
  conditional: CheckpointReport[];
}

/** The ages past due at which the conditional backtest predicts every invoice still unpaid. */
export const CHECKPOINTS = [0, 30, 60, 90];

export interface CheckpointScore {
  mae_days: number;
  brier_90d: number;
}

export interface CheckpointReport {
  age_days: number;
  /** Invoices still unpaid at the checkpoint. */
  invoices: number;
  /** Of them, those the model gave a date (the rest: too few invoices reached the age); the MAEs are over these. */
  dated: number;
  mae_days: number;
  interval_coverage: number;
  brier_90d: number;
  baselines: { due_date: CheckpointScore; customer_mean: CheckpointScore };
}

export interface ConditionalPredictionReplayed {
  invoiceId: string;
  /** The moment: due date + the checkpoint's age. */
  asOf: string;
  predicted: string | null;
  low: string | null;
  high: string | null;
  collectible90d: number;
  /** The baselines given the invoice is still unpaid: the moment itself, and the customer's running mean (or the moment once it has passed). */
  dueDate: string;
  customerMean: string;
  actual: string;
}

/** Running mean of days from invoice to settlement, per customer and for the portfolio. */
class RunningMeans {
  private readonly customers = new Map<string, { sum: number; n: number }>();
  private sum = 0;
  private n = 0;

  observe(h: HistoryInvoice): void {
    const days = daysBetween(h.invoiceDate, h.settledDate);
    const c = this.customers.get(h.customerId) ?? { sum: 0, n: 0 };
    c.sum += days;
    c.n += 1;
    this.customers.set(h.customerId, c);
    this.sum += days;
    this.n += 1;
  }

  /** The customer's mean, else the portfolio's, else the due date (nothing settled yet). */
  predict(h: HistoryInvoice): string {
    const c = this.customers.get(h.customerId);
    if (c) return addDays(h.invoiceDate, Math.round(c.sum / c.n));
    if (this.n) return addDays(h.invoiceDate, Math.round(this.sum / this.n));
    return h.dueDate;
  }
}

/**
 * An invoice's prediction at its invoice date as the product makes it for an open invoice
 * (predictions.ts): given it is still unpaid at its age (days before its due date), with the
 * portfolio's open invoices censored at theirs, so the early weeks' few fast settlements are not
 * read as the whole story. The invoice-date model's own when the conditional gives no date (its
 * quantiles past the last payment seen); null before anything was settled.
 */
function predictAtIssue(model: PayDateModel, h: HistoryInvoice, moment: string, overdue: OverdueInvoice[], open: Iterable<HistoryInvoice>): { date: string; low: string; high: string } | null {
  const dist = model.distribution(h.customerId, moment, overdue);
  if (!dist) return null;
  const censored: CensoredAge[] = [];
  for (const o of open) censored.push({ age: daysBetween(o.dueDate, moment), shift: model.shiftOf(disputedAt(o, moment), o.billChannel) });
  const disputed = disputedAt(h, moment);
  const conditional = conditionalPrediction(dist, portfolioSurvival(dist.residuals, censored), { dueDate: h.dueDate, shift: shiftsOf(dist, { disputed, billChannel: h.billChannel }).offset }, daysBetween(h.dueDate, moment));
  if (conditional.predicted) return { date: conditional.predicted.date, ...conditional.predicted.interval };
  const p = predictFrom(dist, { dueDate: h.dueDate, disputed, billChannel: h.billChannel });
  return { date: p.predicted_date, ...p.interval };
}

/**
 * Predicts every invoice at its invoice date. Observations enter in order of settled date and only
 * once their settled date is strictly before the prediction moment. An invoice predicted before
 * anything was settled gets its due date (the model has nothing to learn from).
 */
export function replay(history: HistoryInvoice[]): ReplayedPrediction[] {
  const byInvoiceDate = [...history].sort((a, b) => cmp(a.invoiceDate, b.invoiceDate) || cmp(a.id, b.id));
  const bySettled = [...history].sort((a, b) => cmp(a.settledDate, b.settledDate) || cmp(a.id, b.id));
  const model = new PayDateModel();
  const means = new RunningMeans();
  /** Per customer, the invoices issued so far and not yet settled before the current moment. */
  const open = new Map<string, Map<string, HistoryInvoice>>();
  const learnt = new Set<string>();
  /** The portfolio's invoices issued so far and not yet settled before the current moment. */
  const pending = new Map<string, HistoryInvoice>();
  const out: ReplayedPrediction[] = [];
  let next = 0;
  for (const h of byInvoiceDate) {
    const moment = h.invoiceDate;
    while (next < bySettled.length && bySettled[next].settledDate < moment) {
      const o = bySettled[next++];
      model.observe({ ...o, disputed: disputedAt(o, moment) });
      means.observe(o);
      open.get(o.customerId)?.delete(o.id);
      pending.delete(o.id);
      learnt.add(o.id);
    }
    const overdue = [...(open.get(h.customerId)?.values() ?? [])]
      .filter((o) => o.dueDate < moment)
      .map((o) => ({ dueDate: o.dueDate, disputed: disputedAt(o, moment), billChannel: o.billChannel }));
    if (!learnt.has(h.id)) pending.set(h.id, h);
    const p = predictAtIssue(model, h, moment, overdue, pending.values());
    if (!learnt.has(h.id)) {
      let issued = open.get(h.customerId);
      if (!issued) open.set(h.customerId, (issued = new Map()));
      issued.set(h.id, h);
    }
    out.push({
      invoiceId: h.id,
      asOf: h.invoiceDate,
      predicted: p?.date ?? h.dueDate,
      low: p?.low ?? h.dueDate,
      high: p?.high ?? h.dueDate,
      customerMean: means.predict(h),
      actual: h.settledDate,
      modelled: p !== null,
    });
  }
  return out;
}

/**
 * Predicts, at `age` days past due, every invoice still unpaid then (settled on or after that day),
 * from what was known at that moment: payments settled strictly before it, and the invoices issued
 * and still open then, censored at their ages.
 */
export function replayConditional(history: HistoryInvoice[], age: number): ConditionalPredictionReplayed[] {
  const queries = history
    .map((h) => ({ h, moment: addDays(h.dueDate, age) }))
    .filter((q) => q.h.settledDate >= q.moment)
    .sort((a, b) => cmp(a.moment, b.moment) || cmp(a.h.id, b.h.id));
  const bySettled = [...history].sort((a, b) => cmp(a.settledDate, b.settledDate) || cmp(a.id, b.id));
  const byIssued = [...history].sort((a, b) => cmp(a.invoiceDate, b.invoiceDate) || cmp(a.id, b.id));
  const model = new PayDateModel();
  const means = new RunningMeans();
  const out: ConditionalPredictionReplayed[] = [];
  let next = 0;
  for (const { h, moment } of queries) {
    while (next < bySettled.length && bySettled[next].settledDate < moment) {
      const o = bySettled[next++];
      model.observe({ ...o, disputed: disputedAt(o, moment) });
      means.observe(o);
    }
    if (model.observationCount === 0) continue;
    const open: CensoredAge[] = [];
    const overdue: { dueDate: string; disputed: boolean; billChannel: string | null }[] = [];
    for (const o of byIssued) {
      if (o.invoiceDate > moment) break;
      if (o.settledDate < moment) continue;
      const disputed = disputedAt(o, moment);
      open.push({ age: daysBetween(o.dueDate, moment), shift: model.shiftOf(disputed, o.billChannel) });
      if (o.customerId === h.customerId && o.id !== h.id && o.dueDate < moment) overdue.push({ dueDate: o.dueDate, disputed, billChannel: o.billChannel });
    }
    const dist = model.distribution(h.customerId, moment, overdue)!;
    const disputed = disputedAt(h, moment);
    const survival = portfolioSurvival(dist.residuals, open);
    const p = conditionalPrediction(dist, survival, { dueDate: h.dueDate, shift: shiftsOf(dist, { disputed, billChannel: h.billChannel }).offset }, age);
    const mean = means.predict(h);
    out.push({
      invoiceId: h.id,
      asOf: moment,
      predicted: p.predicted?.date ?? null,
      low: p.predicted?.interval.low ?? null,
      high: p.predicted?.interval.high ?? null,
      collectible90d: p.collectible_90d,
      dueDate: moment,
      customerMean: mean < moment ? moment : mean,
      actual: h.settledDate,
    });
  }
  return out;
}

/** The conditional backtest's scores at one checkpoint. */
export function scoreCheckpoint(history: HistoryInvoice[], age: number): CheckpointReport {
  const predictions = replayConditional(history, age);
  const dated = predictions.filter((p) => p.predicted !== null);
  const within = (p: ConditionalPredictionReplayed) => (p.actual < addDays(p.asOf, 90) ? 1 : 0);
  const mae = (pick: (p: ConditionalPredictionReplayed) => string) => round2(mean(dated.map((p) => Math.abs(daysBetween(pick(p), p.actual)))));
  const brier = (prob: (p: ConditionalPredictionReplayed) => number) => round3(mean(predictions.map((p) => (prob(p) - within(p)) ** 2)));
  const pointBrier = (pick: (p: ConditionalPredictionReplayed) => string) => brier((p) => (pick(p) < addDays(p.asOf, 90) ? 1 : 0));
  return {
    age_days: age,
    invoices: predictions.length,
    dated: dated.length,
    mae_days: mae((p) => p.predicted!),
    interval_coverage: round3(dated.filter((p) => p.low! <= p.actual && p.actual <= p.high!).length / (dated.length || 1)),
    brier_90d: brier((p) => p.collectible90d),
    baselines: {
      due_date: { mae_days: mae((p) => p.dueDate), brier_90d: pointBrier((p) => p.dueDate) },
      customer_mean: { mae_days: mae((p) => p.customerMean), brier_90d: pointBrier((p) => p.customerMean) },
    },
  };
}

export function backtest(history: HistoryInvoice[]): BacktestReport {
  const dueById = new Map(history.map((h) => [h.id, h.dueDate]));
  const predictions = replay(history);
  const score = (pick: (p: ReplayedPrediction) => string): Score & { errors: number[] } => {
    const errors: number[] = [];
    let right = 0;
    for (const p of predictions) {
      const predicted = pick(p);
      const due = dueById.get(p.invoiceId)!;
      errors.push(Math.abs(daysBetween(predicted, p.actual)));
      if (predicted > due === p.actual > due) right += 1;
    }
    return { mae_days: round2(mean(errors)), late_accuracy: round3(right / (predictions.length || 1)), errors };
  };
  const model = score((p) => p.predicted);
  const due = score((p) => dueById.get(p.invoiceId)!);
  const customerMean = score((p) => p.customerMean);
  const withInterval = predictions.filter((p) => p.modelled);
  const covered = withInterval.filter((p) => p.low <= p.actual && p.actual <= p.high).length;
  return {
    invoices: predictions.length,
    mae_days: model.mae_days,
    median_ae_days: median(model.errors),
    late_accuracy: model.late_accuracy,
    intervals: withInterval.length,
    interval_coverage: round3(covered / (withInterval.length || 1)),
    baselines: {
      due_date: { mae_days: due.mae_days, late_accuracy: due.late_accuracy },
      customer_mean: { mae_days: customerMean.mae_days, late_accuracy: customerMean.late_accuracy },
    },
    conditional: CHECKPOINTS.map((age) => scoreCheckpoint(history, age)),
  };
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function mean(values: number[]): number {
  return values.length ? values.reduce((s, v) => s + v, 0) / values.length : 0;
}

function median(values: number[]): number {
  if (!values.length) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}
