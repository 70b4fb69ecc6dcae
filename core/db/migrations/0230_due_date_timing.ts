/**
 * Steps timed from each invoice's due date (issue 22): a sequence's timing ('enrollment_start', the
 * default, or 'due_date'); a step's offset from the due date (negative: before it); and a queue row
 * merged into another one of the same customer and day, so one email lists both invoices.
 */
import { type Kysely, sql } from 'kysely';

const STATEMENTS = [
  `ALTER TABLE sequences ADD COLUMN timing TEXT NOT NULL DEFAULT 'enrollment_start' CHECK (timing IN ('enrollment_start', 'due_date'))`,
  `ALTER TABLE sequence_steps ADD COLUMN due_offset_days INTEGER NOT NULL DEFAULT 0`,
  `ALTER TABLE scheduled_steps ADD COLUMN merged_into TEXT`,
  `CREATE INDEX scheduled_steps_merged ON scheduled_steps(merged_into) WHERE merged_into IS NOT NULL`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of STATEMENTS) await sql.raw(statement).execute(db);
}
