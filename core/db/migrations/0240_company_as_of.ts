/**
 * A company's "as of" date (issue 23): when its ledger is an export cut long ago, analytics,
 * predictions, signals and proposals count from this date instead of today, until cleared (NULL).
 * A column of companies, so it syncs with the company's other rows (core/sync/tables.ts).
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE companies ADD COLUMN as_of_date TEXT`.execute(db);
}
