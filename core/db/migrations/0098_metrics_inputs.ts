/**
 * The collection metrics at a million invoices. They need the receivables at the end of each of
 * the last 13 month ends: invoice totals and settled payments grouped by the dates that decide
 * when they count (issued, due, written off, paid). Grouping a million invoices and a million
 * payments took seconds, so both groupings are kept by triggers in the same transaction as every
 * write (about 18k and 100k rows at 1M invoices). `written_off` is the closing date of an invoice
 * closed by a credit memo or write-off ('' when it has none), and '9999-12-31' for any other
 * invoice: "written off after the date" then reads the same for both. The overpaid invoices,
 * which the metrics read one by one, get a partial index.
 */
import { type Kysely, sql } from 'kysely';

export const NOT_WRITTEN_OFF = '9999-12-31';
const writtenOff = (i: string) => `coalesce(CASE WHEN ${i}.closing_reason IN ('credit_memo','written_off') THEN coalesce(${i}.closed_date, '') END, '${NOT_WRITTEN_OFF}')`;
const settled = (p: string) => `${p}.status IN ('PAID','PARTIAL')`;
const invoiceKeyChanged = `OLD.company_id IS NOT NEW.company_id OR OLD.invoice_date IS NOT NEW.invoice_date OR OLD.due_date IS NOT NEW.due_date OR ${writtenOff('OLD')} IS NOT ${writtenOff('NEW')}`;

const addInvoice = (row: 'NEW' | 'OLD', sign: '+' | '-') => `INSERT INTO invoice_issue_totals (company_id, invoice_date, due_date, written_off, total_amount)
  VALUES (${row}.company_id, ${row}.invoice_date, ${row}.due_date, ${writtenOff(row)}, ${sign}${row}.total_amount)
  ON CONFLICT (company_id, invoice_date, due_date, written_off) DO UPDATE SET total_amount = total_amount + excluded.total_amount;`;
/** One payment when settled, keyed by its invoice's dates; nothing when the invoice is gone (deleted with it, see below). */
const addPayment = (row: 'NEW' | 'OLD', sign: '+' | '-') => `INSERT INTO payment_issue_totals (company_id, invoice_date, due_date, written_off, payment_date, amount)
  SELECT i.company_id, i.invoice_date, i.due_date, ${writtenOff('i')}, ${row}.payment_date, ${sign}${row}.amount FROM invoices i WHERE i.id = ${row}.invoice_id AND ${settled(row)}
  ON CONFLICT (company_id, invoice_date, due_date, written_off, payment_date) DO UPDATE SET amount = amount + excluded.amount;`;
/** All settled payments of one invoice, keyed by the invoice's dates as in `row`. */
const addInvoicePayments = (row: 'NEW' | 'OLD', sign: '+' | '-') => `INSERT INTO payment_issue_totals (company_id, invoice_date, due_date, written_off, payment_date, amount)
  SELECT ${row}.company_id, ${row}.invoice_date, ${row}.due_date, ${writtenOff(row)}, p.payment_date, ${sign}sum(p.amount) FROM payments p
  WHERE p.invoice_id = ${row}.id AND ${settled('p')} GROUP BY p.payment_date
  ON CONFLICT (company_id, invoice_date, due_date, written_off, payment_date) DO UPDATE SET amount = amount + excluded.amount;`;

const statements = [
  `CREATE TABLE invoice_issue_totals (
  company_id TEXT NOT NULL,
  invoice_date TEXT NOT NULL,
  due_date TEXT NOT NULL,
  written_off TEXT NOT NULL,
  total_amount INTEGER NOT NULL,
  PRIMARY KEY (company_id, invoice_date, due_date, written_off)
) WITHOUT ROWID`,
  `CREATE TABLE payment_issue_totals (
  company_id TEXT NOT NULL,
  invoice_date TEXT NOT NULL,
  due_date TEXT NOT NULL,
  written_off TEXT NOT NULL,
  payment_date TEXT NOT NULL,
  amount INTEGER NOT NULL,
  PRIMARY KEY (company_id, invoice_date, due_date, written_off, payment_date)
) WITHOUT ROWID`,
  `INSERT INTO invoice_issue_totals (company_id, invoice_date, due_date, written_off, total_amount)
  SELECT company_id, invoice_date, due_date, ${writtenOff('invoices')}, sum(total_amount) FROM invoices GROUP BY 1, 2, 3, 4`,
  `INSERT INTO payment_issue_totals (company_id, invoice_date, due_date, written_off, payment_date, amount)
  SELECT i.company_id, i.invoice_date, i.due_date, ${writtenOff('i')}, p.payment_date, sum(p.amount)
  FROM invoices i CROSS JOIN payments p ON p.invoice_id = i.id WHERE ${settled('p')} GROUP BY 1, 2, 3, 4, 5`,
  `CREATE TRIGGER invoices_issue_totals_insert AFTER INSERT ON invoices BEGIN
  ${addInvoice('NEW', '+')}
END`,
  // Before the delete: the payments that cascade with the invoice are still there to take off, and
  // their own delete trigger then finds no invoice and adds nothing.
  `CREATE TRIGGER invoices_issue_totals_delete BEFORE DELETE ON invoices BEGIN
  ${addInvoice('OLD', '-')}
  ${addInvoicePayments('OLD', '-')}
END`,
  `CREATE TRIGGER invoices_issue_totals_update AFTER UPDATE OF company_id, invoice_date, due_date, closing_reason, closed_date, total_amount ON invoices BEGIN
  ${addInvoice('OLD', '-')}
  ${addInvoice('NEW', '+')}
END`,
  `CREATE TRIGGER invoices_payment_issue_totals_update AFTER UPDATE OF company_id, invoice_date, due_date, closing_reason, closed_date ON invoices
  WHEN ${invoiceKeyChanged} BEGIN
  ${addInvoicePayments('OLD', '-')}
  ${addInvoicePayments('NEW', '+')}
END`,
  `CREATE TRIGGER payments_issue_totals_insert AFTER INSERT ON payments WHEN ${settled('NEW')} BEGIN
  ${addPayment('NEW', '+')}
END`,
  `CREATE TRIGGER payments_issue_totals_delete AFTER DELETE ON payments WHEN ${settled('OLD')} BEGIN
  ${addPayment('OLD', '-')}
END`,
  `CREATE TRIGGER payments_issue_totals_update AFTER UPDATE OF invoice_id, status, payment_date, amount ON payments BEGIN
  ${addPayment('OLD', '-')}
  ${addPayment('NEW', '+')}
END`,
  `CREATE INDEX invoices_overpaid ON invoices(company_id, invoice_date) WHERE paid_amount > total_amount`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
