/**
 * Invoices at a million rows: customer_invoice_totals holds, per customer, the count, sums and
 * oldest due dates of its invoices, kept by triggers in the same transaction as every invoice
 * write. group_by=customer pages through its 50k rows instead of aggregating a million invoices
 * per request, and the summary counts customers with an open or overdue balance from it. Only
 * date-free facts are stored (today moves the buckets), so nothing here goes stale overnight.
 * The table has no secondary index on purpose: each invoice insert then costs one primary-key
 * upsert, and scanning 50k small rows to sort a page is cheaper than keeping four sort indexes.
 *
 * invoices_customer gains the columns that status, aging and group totals read (closing_reason,
 * balance, total_amount) after its due date: the facets of customer-level filters (AR owner, sales
 * owner, person) and the customer groups of a filtered list are then counted from the index alone,
 * in customer order, without a table lookup per invoice.
 */
import { type Kysely, sql } from 'kysely';

const statements = [
  `DROP INDEX invoices_customer`,
  `CREATE INDEX invoices_customer ON invoices(company_id, customer_id, due_date, closing_reason, balance, total_amount)`,
  `CREATE TABLE customer_invoice_totals (
  company_id TEXT NOT NULL,
  customer_id TEXT NOT NULL,
  customer_name TEXT NOT NULL,
  invoice_count INTEGER NOT NULL,
  total_amount INTEGER NOT NULL,
  balance INTEGER NOT NULL,
  oldest_due_date TEXT NOT NULL,
  oldest_open_due_date TEXT,
  PRIMARY KEY (company_id, customer_id)
) WITHOUT ROWID`,
  `INSERT INTO customer_invoice_totals (company_id, customer_id, customer_name, invoice_count, total_amount, balance, oldest_due_date, oldest_open_due_date)
  SELECT company_id, customer_id, max(customer_name), count(*), sum(total_amount), sum(balance), min(due_date),
         min(CASE WHEN closing_reason IS NULL AND balance > 0 THEN due_date END)
  FROM invoices GROUP BY company_id, customer_id`,
  // min(a, NULL) is NULL in SQLite, hence the coalesce for the oldest open due date.
  `CREATE TRIGGER invoices_customer_totals_insert AFTER INSERT ON invoices BEGIN
  INSERT INTO customer_invoice_totals (company_id, customer_id, customer_name, invoice_count, total_amount, balance, oldest_due_date, oldest_open_due_date)
  VALUES (NEW.company_id, NEW.customer_id, NEW.customer_name, 1, NEW.total_amount, NEW.balance, NEW.due_date,
          CASE WHEN NEW.closing_reason IS NULL AND NEW.balance > 0 THEN NEW.due_date END)
  ON CONFLICT (company_id, customer_id) DO UPDATE SET
    customer_name = excluded.customer_name,
    invoice_count = invoice_count + 1,
    total_amount = total_amount + excluded.total_amount,
    balance = balance + excluded.balance,
    oldest_due_date = min(oldest_due_date, excluded.oldest_due_date),
    oldest_open_due_date = coalesce(min(oldest_open_due_date, excluded.oldest_open_due_date), oldest_open_due_date, excluded.oldest_open_due_date);
END`,
  `CREATE TRIGGER invoices_customer_totals_delete AFTER DELETE ON invoices BEGIN
  UPDATE customer_invoice_totals SET
    invoice_count = invoice_count - 1,
    total_amount = total_amount - OLD.total_amount,
    balance = balance - OLD.balance,
    oldest_due_date = coalesce((SELECT min(due_date) FROM invoices WHERE company_id = OLD.company_id AND customer_id = OLD.customer_id), oldest_due_date),
    oldest_open_due_date = (SELECT min(due_date) FROM invoices WHERE company_id = OLD.company_id AND customer_id = OLD.customer_id AND closing_reason IS NULL AND balance > 0)
  WHERE company_id = OLD.company_id AND customer_id = OLD.customer_id;
  DELETE FROM customer_invoice_totals WHERE company_id = OLD.company_id AND customer_id = OLD.customer_id AND invoice_count = 0;
END`,
  // The same customer: adjust the sums, and look up the oldest due dates again only when they can have moved.
  `CREATE TRIGGER invoices_customer_totals_update AFTER UPDATE OF customer_name, due_date, closing_reason, total_amount, balance ON invoices
WHEN OLD.company_id = NEW.company_id AND OLD.customer_id = NEW.customer_id BEGIN
  UPDATE customer_invoice_totals SET
    customer_name = NEW.customer_name,
    total_amount = total_amount - OLD.total_amount + NEW.total_amount,
    balance = balance - OLD.balance + NEW.balance,
    oldest_due_date = CASE WHEN NEW.due_date = OLD.due_date THEN oldest_due_date
      ELSE (SELECT min(due_date) FROM invoices WHERE company_id = NEW.company_id AND customer_id = NEW.customer_id) END,
    oldest_open_due_date = CASE
      WHEN NEW.due_date = OLD.due_date AND NEW.closing_reason IS OLD.closing_reason AND (NEW.balance > 0) = (OLD.balance > 0) THEN oldest_open_due_date
      ELSE (SELECT min(due_date) FROM invoices WHERE company_id = NEW.company_id AND customer_id = NEW.customer_id AND closing_reason IS NULL AND balance > 0) END
  WHERE company_id = NEW.company_id AND customer_id = NEW.customer_id;
END`,
  // Moved to another customer: take it out of the old customer's totals and add it to the new one's.
  `CREATE TRIGGER invoices_customer_totals_move AFTER UPDATE OF company_id, customer_id ON invoices
WHEN OLD.company_id <> NEW.company_id OR OLD.customer_id <> NEW.customer_id BEGIN
  UPDATE customer_invoice_totals SET
    invoice_count = invoice_count - 1,
    total_amount = total_amount - OLD.total_amount,
    balance = balance - OLD.balance
  WHERE company_id = OLD.company_id AND customer_id = OLD.customer_id;
  DELETE FROM customer_invoice_totals WHERE company_id = OLD.company_id AND customer_id = OLD.customer_id AND invoice_count = 0;
  INSERT INTO customer_invoice_totals (company_id, customer_id, customer_name, invoice_count, total_amount, balance, oldest_due_date, oldest_open_due_date)
  VALUES (NEW.company_id, NEW.customer_id, NEW.customer_name, 1, NEW.total_amount, NEW.balance, NEW.due_date, NULL)
  ON CONFLICT (company_id, customer_id) DO UPDATE SET
    customer_name = excluded.customer_name,
    invoice_count = invoice_count + 1,
    total_amount = total_amount + excluded.total_amount,
    balance = balance + excluded.balance;
  UPDATE customer_invoice_totals SET
    oldest_due_date = coalesce((SELECT min(i.due_date) FROM invoices i
      WHERE i.company_id = customer_invoice_totals.company_id AND i.customer_id = customer_invoice_totals.customer_id), oldest_due_date),
    oldest_open_due_date = (SELECT min(i.due_date) FROM invoices i
      WHERE i.company_id = customer_invoice_totals.company_id AND i.customer_id = customer_invoice_totals.customer_id
        AND i.closing_reason IS NULL AND i.balance > 0)
  WHERE (company_id = OLD.company_id AND customer_id = OLD.customer_id) OR (company_id = NEW.company_id AND customer_id = NEW.customer_id);
END`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
