/**
 * How good the cash-in forecast is, per company (`portfolio_forecast_accuracy`): the backtest of
 * cash-forecast.ts replayed on the company's latest weeks, written by the full refresh (in the
 * refresh process, off the server's event loop) and shown beside the Analytics chart.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { addDays } from '../dates';
import type { Engine } from '../engine';
import { fact } from '../insights/evidence';
import { mondayOf } from '../analytics/calendar';
import { type CashHistory, forecastAsOf, forecastBacktest, forecastOrigins, HORIZONS, type HorizonScore } from './cash-forecast';
import { loadCashHistory } from './cash-history';
import type { InsightDraft } from './predictions';

/** Weeks of forecasts replayed: the latest quarter. */
export const ACCURACY_WEEKS = 13;
/** History read before the first of them, for the lateness the forecast learns (bounded on a large ledger). */
const LEARN_DAYS = 365;
/**
 * Invoices the replay reads at most: 100,000 took 2.2 s to read, 7 s to replay and 230 MB more of
 * the refresh process (README.md beside this file); a larger ledger is not measured.
 */
export const ACCURACY_MAX_INVOICES = 100_000;

export interface ForecastAccuracy {
  /** Weeks whose next week was forecast and scored (the 1-week horizon's count). */
  weeks: number;
  /** The first forecast replayed and the end of the last week scored; null when none. */
  from: string | null;
  to: string | null;
  horizons: HorizonScore[];
  /** Why nothing was measured, in words; null when something was. */
  reason: string | null;
}

/** The replay's figures on a cash history (pure). */
export function forecastAccuracy(history: CashHistory): ForecastAccuracy {
  const horizons = forecastBacktest(history, { lastWeeks: ACCURACY_WEEKS });
  const origins = forecastOrigins(history, ACCURACY_WEEKS);
  const weeks = horizons[0]?.weeks ?? 0;
  return {
    weeks,
    from: origins[0] ?? null,
    to: origins.length ? addDays(origins[origins.length - 1], 6) : null,
    horizons,
    reason: weeks ? null : `Too little history: the forecast is measured from ${HORIZONS} weeks after the first invoice, once a week of payments after it is known`,
  };
}

/**
 * The figures, and the measured forecast itself for the weeks from this one (made on its Monday,
 * so the same all week): `next_weeks`, cents per Monday week. `history` null: the ledger is larger
 * than the replay reads.
 */
export function forecastAccuracyInsight(companyId: string, companyName: string, history: CashHistory | null, today: string): InsightDraft {
  const entity = { type: 'portfolio', id: companyId, name: companyName };
  if (history === null) {
    const reason = `Not measured: more than ${ACCURACY_MAX_INVOICES.toLocaleString('en-US')} invoices in the weeks replayed and the year before them`;
    return { payload: { entity, weeks: 0, from: null, to: null, horizons: [], reason, next_weeks: [] }, evidence: [fact('Invoices the replay reads at most', ACCURACY_MAX_INVOICES, 'payment_history')] };
  }
  const accuracy = forecastAccuracy(history);
  const monday = mondayOf(today);
  const next = history.invoices.length ? forecastAsOf(history, monday).model : [];
  return {
    payload: { entity, ...accuracy, next_weeks: next.map((amount, k) => ({ week: addDays(monday, 7 * k), amount: Math.round(amount) })) },
    evidence: [
      fact('Weeks of forecasts replayed', accuracy.weeks, 'payment_history'),
      fact('Invoices in the replay', history.invoices.length, 'payment_history'),
      fact('Payments in the replay', history.payments.length, 'payment_history'),
      fact('Promises and payments said to be coming', history.promises.length, 'communication_thread'),
    ],
  };
}

/**
 * The company's cash history for the replay: from a year before the latest weeks replayed (its
 * last payment or invoice); null when that is more than the replay reads.
 */
export function loadAccuracyHistory(engine: Pick<Engine, 'database'>, companyId: string, maxInvoices = ACCURACY_MAX_INVOICES): CashHistory | null {
  const sqlite = engine.database.sqlite;
  const last = sqlite
    .prepare(`SELECT max(d) FROM (SELECT max(payment_date) AS d FROM payments WHERE company_id = ? UNION ALL SELECT max(invoice_date) FROM invoices WHERE company_id = ?)`)
    .pluck()
    .get(companyId, companyId) as string | null;
  if (last === null) return { invoices: [], payments: [], promises: [] };
  const since = addDays(last, -7 * (ACCURACY_WEEKS + HORIZONS) - LEARN_DAYS);
  const count = sqlite
    .prepare(`SELECT count(*) FROM invoices WHERE company_id = ? AND total_amount > 0 AND (invoice_date >= ? OR closed_date IS NULL OR closed_date >= ?)`)
    .pluck()
    .get(companyId, since, since) as number;
  return count > maxInvoices ? null : loadCashHistory(engine, companyId, { since });
}

/** A week of the measured forecast: its Monday, and cents. */
export interface MeasuredWeek {
  week: string;
  amount: number;
}

/** The company's figures and measured forecast as the latest full refresh made them; null before one did. */
export function readForecastAccuracy(sqlite: BetterSqlite3.Database, companyId: string): (ForecastAccuracy & { nextWeeks: MeasuredWeek[] }) | null {
  const row = sqlite
    .prepare(`SELECT payload_json FROM insights WHERE company_id = ? AND target_type = 'portfolio' AND target_id = ? AND insight_type = 'portfolio_forecast_accuracy' AND valid_to IS NULL`)
    .get(companyId, companyId) as { payload_json: string } | undefined;
  if (!row) return null;
  const p = JSON.parse(row.payload_json) as ForecastAccuracy & { next_weeks?: MeasuredWeek[] };
  return { weeks: p.weeks, from: p.from, to: p.to, horizons: p.horizons, reason: p.reason ?? null, nextWeeks: p.next_weeks ?? [] };
}
