/**
 * The customer list sorts 50,000 customers by open balance: the balance of invoices not closed.
 * customer_invoice_totals.balance also counts closed invoices that kept a balance (written off,
 * credit memo, overpaid), so the open balance gets a table of its own, kept by triggers in the
 * same transaction as every invoice write, independent of 0003's triggers (SQLite does not order
 * triggers, so these never read or write that table). One row per customer that ever had an
 * open invoice; an index on (company_id, open_balance) serves the sort.
 */
import { type Kysely, sql } from 'kysely';

const open = (row: 'NEW' | 'OLD') => `CASE WHEN ${row}.closing_reason IS NULL THEN ${row}.balance ELSE 0 END`;
const add = (row: 'NEW' | 'OLD', sign: '+' | '-') => `INSERT INTO customer_open_totals (company_id, customer_id, open_balance)
  VALUES (${row}.company_id, ${row}.customer_id, ${sign === '-' ? '-' : ''}(${open(row)}))
  ON CONFLICT (company_id, customer_id) DO UPDATE SET open_balance = open_balance + excluded.open_balance;`;

const statements = [
  `CREATE TABLE customer_open_totals (
  company_id TEXT NOT NULL,
  customer_id TEXT NOT NULL,
  open_balance INTEGER NOT NULL,
  PRIMARY KEY (company_id, customer_id)
) WITHOUT ROWID`,
  `CREATE INDEX customer_open_totals_balance ON customer_open_totals(company_id, open_balance)`,
  `INSERT INTO customer_open_totals (company_id, customer_id, open_balance)
  SELECT company_id, customer_id, sum(balance) FROM invoices WHERE closing_reason IS NULL GROUP BY company_id, customer_id`,
  `CREATE TRIGGER invoices_open_totals_insert AFTER INSERT ON invoices WHEN NEW.closing_reason IS NULL AND NEW.balance <> 0 BEGIN
  ${add('NEW', '+')}
END`,
  `CREATE TRIGGER invoices_open_totals_delete AFTER DELETE ON invoices WHEN OLD.closing_reason IS NULL AND OLD.balance <> 0 BEGIN
  ${add('OLD', '-')}
END`,
  `CREATE TRIGGER invoices_open_totals_update AFTER UPDATE OF company_id, customer_id, closing_reason, balance ON invoices BEGIN
  ${add('OLD', '-')}
  ${add('NEW', '+')}
END`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
