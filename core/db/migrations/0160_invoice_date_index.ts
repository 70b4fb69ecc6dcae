/**
 * The newest invoice of a company (is the ledger fresh? core/analytics/freshness.ts) in one index
 * step instead of a pass over every invoice of the company.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`CREATE INDEX invoices_company_invoice_date ON invoices(company_id, invoice_date)`.execute(db);
}
