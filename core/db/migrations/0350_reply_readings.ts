/**
 * How a customer's reply was read (issue 36), kept with the reply: a promise (its date or amount),
 * a proposed dispute, a question that needs an answer, or none; the sentence it was read from; and,
 * once a person corrected it, who and when (null: the automatic reading). Replies recorded before
 * this are read when they are shown or weighed (core/replies/reading.ts), the same way.
 */
import { type Kysely, sql } from 'kysely';

const statements = [
  `ALTER TABLE communications ADD COLUMN reading_kind TEXT CHECK (reading_kind IN ('promise', 'dispute', 'needs_answer', 'none'))`,
  `ALTER TABLE communications ADD COLUMN reading_date TEXT`,
  `ALTER TABLE communications ADD COLUMN reading_amount INTEGER`,
  `ALTER TABLE communications ADD COLUMN reading_sentence TEXT`,
  `ALTER TABLE communications ADD COLUMN reading_by_user_id TEXT`,
  `ALTER TABLE communications ADD COLUMN reading_by_name TEXT`,
  `ALTER TABLE communications ADD COLUMN reading_corrected_at TEXT`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
