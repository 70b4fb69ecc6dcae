/**
 * The team view at a million invoices (issue 41): each AR owner's book summed per day, kept by
 * triggers in the same transaction as every write to invoices, payments and a customer's AR owner,
 * so the view reads a few thousand rows instead of grouping a million invoices per request.
 * Owner '' is the customers with none. A customer moving to another owner moves its invoices' and
 * payments' sums in the same transaction, so a reassignment shows at once.
 *
 * team_book_days, per owner and day: `sales`, invoice totals by invoice date; `collected`, settled
 * payments by payment date; `receivable`, the day's change in the book's receivables. The
 * receivables are those of "regular" invoices: a positive total, open or closed as paid. For them
 * the receivable at the end of a date D is exactly (total - settled payments dated by D) once
 * issued, and 0 before (a paid one is closed on its last payment's date, when it reaches 0), so each
 * adds its total on its invoice date and takes each settled payment off on the later of the
 * payment's and the invoice's date. One closed by a credit memo or written off with nothing paid
 * owes its total from its date to its closing date: it adds it on the one and takes it off on the
 * other. The sum of a book's rows up to D is then its receivables at D but those of the invoices
 * left out (closed as overpaid, or by a credit memo or write-off after payments, or with no closing
 * date), which the view reads one by one, only those closed after a date (invoices_closed_irregular);
 * over all days, its open balance now. A credit note open with nothing paid is never receivable.
 * team_book_dues: the receivable changes again, by the invoice's due date too, so the part not yet
 * due at a date is read from the rows due on or after it (a few weeks of due dates).
 */
import { type Kysely, sql } from 'kysely';

type Row = 'NEW' | 'OLD';
const SETTLED = `IN ('PAID','PARTIAL')`;
/** An invoice whose receivable the days hold (see above). */
export const regular = (i: string) => `(${i}.total_amount > 0 AND (${i}.closing_reason IS NULL OR ${i}.closing_reason = 'paid'))`;
/** Closed by a credit memo or written off, on a date, with nothing paid: owed from its date to its closing. */
export const closedUnpaid = (i: string) =>
  `(${i}.total_amount > 0 AND ${i}.closing_reason IN ('credit_memo','written_off') AND ${i}.paid_amount = 0 AND ${i}.closed_date IS NOT NULL)`;
/** The invoices whose receivable the days hold. */
const kept = (i: string) => `(${regular(i)} OR ${closedUnpaid(i)})`;
const owner = (c: string) => `coalesce(${c}.ar_owner_id, '')`;
const DAYS_MERGE = `ON CONFLICT (company_id, owner_id, day) DO UPDATE SET sales = sales + excluded.sales, collected = collected + excluded.collected, receivable = receivable + excluded.receivable;`;
const DUES_MERGE = `ON CONFLICT (company_id, due_date, owner_id, day) DO UPDATE SET receivable = receivable + excluded.receivable;`;
const DAYS = 'INSERT INTO team_book_days (company_id, owner_id, day, sales, collected, receivable)';
const DUES = 'INSERT INTO team_book_dues (company_id, due_date, owner_id, day, receivable)';

/** One invoice's own sums (not its payments'), under its customer's owner; nothing when the customer is gone. */
function invoiceRows(r: Row, sign: '' | '-'): string {
  const flip = sign === '-' ? '' : '-';
  const closing = `max(${r}.closed_date, ${r}.invoice_date)`;
  return `${DAYS} SELECT ${r}.company_id, ${owner('c')}, ${r}.invoice_date, ${sign}${r}.total_amount, 0, ${sign}(CASE WHEN ${kept(r)} THEN ${r}.total_amount ELSE 0 END)
  FROM customers c WHERE c.id = ${r}.customer_id ${DAYS_MERGE}
  ${DUES} SELECT ${r}.company_id, ${r}.due_date, ${owner('c')}, ${r}.invoice_date, ${sign}${r}.total_amount
  FROM customers c WHERE c.id = ${r}.customer_id AND ${kept(r)} ${DUES_MERGE}
  ${DAYS} SELECT ${r}.company_id, ${owner('c')}, ${closing}, 0, 0, ${flip}${r}.total_amount
  FROM customers c WHERE c.id = ${r}.customer_id AND ${closedUnpaid(r)} ${DAYS_MERGE}
  ${DUES} SELECT ${r}.company_id, ${r}.due_date, ${owner('c')}, ${closing}, ${flip}${r}.total_amount
  FROM customers c WHERE c.id = ${r}.customer_id AND ${closedUnpaid(r)} ${DUES_MERGE}`;
}

