/**
 * Promises followed (issue 41): each promise to pay (a call, note or reply logged with a promise
 * date; an action's commitment date) is judged once, the day after its date plus the grace days:
 * kept (paid by then), broken (the "promise broken" item and the chase resumes) or void (the
 * invoice was credited or written off). One row per promise, so the daily job is idempotent and
 * the promise-kept rates read these rows.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql
    .raw(
      `CREATE TABLE promise_followups (
        id TEXT PRIMARY KEY,
        company_id TEXT NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
        customer_id TEXT NOT NULL,
        invoice_id TEXT,
        source TEXT NOT NULL CHECK (source IN ('communication', 'action')),
        source_id TEXT NOT NULL,
        promised_date TEXT NOT NULL,
        promised_amount INTEGER,
        grace_days INTEGER NOT NULL,
        outcome TEXT NOT NULL CHECK (outcome IN ('kept', 'broken', 'void')),
        paid_amount INTEGER NOT NULL,
        action_id TEXT,
        judged_at TEXT NOT NULL,
        UNIQUE (company_id, source, source_id)
      )`,
    )
    .execute(db);
  await sql.raw(`CREATE INDEX promise_followups_customer ON promise_followups(company_id, customer_id, promised_date)`).execute(db);
  await sql.raw(`CREATE INDEX promise_followups_broken ON promise_followups(company_id, outcome, invoice_id)`).execute(db);
}
