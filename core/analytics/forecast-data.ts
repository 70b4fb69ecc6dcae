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
  // Lateness from the aggregate kept by triggers (0097): the same averages as over the paid invoices.
  const companyLate = sqlite
    .prepare(`SELECT coalesce(sum(late_days) / nullif(sum(paid_count), 0), 0) AS late FROM customer_paid_lateness WHERE company_id = ?`)
    .get(companyId) as { late: number };
  const inflows = sqlite
    .prepare(
      `SELECT i.customer_id, i.customer_name, i.due_date,
              coalesce(
                (SELECT max(json_extract(m.payload_json, '$.predicted_date')) FROM insights m
                 WHERE m.company_id = :company AND m.invoice_id = i.id AND m.insight_type = 'invoice_pay_date_prediction' AND m.valid_to IS NULL),
                date(i.due_date, printf('+%d days', cast(round(coalesce(l.late_days / nullif(l.paid_count, 0), :companyLate)) AS integer)))
              ) AS predicted_date,
              sum(i.balance) AS balance
       FROM invoices i INDEXED BY invoices_open_forecast
       LEFT JOIN customer_paid_lateness l ON l.company_id = :company AND l.customer_id = i.customer_id
       WHERE i.company_id = :company AND i.closing_reason IS NULL AND i.balance > 0
       GROUP BY i.customer_id, i.customer_name, i.due_date, 4`,
    )
    .all({ company: companyId, companyLate: companyLate.late }) as ExpectedInflow[];
  const trailing = sqlite
    .prepare(
      // payment_day_totals (kept by triggers, 0004): a few hundred rows instead of the half-year's payments.
      `SELECT coalesce(sum(amount), 0) AS total FROM payment_day_totals
       WHERE company_id = ? AND status IN ('PAID', 'PARTIAL') AND payment_date > ? AND payment_date <= ?`,
    )
    .get(companyId, addDays(requestDate, -182), requestDate) as { total: number };
  return { requestDate, weeks, inflows, trailingSixMonthPayments: trailing.total };
}
