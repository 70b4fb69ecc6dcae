import type BetterSqlite3 from 'better-sqlite3';
import { addDays } from '../dates';
import type { Engine } from '../engine';
import { forecastCalendar } from './calendar';
import { COMMITMENT_DATE } from '../db/migrations/0099_promise_dates';
import type { DueInflow, ExpectedInflow, ForecastInput, PromisedInflow } from './forecast';

/**
 * The open invoices with what their active pay-date prediction says (its scenarios, or its
 * collectible_90d when it gives no date), and the fallback date for an invoice without one yet: the
 * due date pushed by the customer's average lateness on paid invoices (the company's when the
 * customer has none). Materialised once for the three sums below.
 */
const OPEN_SQL = `WITH open AS MATERIALIZED (
  SELECT i.customer_id, i.customer_name, i.due_date, i.balance AS b,
    (SELECT m.payload_json FROM insights m WHERE m.company_id = :company AND m.invoice_id = i.id
       AND m.insight_type = 'invoice_pay_date_prediction' AND m.valid_to IS NULL) AS payload,
    date(i.due_date, printf('+%d days', cast(round(coalesce(l.late_days / nullif(l.paid_count, 0), :companyLate)) AS integer))) AS fallback
  FROM invoices i INDEXED BY invoices_open_forecast
  LEFT JOIN customer_paid_lateness l ON l.company_id = :company AND l.customer_id = i.customer_id
  WHERE i.company_id = :company AND i.closing_reason IS NULL AND i.balance > 0),
predicted AS (
  SELECT *, json_extract(payload, '$.predicted_date') AS date, json_extract(payload, '$.collectible_90d') AS collectible FROM open)`;

/**
 * Reads what the forecast needs, aggregated in SQL so a million invoices become at most one row
 * per customer and date: the due-date series, and the expected amounts (balance x probability)
 * per customer and predicted date, or spread over 90 days for invoices too late to date.
 */
export function loadForecastInput(engine: Engine, companyId: string, requestDate: string, weeks: number, page: { offset?: number; limit?: number } = {}): ForecastInput {
  const sqlite = engine.database.sqlite;
  const calendar = forecastCalendar(requestDate, weeks);
  // Only due dates inside the window count in the due-date series.
  const due = sqlite
    .prepare(
      `SELECT i.customer_id, i.customer_name, i.due_date, sum(i.balance) AS balance
       FROM invoices i INDEXED BY invoices_open_forecast
       WHERE i.company_id = :company AND i.closing_reason IS NULL AND i.balance > 0 AND i.due_date BETWEEN :from AND :to
       GROUP BY i.customer_id, i.customer_name, i.due_date`,
    )
    .all({ company: companyId, from: calendar[0].start_date, to: calendar[calendar.length - 1].end_date }) as DueInflow[];
  const expected = keptInflows(sqlite, companyId) ?? readInflows(sqlite, companyId);
  const trailing = sqlite
    .prepare(
      // payment_day_totals (kept by triggers, 0004): a few hundred rows instead of the half-year's payments.
      `SELECT coalesce(sum(amount), 0) AS total FROM payment_day_totals
       WHERE company_id = ? AND status IN ('PAID', 'PARTIAL') AND payment_date > ? AND payment_date <= ?`,
    )
    .get(companyId, addDays(requestDate, -182), requestDate) as { total: number };
  // A promise stands through its date plus the company's grace days (the contact rule's setting).
  const grace = sqlite.prepare(`SELECT promise_grace_days AS days FROM companies WHERE id = ?`).get(companyId) as { days: number } | undefined;
  const promised = promisedInflows(sqlite, companyId, addDays(requestDate, -(grace?.days ?? 0)), calendar[calendar.length - 1].end_date);
  return { requestDate, weeks, due, expected, promised, trailingSixMonthPayments: trailing.total, customerOffset: page.offset, customerLimit: page.limit };
}

/**
 * The promises that still stand (dated from `from`, today less the grace days, not judged yet) up to
 * `to`: the latest promise per invoice (or per customer for the whole account), at the amount
 * promised, else the invoice's balance, never above it. A whole-account promise without an amount
 * says no figure and is left out.
 */
