/**
 * Holds the contact rule did not know (issue 36): a person's stop on a customer (a pause, or "do not
 * contact"), with who and why; the company's promise grace days (a promise holds until its date plus
 * these); and the hold kinds an owner forbids sending through ("Send anyway").
 */
import { type Kysely, sql } from 'kysely';

const statements = [
  `ALTER TABLE customers ADD COLUMN contact_stop TEXT CHECK (contact_stop IN ('paused', 'do_not_contact'))`,
  `ALTER TABLE customers ADD COLUMN contact_stop_reason TEXT`,
  `ALTER TABLE customers ADD COLUMN contact_stop_by TEXT`,
  `ALTER TABLE customers ADD COLUMN contact_stop_at TEXT`,
  `ALTER TABLE companies ADD COLUMN promise_grace_days INTEGER NOT NULL DEFAULT 3 CHECK (promise_grace_days BETWEEN 0 AND 60)`,
  `ALTER TABLE companies ADD COLUMN contact_no_override TEXT NOT NULL DEFAULT '[]'`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
