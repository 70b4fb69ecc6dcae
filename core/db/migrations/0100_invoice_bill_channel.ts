/**
 * How the bill reached the customer (on paper or electronically): a fact of the invoice known the
 * day it is issued, which the pay-date model uses (core/SPEC-DECISIONS.md). The spec has
 * no such field; NULL when the source does not say.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql.raw(`ALTER TABLE invoices ADD COLUMN bill_channel TEXT CHECK (bill_channel IN ('paper', 'electronic'))`).execute(db);
}
