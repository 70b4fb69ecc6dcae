import { addDays } from '../dates';
import type { Engine } from '../engine';
import { forecastCalendar } from './calendar';
import type { DueInflow, ExpectedInflow, ForecastInput } from './forecast';

/**
 * Reads what the forecast needs, aggregated in SQL so a million invoices become at most one row
 * per customer and date: the due-date series, and the expected amounts (balance x probability)
 * per customer and predicted date, or with no date for invoices too late to date (their
 * collectible_90d, spread over 90 days by the forecast). An open invoice whose prediction gives
 * neither (or that has none yet) is expected on its due date pushed by the customer's average
 * lateness on paid invoices (the company's when the customer has none). The predictions are read
 * from their scenario rows (0270), not parsed from each prediction's JSON; dates after the window
 * are left out here rather than by the forecast. CROSS JOIN keeps the invoices outside: SQLite
 * 3.54 otherwise scanned every scenario against the unindexed open invoices.
 */
export function loadForecastInput(engine: Engine, companyId: string, requestDate: string, weeks: number, page: { offset?: number; limit?: number } = {}): ForecastInput {
  const sqlite = engine.database.sqlite;
  const calendar = forecastCalendar(requestDate, weeks);
  // Lateness from the aggregate kept by triggers (0097): the same averages as over the paid invoices.
  const companyLate = sqlite
    .prepare(`SELECT coalesce(sum(late_days) / nullif(sum(paid_count), 0), 0) AS late FROM customer_paid_lateness WHERE company_id = ?`)
    .get(companyId) as { late: number };
  const params = { company: companyId, end: calendar[calendar.length - 1].end_date, companyLate: companyLate.late };
  const due = sqlite
    .prepare(
      `SELECT i.customer_id, i.customer_name, i.due_date, sum(i.balance) AS balance
       FROM invoices i INDEXED BY invoices_open_forecast
       WHERE i.company_id = :company AND i.closing_reason IS NULL AND i.balance > 0 AND i.due_date <= :end
       GROUP BY i.customer_id, i.customer_name, i.due_date`,
    )
    .all(params) as DueInflow[];
  const expected = sqlite
    .prepare(
      `WITH open AS MATERIALIZED (
         SELECT i.id, i.customer_id, i.customer_name, i.due_date, i.balance AS b FROM invoices i INDEXED BY invoices_open_forecast
         WHERE i.company_id = :company AND i.closing_reason IS NULL AND i.balance > 0)
       SELECT o.customer_id, o.customer_name, p.date,
              sum(o.b * p.probability) AS amount, sum(o.b * o.b * p.probability) AS sq, sum(o.b * o.b * p.probability * p.probability) AS sq2
       FROM open o CROSS JOIN pay_date_scenarios p ON p.company_id = :company AND p.invoice_id = o.id
       WHERE p.date IS NULL OR p.date <= :end
       GROUP BY 1, 2, 3
       UNION ALL
       SELECT customer_id, customer_name, fallback, sum(b), sum(b * b), sum(b * b) FROM (
         SELECT o.customer_id, o.customer_name, o.b,
                date(o.due_date, printf('+%d days', cast(round(coalesce(l.late_days / nullif(l.paid_count, 0), :companyLate)) AS integer))) AS fallback
         FROM open o LEFT JOIN customer_paid_lateness l ON l.company_id = :company AND l.customer_id = o.customer_id
         WHERE NOT EXISTS (SELECT 1 FROM pay_date_scenarios p WHERE p.company_id = :company AND p.invoice_id = o.id))
       WHERE fallback <= :end
       GROUP BY 1, 2, 3`,
    )
    .all(params) as ExpectedInflow[];
  const trailing = sqlite
    .prepare(
      // payment_day_totals (kept by triggers, 0004): a few hundred rows instead of the half-year's payments.
      `SELECT coalesce(sum(amount), 0) AS total FROM payment_day_totals
       WHERE company_id = ? AND status IN ('PAID', 'PARTIAL') AND payment_date > ? AND payment_date <= ?`,
    )
    .get(companyId, addDays(requestDate, -182), requestDate) as { total: number };
  return { requestDate, weeks, due, expected, trailingSixMonthPayments: trailing.total, customerOffset: page.offset, customerLimit: page.limit };
}
