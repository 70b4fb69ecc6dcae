/**
 * The cash-flow forecast at a million invoices. It pushes each customer's due dates by the
 * customer's average lateness on paid invoices: reading 850k paid invoices took seconds, so the
 * lateness is kept per customer (count and sum of days late, never negative) by triggers in the same
 * transaction as every invoice write, independent of the other invoice triggers. The open invoices
 * it groups and the active pay-date predictions it joins are read from covering partial indexes
 * (the prediction's date is an indexed expression; the columns the query tests are in the index too,
 * else SQLite reads the row), so neither reads a table row.
 */
import { type Kysely, sql } from 'kysely';

/** Days an invoice was paid after its due date, 0 when on time; NULL for an invoice not counted. */
const lateDays = (row: 'NEW' | 'OLD') =>
  `CASE WHEN ${row}.closing_reason = 'paid' AND ${row}.closed_date IS NOT NULL THEN max(julianday(${row}.closed_date) - julianday(${row}.due_date), 0) END`;
const add = (row: 'NEW' | 'OLD', sign: '+' | '-') => `INSERT INTO customer_paid_lateness (company_id, customer_id, paid_count, late_days)
  VALUES (${row}.company_id, ${row}.customer_id, ${sign}(${lateDays(row)} IS NOT NULL), ${sign}coalesce(${lateDays(row)}, 0))
  ON CONFLICT (company_id, customer_id) DO UPDATE SET paid_count = paid_count + excluded.paid_count, late_days = late_days + excluded.late_days;`;
const counted = (row: 'NEW' | 'OLD') => `${row}.closing_reason = 'paid' AND ${row}.closed_date IS NOT NULL`;

const statements = [
  `CREATE TABLE customer_paid_lateness (
  company_id TEXT NOT NULL,
  customer_id TEXT NOT NULL,
  paid_count INTEGER NOT NULL,
  late_days REAL NOT NULL,
  PRIMARY KEY (company_id, customer_id)
) WITHOUT ROWID`,
  `INSERT INTO customer_paid_lateness (company_id, customer_id, paid_count, late_days)
  SELECT company_id, customer_id, count(max(julianday(closed_date) - julianday(due_date), 0)), coalesce(sum(max(julianday(closed_date) - julianday(due_date), 0)), 0)
  FROM invoices WHERE closing_reason = 'paid' AND closed_date IS NOT NULL GROUP BY company_id, customer_id`,
  `CREATE TRIGGER invoices_paid_lateness_insert AFTER INSERT ON invoices WHEN ${counted('NEW')} BEGIN
  ${add('NEW', '+')}
END`,
  `CREATE TRIGGER invoices_paid_lateness_delete AFTER DELETE ON invoices WHEN ${counted('OLD')} BEGIN
  ${add('OLD', '-')}
END`,
  `CREATE TRIGGER invoices_paid_lateness_update AFTER UPDATE OF company_id, customer_id, closing_reason, closed_date, due_date ON invoices
  WHEN (${counted('OLD')}) OR (${counted('NEW')}) BEGIN
  ${add('OLD', '-')}
  ${add('NEW', '+')}
END`,
  `CREATE INDEX invoices_open_forecast ON invoices(company_id, customer_id, customer_name, due_date, balance, id)
  WHERE closing_reason IS NULL AND balance > 0`,
  `CREATE INDEX insights_pay_date_prediction ON insights(company_id, invoice_id, insight_type, valid_to, json_extract(payload_json, '$.predicted_date'))
  WHERE insight_type = 'invoice_pay_date_prediction' AND valid_to IS NULL AND invoice_id IS NOT NULL`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
