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

export interface Receivables {
  total: number;
  current: number;
}

/** Amounts grouped by the dates that decide when they count: issued, due, closed by credit memo or write-off, paid. */
interface DatedAmount {
  issued: string;
  due: string;
  /** The closing date of an invoice closed by a credit memo or write-off; null or '9999-12-31' (the aggregates' spelling) when not. */
  written_off: string | null;
  /** A payment's date; null for invoice totals. */
  paid: string | null;
  amount: number;
}

/** Whether an amount counts in the receivables at the end of `date` (the aging's rule for a past date). */
function countsAt(row: DatedAmount, date: string): boolean {
  return row.issued <= date && (row.written_off === null || row.written_off > date) && (row.paid === null || row.paid <= date);
}

/**
 * Open receivables at the end of each date, all and not past due (minor units), as the aging
 * computes them: its stored balances for today; for a past date, total less settled payments dated
 * by then, over invoices issued by then and not closed by a credit memo or write-off, counting
 * only balances above 0. Past dates come from invoice totals and payments grouped by their dates
 * (one pass over each for every date together), plus the negative balances of the few overpaid
 * invoices, which the aging leaves out and the grouped sums would subtract.
 */
export function receivablesAt(engine: Engine, companyId: string, dates: string[], today: string): Map<string, Receivables> {
  const result = new Map<string, Receivables>();
  if (dates.includes(today)) {
    const rows = agingBucketRows(engine, companyId, today, today);
    result.set(today, { total: rows.reduce((sum, r) => sum + r.balance, 0), current: rows.find((r) => r.bucket === 'current')?.balance ?? 0 });
  }
  const past = dates.filter((d) => d !== today);
  if (past.length === 0) return result;
  const params = { company: companyId, last: past.reduce((a, b) => (a > b ? a : b)) };
  const writtenOff = `CASE WHEN i.closing_reason IN ('credit_memo','written_off') THEN coalesce(i.closed_date, '') END`;
  const sqlite = engine.database.sqlite;
  // Both groupings are kept by triggers (0098), where "not written off" is a date after every date.
  const totals = sqlite
    .prepare(
      `SELECT invoice_date AS issued, due_date AS due, written_off, NULL AS paid, total_amount AS amount
       FROM invoice_issue_totals WHERE company_id = :company AND invoice_date <= :last`,
    )
    .all(params) as DatedAmount[];
  const payments = sqlite
    .prepare(
      `SELECT invoice_date AS issued, due_date AS due, written_off, payment_date AS paid, amount
       FROM payment_issue_totals WHERE company_id = :company AND invoice_date <= :last AND payment_date <= :last`,
    )
    .all(params) as DatedAmount[];
  // Each overpaid invoice with each payment's running total: what it was paid beyond its total by a date.
  const overpaid = sqlite
    .prepare(
      `SELECT i.id, i.invoice_date AS issued, i.due_date AS due, ${writtenOff} AS written_off, p.payment_date AS paid, i.total_amount AS total,
              (SELECT sum(q.amount) FROM payments q WHERE q.invoice_id = i.id AND q.status IN ('PAID','PARTIAL') AND q.payment_date <= p.payment_date) AS paid_by
       FROM invoices i JOIN payments p ON p.invoice_id = i.id AND p.status IN ('PAID','PARTIAL')
       WHERE i.company_id = :company AND i.paid_amount > i.total_amount AND i.invoice_date <= :last`,
    )
    .all(params) as Array<DatedAmount & { id: string; total: number; paid_by: number }>;
  for (const date of past) {
    const receivables = { total: 0, current: 0 };
    const add = (row: DatedAmount, amount: number) => {
      receivables.total += amount;
      if (row.due >= date) receivables.current += amount;
    };
    for (const row of totals) if (countsAt(row, date)) add(row, row.amount);
    for (const row of payments) if (countsAt(row, date)) add(row, -row.amount);
    // An overpaid invoice's balance is left out while negative: add back what it was paid beyond its total by then.
    const paidBy = new Map<string, { row: DatedAmount & { total: number }; paid: number }>();
    for (const row of overpaid) {
      if (!countsAt(row, date)) continue;
      const seen = paidBy.get(row.id);
      if (!seen || row.paid_by > seen.paid) paidBy.set(row.id, { row, paid: row.paid_by });
    }
    for (const { row, paid } of paidBy.values()) if (paid > row.total) add(row, paid - row.total);
    result.set(date, receivables);
  }
  return result;
}

function monthlySales(engine: Engine, companyId: string, asOf: string): MonthlySales {
  const rows = engine.database.sqlite
    .prepare(`SELECT substr(invoice_date, 1, 7) AS month, sum(total_amount) AS sales FROM invoice_issue_totals WHERE company_id = ? AND invoice_date <= ? GROUP BY 1`)
    .all(companyId, asOf) as Array<{ month: string; sales: number }>;
  return new Map(rows.map((r) => [r.month, r.sales]));
}

/**
 * Promises to pay dated from `from` to `to` and judged (core/promises: the day after their date plus
 * the grace days): a call, note or reply logged with a promise date, an action's commitment date.
 * Kept when paid by their last day; void ones (replaced, or the invoice credited) do not count.
 */
function promisesDue(engine: Engine, companyId: string, from: string, to: string): Array<{ month: string; kept: boolean }> {
  const rows = engine.database.sqlite
    .prepare(
      `SELECT promised_date AS promised, outcome = 'kept' AS kept FROM promise_followups
       WHERE company_id = :company AND outcome != 'void' AND promised_date BETWEEN :from AND :to`,
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
  const ends = Array.from({ length: months }, (_, i) => {
    const month = addMonths(first, i);
    return { month, end: month === monthOf(asOf) ? asOf : monthEnd(month) };
  });
  const openingDate = addDays(monthStart(first), -1);
  const receivables = receivablesAt(engine, companyId, [openingDate, ...ends.map((e) => e.end)], today);
  let opening = receivables.get(openingDate)!.total;
  const trend: MetricsReport['trend'] = [];
  for (const { month, end } of ends) {
    const closing = receivables.get(end)!;
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