/** All settled payments of one invoice (as in `r`): collected by payment date, and off its receivable. */
function invoicePaymentRows(r: Row, sign: '' | '-'): string {
  const flip = sign === '-' ? '' : '-';
  return `${DAYS} SELECT ${r}.company_id, ${owner('c')}, p.payment_date, 0, ${sign}sum(p.amount), 0
  FROM customers c JOIN payments p ON p.invoice_id = ${r}.id WHERE c.id = ${r}.customer_id AND p.status ${SETTLED} GROUP BY p.payment_date ${DAYS_MERGE}
  ${DAYS} SELECT ${r}.company_id, ${owner('c')}, max(p.payment_date, ${r}.invoice_date), 0, 0, ${flip}sum(p.amount)
  FROM customers c JOIN payments p ON p.invoice_id = ${r}.id WHERE c.id = ${r}.customer_id AND ${regular(r)} AND p.status ${SETTLED} GROUP BY 3 ${DAYS_MERGE}
  ${DUES} SELECT ${r}.company_id, ${r}.due_date, ${owner('c')}, max(p.payment_date, ${r}.invoice_date), ${flip}sum(p.amount)
  FROM customers c JOIN payments p ON p.invoice_id = ${r}.id WHERE c.id = ${r}.customer_id AND ${regular(r)} AND p.status ${SETTLED} GROUP BY 4 ${DUES_MERGE}`;
}

/** One payment (as in `r`) when settled, under its invoice's owner; nothing when the invoice is gone (deleted with it). */
function paymentRows(r: Row, sign: '' | '-'): string {
  const flip = sign === '-' ? '' : '-';
  return `${DAYS} SELECT i.company_id, ${owner('c')}, ${r}.payment_date, 0, ${sign}${r}.amount, 0
  FROM invoices i JOIN customers c ON c.id = i.customer_id WHERE i.id = ${r}.invoice_id AND ${r}.status ${SETTLED} ${DAYS_MERGE}
  ${DAYS} SELECT i.company_id, ${owner('c')}, max(${r}.payment_date, i.invoice_date), 0, 0, ${flip}${r}.amount
  FROM invoices i JOIN customers c ON c.id = i.customer_id WHERE i.id = ${r}.invoice_id AND ${r}.status ${SETTLED} AND ${regular('i')} ${DAYS_MERGE}
  ${DUES} SELECT i.company_id, i.due_date, ${owner('c')}, max(${r}.payment_date, i.invoice_date), ${flip}${r}.amount
  FROM invoices i JOIN customers c ON c.id = i.customer_id WHERE i.id = ${r}.invoice_id AND ${r}.status ${SETTLED} AND ${regular('i')} ${DUES_MERGE}`;
}

/**
 * A customer's whole book (its invoices and their settled payments) under owner `who`, with `sign`.
 * Its invoices are read through invoices_customer: the grouping keys are expressions and the total
 * is tested as +total_amount, else SQLite walks the company's invoices by date or amount instead.
 */
