/**
 * How good the cash-in forecast is, per company (`portfolio_forecast_accuracy`): the backtest of
 * cash-forecast.ts replayed on the company's latest weeks, written by the full refresh (in the
 * refresh process, off the server's event loop) and shown beside the Analytics chart.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { addDays } from '../dates';
import type { Engine } from '../engine';
import { fact } from '../insights/evidence';
import { type CashHistory, forecastBacktest, forecastOrigins, HORIZONS, type HorizonScore } from './cash-forecast';
import { loadCashHistory } from './cash-history';
import type { InsightDraft } from './predictions';

/** Weeks of forecasts replayed: the latest quarter. */
export const ACCURACY_WEEKS = 13;
/** History read before the first of them, for the lateness the forecast learns (bounded on a large ledger). */
const LEARN_DAYS = 365;

export interface ForecastAccuracy {
  /** Weeks whose next week was forecast and scored (the 1-week horizon's count). */
  weeks: number;
  /** The first forecast replayed and the end of the last week scored; null when none. */
  from: string | null;
  to: string | null;
  horizons: HorizonScore[];
}

/** The replay's figures on a cash history (pure). */
export function forecastAccuracy(history: CashHistory): ForecastAccuracy {
  const horizons = forecastBacktest(history, { lastWeeks: ACCURACY_WEEKS });
  const origins = forecastOrigins(history, ACCURACY_WEEKS);
  return { weeks: horizons[0]?.weeks ?? 0, from: origins[0] ?? null, to: origins.length ? addDays(origins[origins.length - 1], 6) : null, horizons };
}

export function forecastAccuracyInsight(companyId: string, companyName: string, history: CashHistory): InsightDraft {
  const accuracy = forecastAccuracy(history);
  return {
    payload: {
      entity: { type: 'portfolio', id: companyId, name: companyName },
      ...accuracy,
      ...(accuracy.weeks ? {} : { reason: `Too little history: the forecast is replayed from ${HORIZONS} weeks after the first invoice, once a week of cash after it is known` }),
    },
    evidence: [
      fact('Weeks of forecasts replayed', accuracy.weeks, 'payment_history'),
      fact('Invoices in the replay', history.invoices.length, 'payment_history'),
      fact('Payments in the replay', history.payments.length, 'payment_history'),
      fact('Promises and payments said to be coming', history.promises.length, 'communication_thread'),
    ],
  };
}

/** The company's cash history for the replay: from a year before the latest weeks replayed (its last payment or invoice). */
export function loadAccuracyHistory(engine: Pick<Engine, 'database'>, companyId: string): CashHistory {
  const last = engine.database.sqlite
    .prepare(`SELECT max(d) FROM (SELECT max(payment_date) AS d FROM payments WHERE company_id = ? UNION ALL SELECT max(invoice_date) FROM invoices WHERE company_id = ?)`)
    .pluck()
    .get(companyId, companyId) as string | null;
  if (last === null) return { invoices: [], payments: [], promises: [] };
  return loadCashHistory(engine, companyId, { since: addDays(last, -7 * (ACCURACY_WEEKS + HORIZONS) - LEARN_DAYS) });
}

/** The company's figures as the latest full refresh measured them; null before one did. */
export function readForecastAccuracy(sqlite: BetterSqlite3.Database, companyId: string): ForecastAccuracy | null {
  const row = sqlite
    .prepare(`SELECT payload_json FROM insights WHERE company_id = ? AND target_type = 'portfolio' AND target_id = ? AND insight_type = 'portfolio_forecast_accuracy' AND valid_to IS NULL`)
    .get(companyId, companyId) as { payload_json: string } | undefined;
  if (!row) return null;
  const p = JSON.parse(row.payload_json) as ForecastAccuracy;
  return { weeks: p.weeks, from: p.from, to: p.to, horizons: p.horizons };
}
