import { addDays, addMonths, monthEnd, monthOf, monthStart } from '../dates';
import type { Engine } from '../engine';
import { agingBucketRows } from './aging';
import { collectionEffectiveness, dsoFigures, type MonthlySales, promiseKeptRate } from './metrics';

export interface MonthMetrics {
  dso: number | null;
  best_possible_dso: number | null;
  average_days_delinquent: number | null;
  cei: number | null;
  promise_kept_rate: number | null;
}

export interface MetricsReport {
  as_of: string;
  currency: string;
  current: MonthMetrics;
  trend: Array<MonthMetrics & { month: string }>;
}

/** Open receivables at the end of `date`: all of them, and the part not past due (minor units). */
function receivablesAt(engine: Engine, companyId: string, date: string, today: string): { total: number; current: number } {
  const rows = agingBucketRows(engine, companyId, date, today);
  return { total: rows.reduce((sum, r) => sum + r.balance, 0), current: rows.find((r) => r.bucket === 'current')?.balance ?? 0 };
}

function monthlySales(engine: Engine, companyId: string, asOf: string): MonthlySales {
  const rows = engine.database.sqlite
    .prepare(`SELECT substr(invoice_date, 1, 7) AS month, sum(total_amount) AS sales FROM invoices WHERE company_id = ? AND invoice_date <= ? GROUP BY 1`)
    .all(companyId, asOf) as Array<{ month: string; sales: number }>;
  return new Map(rows.map((r) => [r.month, r.sales]));
}

/**
 * Promises to pay that fell due from `from` to `to`: actions on an invoice whose metadata carries a
 * `commitment_date` (what a collector records when a customer commits to a date). Kept when the
 * invoice's settled payments dated on or before that date cover its total.
 */
function promisesDue(engine: Engine, companyId: string, from: string, to: string): Array<{ month: string; kept: boolean }> {
  const rows = engine.database.sqlite
    .prepare(
      `SELECT promised, (i.total_amount - coalesce((SELECT sum(p.amount) FROM payments p
                WHERE p.invoice_id = i.id AND p.status IN ('PAID','PARTIAL') AND p.payment_date <= promised), 0)) <= 0 AS kept
       FROM (SELECT json_extract(a.metadata, '$.commitment_date') AS promised, a.invoice_id
             FROM actions a
             WHERE a.company_id = :company AND a.deleted_at IS NULL AND a.invoice_id IS NOT NULL AND json_valid(a.metadata)) pr
       JOIN invoices i ON i.id = pr.invoice_id
       WHERE typeof(promised) = 'text' AND promised GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]' AND promised BETWEEN :from AND :to`,
    )
    .all({ company: companyId, from, to }) as Array<{ promised: string; kept: number }>;
  return rows.map((r) => ({ month: monthOf(r.promised), kept: r.kept === 1 }));
}

/**
 * The metrics at `asOf` and for each of the `months` months up to its month (oldest first). A
 * month's DSO figures are at its last day (at `asOf` for the month of `asOf`); its CEI and promise
 * rate cover its days up to then. `current` is the month of `asOf`.
 */
export async function metricsReport(engine: Engine, companyId: string, asOf: string, months: number, today: string): Promise<MetricsReport> {
  const company = await engine.db.selectFrom('companies').select('currency').where('id', '=', companyId).executeTakeFirstOrThrow();
  const sales = monthlySales(engine, companyId, asOf);
  const first = addMonths(monthOf(asOf), -(months - 1));
  const promises = promisesDue(engine, companyId, monthStart(first), asOf);
  let opening = receivablesAt(engine, companyId, addDays(monthStart(first), -1), today).total;
  const trend: MetricsReport['trend'] = [];
  for (let i = 0; i < months; i++) {
    const month = addMonths(first, i);
    const end = month === monthOf(asOf) ? asOf : monthEnd(month);
    const closing = receivablesAt(engine, companyId, end, today);
    trend.push({
      month,
      ...dsoFigures(closing.total, closing.current, end, sales),
      cei: collectionEffectiveness({ opening, sales: sales.get(month) ?? 0, closingTotal: closing.total, closingCurrent: closing.current }),
      promise_kept_rate: promiseKeptRate(promises.filter((p) => p.month === month)),
    });
    opening = closing.total;
  }
  const { month: _month, ...current } = trend[trend.length - 1];
  return { as_of: asOf, currency: company.currency, current, trend };
}