function customerRows(who: string, sign: '' | '-'): string {
  const flip = sign === '-' ? '' : '-';
  const mine = `i.company_id = OLD.company_id AND i.customer_id = OLD.id`;
  const reg = regular('i').replace('i.total_amount', '+i.total_amount');
  const unpaid = closedUnpaid('i').replace('i.total_amount', '+i.total_amount');
  const day = (d: string) => `${d} || ''`;
  return `${DAYS} SELECT OLD.company_id, coalesce(${who}, ''), i.invoice_date, ${sign}sum(i.total_amount), 0, ${sign}sum(CASE WHEN ${reg} OR ${unpaid} THEN i.total_amount ELSE 0 END)
  FROM invoices i WHERE ${mine} GROUP BY ${day('i.invoice_date')} ${DAYS_MERGE}
  ${DUES} SELECT OLD.company_id, i.due_date, coalesce(${who}, ''), i.invoice_date, ${sign}sum(i.total_amount)
  FROM invoices i WHERE ${mine} AND (${reg} OR ${unpaid}) GROUP BY ${day('i.due_date')}, ${day('i.invoice_date')} ${DUES_MERGE}
  ${DAYS} SELECT OLD.company_id, coalesce(${who}, ''), max(i.closed_date, i.invoice_date), 0, 0, ${flip}sum(i.total_amount)
  FROM invoices i WHERE ${mine} AND ${unpaid} GROUP BY ${day('max(i.closed_date, i.invoice_date)')} ${DAYS_MERGE}
  ${DUES} SELECT OLD.company_id, i.due_date, coalesce(${who}, ''), max(i.closed_date, i.invoice_date), ${flip}sum(i.total_amount)
  FROM invoices i WHERE ${mine} AND ${unpaid} GROUP BY ${day('i.due_date')}, ${day('max(i.closed_date, i.invoice_date)')} ${DUES_MERGE}
  ${DAYS} SELECT OLD.company_id, coalesce(${who}, ''), p.payment_date, 0, ${sign}sum(p.amount), 0
  FROM invoices i JOIN payments p ON p.invoice_id = i.id WHERE ${mine} AND p.status ${SETTLED} GROUP BY ${day('p.payment_date')} ${DAYS_MERGE}
  ${DAYS} SELECT OLD.company_id, coalesce(${who}, ''), max(p.payment_date, i.invoice_date), 0, 0, ${flip}sum(p.amount)
  FROM invoices i JOIN payments p ON p.invoice_id = i.id WHERE ${mine} AND ${reg} AND p.status ${SETTLED} GROUP BY ${day('max(p.payment_date, i.invoice_date)')} ${DAYS_MERGE}
  ${DUES} SELECT OLD.company_id, i.due_date, coalesce(${who}, ''), max(p.payment_date, i.invoice_date), ${flip}sum(p.amount)
  FROM invoices i JOIN payments p ON p.invoice_id = i.id WHERE ${mine} AND ${reg} AND p.status ${SETTLED} GROUP BY ${day('i.due_date')}, ${day('max(p.payment_date, i.invoice_date)')} ${DUES_MERGE}`;
}

const invoiceKeyChanged = `OLD.company_id IS NOT NEW.company_id OR OLD.customer_id IS NOT NEW.customer_id OR OLD.invoice_date IS NOT NEW.invoice_date
  OR OLD.due_date IS NOT NEW.due_date OR OLD.total_amount IS NOT NEW.total_amount OR ${regular('OLD')} IS NOT ${regular('NEW')}
  OR ${closedUnpaid('OLD')} IS NOT ${closedUnpaid('NEW')} OR (${closedUnpaid('NEW')} AND OLD.closed_date IS NOT NEW.closed_date)`;

/**
 * A company's rows from scratch (the migration's fill, and core/sync/derived.ts after a bulk
 * download), `company` filtering a table's rows by alias. The dues first: the days' receivable is their sum by
 * day, so invoices and payments are each read twice, not three times.
 */
export function teamBookRebuild(company: (i: string) => string): { team_book_dues: string; team_book_days: string } {
  return {
    team_book_dues: `${DUES} SELECT company_id, due_date, owner_id, day, sum(amount) FROM (
      SELECT i.company_id, i.due_date, ${owner('c')} AS owner_id, i.invoice_date AS day, i.total_amount AS amount
        FROM invoices i JOIN customers c ON c.id = i.customer_id WHERE ${company('i')} AND ${kept('i')}
      UNION ALL
      SELECT i.company_id, i.due_date, ${owner('c')}, max(i.closed_date, i.invoice_date), -i.total_amount
        FROM invoices i JOIN customers c ON c.id = i.customer_id WHERE ${company('i')} AND ${closedUnpaid('i')}
      UNION ALL
      SELECT i.company_id, i.due_date, ${owner('c')}, max(p.payment_date, i.invoice_date), -p.amount
        FROM payments p JOIN invoices i ON i.id = p.invoice_id JOIN customers c ON c.id = i.customer_id WHERE ${company('i')} AND ${regular('i')} AND p.status ${SETTLED}
    ) WHERE true GROUP BY 1, 2, 3, 4`,
    team_book_days: `${DAYS} SELECT company_id, owner_id, day, sum(sales), sum(collected), sum(receivable) FROM (
      SELECT i.company_id, ${owner('c')} AS owner_id, i.invoice_date AS day, i.total_amount AS sales, 0 AS collected, 0 AS receivable
        FROM invoices i JOIN customers c ON c.id = i.customer_id WHERE ${company('i')}
      UNION ALL
      SELECT i.company_id, ${owner('c')}, p.payment_date, 0, p.amount, 0
        FROM payments p JOIN invoices i ON i.id = p.invoice_id JOIN customers c ON c.id = i.customer_id WHERE ${company('i')} AND p.status ${SETTLED}
      UNION ALL
      SELECT d.company_id, d.owner_id, d.day, 0, 0, d.receivable FROM team_book_dues d WHERE ${company('d')}
    ) WHERE true GROUP BY 1, 2, 3`,
  };
}

