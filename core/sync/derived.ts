/**
 * What triggers keep from other rows on every database, and how to compute one company's share of
 * it from scratch: the aggregates (migrations 0001, 0003, 0004, 0050, 0097, 0098, 0470) and the full-text
 * indexes. Never synced (each replica keeps its own); a bulk download sets their triggers aside and
 * rebuilds them here once, in the same transaction (core/sync/bulk.ts). Each rebuild gives the
 * rows the insert triggers would have accumulated: the same keys, sums, minimums, and for a
 * customer's name the one of the invoice written last. Each reads the table in its stored order
 * (the unary + keeps SQLite off the company's indexes, through which it read the rows in random
 * order, several times slower).
 */
import type BetterSqlite3 from 'better-sqlite3';
import { NOT_WRITTEN_OFF } from '../db/migrations/0098_metrics_inputs';
import { teamBookRebuild } from '../db/migrations/0470_team_books';

const teamBooks = teamBookRebuild((i) => `+${i}.company_id = @company`);
const writtenOff = (i: string) => `coalesce(CASE WHEN ${i}.closing_reason IN ('credit_memo','written_off') THEN coalesce(${i}.closed_date, '') END, '${NOT_WRITTEN_OFF}')`;

/** Each aggregate table and the INSERT that fills a company's rows (its one parameter: @company). */
export const AGGREGATES: Record<string, string> = {
  invoice_due_totals: `INSERT INTO invoice_due_totals (company_id, due_date, state, invoice_count, nonzero_count, total_amount, balance)
    SELECT company_id, due_date, coalesce(closing_reason, 'open'), count(*), sum(balance <> 0), sum(total_amount), sum(balance)
    FROM invoices WHERE +company_id = @company GROUP BY due_date, coalesce(closing_reason, 'open')`,
  customer_invoice_totals: `INSERT INTO customer_invoice_totals (company_id, customer_id, customer_name, invoice_count, total_amount, balance, oldest_due_date, oldest_open_due_date)
    SELECT g.company_id, g.customer_id, (SELECT customer_name FROM invoices WHERE seq = g.last_seq), g.n, g.total_amount, g.balance, g.oldest_due_date, g.oldest_open_due_date
    FROM (SELECT company_id, customer_id, max(seq) AS last_seq, count(*) AS n, sum(total_amount) AS total_amount, sum(balance) AS balance, min(due_date) AS oldest_due_date,
                 min(CASE WHEN closing_reason IS NULL AND balance > 0 THEN due_date END) AS oldest_open_due_date
          FROM invoices WHERE +company_id = @company GROUP BY customer_id) g`,
  customer_open_totals: `INSERT INTO customer_open_totals (company_id, customer_id, open_balance)
    SELECT company_id, customer_id, sum(balance) FROM invoices WHERE +company_id = @company AND closing_reason IS NULL AND balance <> 0 GROUP BY customer_id`,
  payment_day_totals: `INSERT INTO payment_day_totals (company_id, payment_date, status, payment_method, payment_count, amount)
    SELECT company_id, payment_date, status, payment_method, count(*), sum(amount) FROM payments WHERE +company_id = @company GROUP BY payment_date, status, payment_method`,
  customer_paid_lateness: `INSERT INTO customer_paid_lateness (company_id, customer_id, paid_count, late_days)
    SELECT company_id, customer_id, count(*), sum(max(julianday(closed_date) - julianday(due_date), 0))
    FROM invoices WHERE +company_id = @company AND closing_reason = 'paid' AND closed_date IS NOT NULL GROUP BY customer_id`,
  invoice_issue_totals: `INSERT INTO invoice_issue_totals (company_id, invoice_date, due_date, written_off, total_amount)
    SELECT company_id, invoice_date, due_date, ${writtenOff('invoices')}, sum(total_amount) FROM invoices WHERE +company_id = @company GROUP BY 2, 3, 4`,
  payment_issue_totals: `INSERT INTO payment_issue_totals (company_id, invoice_date, due_date, written_off, payment_date, amount)
    SELECT i.company_id, i.invoice_date, i.due_date, ${writtenOff('i')}, p.payment_date, sum(p.amount)
    FROM payments p JOIN invoices i ON i.id = p.invoice_id
    WHERE +p.company_id = @company AND +i.company_id = @company AND p.status IN ('PAID','PARTIAL') GROUP BY 2, 3, 4, 5`,
  // The dues before the days, whose receivable is summed from them.
  team_book_dues: teamBooks.team_book_dues,
  team_book_days: teamBooks.team_book_days,
};

/** The full-text indexes over synced tables: external-content FTS5 tables keyed by the content table's rowid. */
export const FULL_TEXT = [
  { table: 'invoice_number_fts', content: 'invoices', rowid: 'seq', columns: ['invoice_number'] },
  { table: 'customer_name_fts', content: 'customers', rowid: 'rowid', columns: ['name'] },
] as const;

/** Tables no replica receives: kept on each database from its own rows. */
export const DERIVED_TABLES: ReadonlySet<string> = new Set([...Object.keys(AGGREGATES), ...FULL_TEXT.map((f) => f.table)]);

/** Takes a company's rows out of the full-text indexes (before those rows are deleted without their triggers). */
export function dropFullText(sqlite: BetterSqlite3.Database, companyId: string): void {
  for (const f of FULL_TEXT) {
    const columns = f.columns.join(', ');
    sqlite.prepare(`INSERT INTO ${f.table} (${f.table}, rowid, ${columns}) SELECT 'delete', ${f.rowid}, ${columns} FROM ${f.content} WHERE company_id = ?`).run(companyId);
  }
}

/** Replaces a company's aggregate rows with ones computed from its rows, and indexes its rows for full-text search. */
export function rebuildDerived(sqlite: BetterSqlite3.Database, companyId: string): void {
  for (const [table, insert] of Object.entries(AGGREGATES)) {
    sqlite.prepare(`DELETE FROM ${table} WHERE company_id = ?`).run(companyId);
    sqlite.prepare(insert).run({ company: companyId });
  }
  for (const f of FULL_TEXT) {
    const columns = f.columns.join(', ');
    sqlite.prepare(`INSERT INTO ${f.table} (rowid, ${columns}) SELECT ${f.rowid}, ${columns} FROM ${f.content} WHERE company_id = ? ORDER BY ${f.rowid}`).run(companyId);
  }
}
