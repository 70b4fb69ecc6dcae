/**
 * The hour of the night a watched import runs (issue 40), in the company's time zone: after the
 * ERP's nightly export has landed. 3 (03:00) unless the owner says otherwise.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql.raw(`ALTER TABLE import_watches ADD COLUMN hour INTEGER NOT NULL DEFAULT 3 CHECK (hour BETWEEN 0 AND 23)`).execute(db);
}