const statements = [
  `CREATE TABLE team_book_days (
  company_id TEXT NOT NULL,
  owner_id TEXT NOT NULL,
  day TEXT NOT NULL,
  sales INTEGER NOT NULL,
  collected INTEGER NOT NULL,
  receivable INTEGER NOT NULL,
  PRIMARY KEY (company_id, owner_id, day)
) WITHOUT ROWID`,
  `CREATE TABLE team_book_dues (
  company_id TEXT NOT NULL,
  due_date TEXT NOT NULL,
  owner_id TEXT NOT NULL,
  day TEXT NOT NULL,
  receivable INTEGER NOT NULL,
  PRIMARY KEY (company_id, due_date, owner_id, day)
) WITHOUT ROWID`,
  teamBookRebuild(() => 'true').team_book_dues,
  teamBookRebuild(() => 'true').team_book_days,
  `CREATE TRIGGER invoices_team_book_insert AFTER INSERT ON invoices BEGIN
  ${invoiceRows('NEW', '')}
END`,
  // Before the delete: its payments, which cascade with it, are still there to take off; their own
  // delete trigger then finds no invoice and takes nothing.
  `CREATE TRIGGER invoices_team_book_delete BEFORE DELETE ON invoices BEGIN
  ${invoiceRows('OLD', '-')}
  ${invoicePaymentRows('OLD', '-')}
END`,
  `CREATE TRIGGER invoices_team_book_update AFTER UPDATE OF company_id, customer_id, invoice_date, due_date, total_amount, closing_reason, closed_date, paid_amount ON invoices
  WHEN ${invoiceKeyChanged} BEGIN
  ${invoiceRows('OLD', '-')}
  ${invoicePaymentRows('OLD', '-')}
  ${invoiceRows('NEW', '')}
  ${invoicePaymentRows('NEW', '')}
END`,
  `CREATE TRIGGER payments_team_book_insert AFTER INSERT ON payments WHEN NEW.status ${SETTLED} BEGIN
  ${paymentRows('NEW', '')}
END`,
  `CREATE TRIGGER payments_team_book_delete AFTER DELETE ON payments WHEN OLD.status ${SETTLED} BEGIN
  ${paymentRows('OLD', '-')}
END`,
  `CREATE TRIGGER payments_team_book_update AFTER UPDATE OF invoice_id, status, payment_date, amount ON payments BEGIN
  ${paymentRows('OLD', '-')}
  ${paymentRows('NEW', '')}
END`,
  `CREATE TRIGGER customers_team_book_owner AFTER UPDATE OF ar_owner_id ON customers WHEN OLD.ar_owner_id IS NOT NEW.ar_owner_id BEGIN
  ${customerRows('OLD.ar_owner_id', '-')}
  ${customerRows('NEW.ar_owner_id', '')}
END`,
  // The invoices the days leave out, read one by one for the receivables at a past date (covering: no invoice row is read).
  `CREATE INDEX invoices_closed_irregular ON invoices(company_id, closed_date, invoice_date, due_date, total_amount, customer_id, id, closing_reason, paid_amount)
  WHERE closing_reason IN ('overpaid','credit_memo','written_off') AND total_amount > 0`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
