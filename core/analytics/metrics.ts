import { addMonths, daysBetween, monthEnd, monthOf, monthStart } from '../dates';

/**
 * Collection metrics, as pure functions of amounts in minor units. Receivables at a date are the
 * open balances then (as the aging computes them); "current" receivables are the part not yet
 * past due. See "Collection metrics" in core/SPEC-DECISIONS.md for the definitions.
 */

/** Credit sales (invoice totals by invoice date) of each month, 'YYYY-MM' -> minor units. */
export type MonthlySales = Map<string, number>;

const round1 = (n: number) => Math.round(n * 10) / 10;

/**
 * Days sales outstanding by the count-back method at `asOf`: walk back month by month from the
 * month of `asOf` (counted up to `asOf` only), taking each month's credit sales off the
 * receivables; whole months count their days, and the month that the remainder falls in counts
 * the fraction remainder / sales of its days. null when no sale was made by then; 0 when nothing is owed.
 */
export function countBackDso(receivables: number, asOf: string, sales: MonthlySales): number | null {
  const months = [...sales.keys()].filter((m) => m <= monthOf(asOf) && (sales.get(m) ?? 0) > 0);
  if (months.length === 0) return null;
  const earliest = months.reduce((a, b) => (a < b ? a : b));
  let remaining = receivables;
  let days = 0;
  for (let month = monthOf(asOf); remaining > 0; month = addMonths(month, -1)) {
    // Receivables older than every recorded sale cannot be counted back.
    if (month < earliest) return null;
    const periodDays = month === monthOf(asOf) ? daysBetween(monthStart(month), asOf) + 1 : daysBetween(monthStart(month), monthEnd(month)) + 1;
    const monthSales = sales.get(month) ?? 0;
    if (monthSales >= remaining) return round1(days + (periodDays * remaining) / monthSales);
    remaining -= monthSales;
    days += periodDays;
  }
  return round1(days);
}

export interface DsoFigures {
  dso: number | null;
  best_possible_dso: number | null;
  average_days_delinquent: number | null;
}

/**
 * DSO, best possible DSO (the same count-back over the current, not past-due, receivables: the DSO
 * if every customer paid on time) and average days delinquent (their difference).
 */
export function dsoFigures(totalReceivables: number, currentReceivables: number, asOf: string, sales: MonthlySales): DsoFigures {
  const dso = countBackDso(totalReceivables, asOf, sales);
  const best = countBackDso(currentReceivables, asOf, sales);
  return { dso, best_possible_dso: best, average_days_delinquent: dso === null || best === null ? null : round1(dso - best) };
}

export interface CeiPeriod {
  /** Receivables at the end of the day before the period. */
  opening: number;
  /** Credit sales within the period. */
  sales: number;
  /** Receivables at the end of the period. */
  closingTotal: number;
  /** The part of closingTotal not past due. */
  closingCurrent: number;
}

/**
 * Collection effectiveness index of a period, in percent: what was collected of what could be
 * collected, (opening + sales - closing total) / (opening + sales - closing current) x 100. null
 * when there was nothing collectable.
 */
export function collectionEffectiveness(p: CeiPeriod): number | null {
  const collectable = p.opening + p.sales - p.closingCurrent;
  if (collectable <= 0) return null;
  return round1(((p.opening + p.sales - p.closingTotal) / collectable) * 100);
}

/** Share of the promises to pay that fell due which were kept, in percent; null when none fell due. */
export function promiseKeptRate(promises: Array<{ kept: boolean }>): number | null {
  if (promises.length === 0) return null;
  return round1((promises.filter((p) => p.kept).length / promises.length) * 100);
}

/**
 * The month a headline CEI covers: a whole month, since a month's first days say little (two days
 * in, CEI is mostly what happened to be due). The month chosen, else the last month complete at
 * `asOf`: its own month when `asOf` is that month's last day, else the month before.
 */
export function ceiHeadlineMonth(asOf: string, chosen?: string): string {
  if (chosen) return chosen;
  const month = monthOf(asOf);
  return asOf === monthEnd(month) ? month : addMonths(month, -1);
}

/** Whole months from `from` to `to` (YYYY-MM), 0 for the same month. */
export function monthsApart(from: string, to: string): number {
  const [fy, fm] = from.split('-').map(Number);
  const [ty, tm] = to.split('-').map(Number);
  return (ty - fy) * 12 + (tm - fm);
}
