import { addDays } from '../dates';
import type { Engine } from '../engine';
import type { ExpectedInflow, ForecastInput } from './forecast';

/**
 * Reads what the forecast needs, aggregated in SQL so a million invoices become at most one row
 * per customer, due date and predicted date. The predicted date is the active
 * invoice_pay_date_prediction insight's date when there is one, else the due date pushed by the
 * customer's average lateness on paid invoices (the company's average when the customer has none).
 */
export function loadForecastInput(engine: Engine, companyId: string, requestDate: string, weeks: number): ForecastInput {
  const sqlite = engine.database.sqlite;
  const companyLate = sqlite
    .prepare(
      `SELECT coalesce(avg(max(julianday(closed_date) - julianday(due_date), 0)), 0) AS late
       FROM invoices WHERE company_id = ? AND closing_reason = 'paid' AND closed_date IS NOT NULL`,
    )
    .get(companyId) as { late: number };
  const inflows = sqlite
    .prepare(
      `WITH lateness AS (
         SELECT customer_id, avg(max(julianday(closed_date) - julianday(due_date), 0)) AS late
         FROM invoices WHERE company_id = :company AND closing_reason = 'paid' AND closed_date IS NOT NULL
         GROUP BY customer_id
       ),
       model AS (
         SELECT invoice_id, max(json_extract(payload_json, '$.predicted_date')) AS predicted_date
         FROM insights
         WHERE company_id = :company AND insight_type = 'invoice_pay_date_prediction' AND valid_to IS NULL AND invoice_id IS NOT NULL
         GROUP BY invoice_id
       )
       SELECT i.customer_id, i.customer_name, i.due_date,
              coalesce(m.predicted_date, date(i.due_date, printf('+%d days', cast(round(coalesce(l.late, :companyLate)) AS integer)))) AS predicted_date,
              sum(i.balance) AS balance
       FROM invoices i
       LEFT JOIN lateness l ON l.customer_id = i.customer_id
       LEFT JOIN model m ON m.invoice_id = i.id
       WHERE i.company_id = :company AND i.closing_reason IS NULL AND i.balance > 0
       GROUP BY i.customer_id, i.customer_name, i.due_date, 4`,
    )
    .all({ company: companyId, companyLate: companyLate.late }) as ExpectedInflow[];
  const trailing = sqlite
    .prepare(
      `SELECT coalesce(sum(amount), 0) AS total FROM payments
       WHERE company_id = ? AND status IN ('PAID', 'PARTIAL') AND payment_date > ? AND payment_date <= ?`,
    )
    .get(companyId, addDays(requestDate, -182), requestDate) as { total: number };
  return { requestDate, weeks, inflows, trailingSixMonthPayments: trailing.total };
}