function promisedInflows(sqlite: BetterSqlite3.Database, companyId: string, from: string, to: string): PromisedInflow[] {
  return sqlite
    .prepare(
      `WITH p AS (
         SELECT customer_id, invoice_id, promise_date AS date, promise_amount AS amount, occurred_at AS at FROM communications
         WHERE company_id = :company AND promise_date BETWEEN :from AND :to
         UNION ALL
         SELECT customer_id, invoice_id, ${COMMITMENT_DATE}, NULL, created_at FROM actions
         WHERE company_id = :company AND deleted_at IS NULL AND invoice_id IS NOT NULL AND status != 'cancelled' AND ${COMMITMENT_DATE} BETWEEN :from AND :to),
       latest AS (SELECT *, row_number() OVER (PARTITION BY customer_id, coalesce(invoice_id, '') ORDER BY at DESC) AS n FROM p)
       SELECT l.customer_id, l.date, CASE WHEN l.invoice_id IS NULL THEN l.amount ELSE min(coalesce(l.amount, i.balance), i.balance) END AS amount
       FROM latest l LEFT JOIN invoices i ON i.id = l.invoice_id AND i.company_id = :company
       WHERE l.n = 1 AND ((l.invoice_id IS NULL AND l.amount > 0) OR (i.closing_reason IS NULL AND i.balance > 0))`,
    )
    .all({ company: companyId, from, to }) as PromisedInflow[];
}

/**
 * The expected inflows the refresh keeps (core/analytics/forecast-inflows.ts) of the customers with
 * money open, once a full refresh of this database has written them all; null otherwise (a replica,
 * a company not refreshed since 0300), for which they are worked out from the predictions.
 */
function keptInflows(sqlite: BetterSqlite3.Database, companyId: string): ExpectedInflow[] | null {
  // A replicated company (sync_companies) is refreshed elsewhere: what a refresh here once kept is stale.
  if (!sqlite.prepare(`SELECT 1 FROM forecast_state WHERE company_id = ? AND company_id NOT IN (SELECT company_id FROM sync_companies)`).get(companyId)) return null;
  const open = new Map(
    sqlite
      .prepare(`SELECT o.customer_id, c.name FROM customer_open_totals o JOIN customers c ON c.id = o.customer_id WHERE o.company_id = ? AND o.open_balance > 0`)
      .raw()
      .all(companyId) as Array<[string, string]>,
  );
  const rows = sqlite.prepare(`SELECT customer_id, weeks FROM forecast_inflows WHERE company_id = ?`).raw().all(companyId) as Array<[string, string]>;
  const expected: ExpectedInflow[] = [];
  for (const [customerId, weeks] of rows) {
    const name = open.get(customerId);
    if (name === undefined) continue;
    for (const [week, amount, sq, sq2] of JSON.parse(weeks) as Array<[string, number, number, number]>) {
      expected.push({ customer_id: customerId, customer_name: name, date: week || null, amount, sq, sq2 });
    }
  }
  return expected;
}

/** The expected inflows worked out from the open invoices' current predictions. */
function readInflows(sqlite: BetterSqlite3.Database, companyId: string): ExpectedInflow[] {
  // Lateness from the aggregate kept by triggers (0097): the same averages as over the paid invoices.
  const companyLate = sqlite
    .prepare(`SELECT coalesce(sum(late_days) / nullif(sum(paid_count), 0), 0) AS late FROM customer_paid_lateness WHERE company_id = ?`)
    .get(companyId) as { late: number };
  return sqlite
    .prepare(
      `${OPEN_SQL}
       SELECT customer_id, customer_name, json_extract(s.value, '$.date') AS date,
              sum(b * json_extract(s.value, '$.probability')) AS amount,
              sum(b * b * json_extract(s.value, '$.probability')) AS sq,
              sum(b * b * json_extract(s.value, '$.probability') * json_extract(s.value, '$.probability')) AS sq2
       FROM predicted, json_each(predicted.payload, '$.alternative_scenarios') s
       WHERE predicted.date IS NOT NULL GROUP BY 1, 2, 3
       UNION ALL
       SELECT customer_id, customer_name, NULL, sum(b * collectible), sum(b * b * collectible), sum(b * b * collectible * collectible)
       FROM predicted WHERE date IS NULL AND collectible IS NOT NULL GROUP BY 1, 2
       UNION ALL
       SELECT customer_id, customer_name, fallback, sum(b), sum(b * b), sum(b * b)
       FROM predicted WHERE payload IS NULL OR (date IS NULL AND collectible IS NULL) GROUP BY 1, 2, 3`,
    )
    .all({ company: companyId, companyLate: companyLate.late }) as ExpectedInflow[];
}
