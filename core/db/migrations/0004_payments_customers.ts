/**
 * Payments, customers, labels and email connections: the aggregates and constraints their rules need.
 * - payment_day_totals: per company, payment date, status and method, the count and sum of payments,
 *   kept by triggers, so the payment list's `count` is a sum over a few thousand rows instead of a
 *   scan of a million payments.
 * - indexes for the payment list filtered by status or method, in date order.
 * - at most one billing contact per customer, one default email connection per company, and label
 *   names unique regardless of case.
 */
import { type Kysely, sql } from 'kysely';

const statements = [
  `CREATE TABLE payment_day_totals (
  company_id TEXT NOT NULL,
  payment_date TEXT NOT NULL,
  status TEXT NOT NULL,
  payment_method TEXT NOT NULL,
  payment_count INTEGER NOT NULL,
  amount INTEGER NOT NULL,
  PRIMARY KEY (company_id, payment_date, status, payment_method)
) WITHOUT ROWID`,
  `INSERT INTO payment_day_totals (company_id, payment_date, status, payment_method, payment_count, amount)
  SELECT company_id, payment_date, status, payment_method, count(*), sum(amount) FROM payments
  GROUP BY company_id, payment_date, status, payment_method`,
  `CREATE TRIGGER payments_totals_insert AFTER INSERT ON payments BEGIN
  INSERT INTO payment_day_totals (company_id, payment_date, status, payment_method, payment_count, amount)
  VALUES (NEW.company_id, NEW.payment_date, NEW.status, NEW.payment_method, 1, NEW.amount)
  ON CONFLICT (company_id, payment_date, status, payment_method) DO UPDATE SET
    payment_count = payment_count + 1,
    amount = amount + excluded.amount;
END`,
  `CREATE TRIGGER payments_totals_delete AFTER DELETE ON payments BEGIN
  UPDATE payment_day_totals SET payment_count = payment_count - 1, amount = amount - OLD.amount
  WHERE company_id = OLD.company_id AND payment_date = OLD.payment_date AND status = OLD.status AND payment_method = OLD.payment_method;
  DELETE FROM payment_day_totals
  WHERE company_id = OLD.company_id AND payment_date = OLD.payment_date AND status = OLD.status AND payment_method = OLD.payment_method AND payment_count = 0;
END`,
  `CREATE TRIGGER payments_totals_update AFTER UPDATE OF company_id, payment_date, status, payment_method, amount ON payments BEGIN
  UPDATE payment_day_totals SET payment_count = payment_count - 1, amount = amount - OLD.amount
  WHERE company_id = OLD.company_id AND payment_date = OLD.payment_date AND status = OLD.status AND payment_method = OLD.payment_method;
  DELETE FROM payment_day_totals
  WHERE company_id = OLD.company_id AND payment_date = OLD.payment_date AND status = OLD.status AND payment_method = OLD.payment_method AND payment_count = 0;
  INSERT INTO payment_day_totals (company_id, payment_date, status, payment_method, payment_count, amount)
  VALUES (NEW.company_id, NEW.payment_date, NEW.status, NEW.payment_method, 1, NEW.amount)
  ON CONFLICT (company_id, payment_date, status, payment_method) DO UPDATE SET
    payment_count = payment_count + 1,
    amount = amount + excluded.amount;
END`,
  // Filtered pages walk these in date order instead of skipping through every payment.
  `CREATE INDEX payments_company_status ON payments(company_id, status, payment_date, id)`,
  `CREATE INDEX payments_company_method ON payments(company_id, payment_method, payment_date, id)`,
  `CREATE UNIQUE INDEX customer_contacts_one_billing ON customer_contacts(customer_id) WHERE is_billing = 1`,
  `CREATE UNIQUE INDEX email_connections_one_default ON email_connections(company_id) WHERE is_default = 1`,
  `CREATE UNIQUE INDEX labels_name_nocase ON labels(company_id, name COLLATE NOCASE)`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
