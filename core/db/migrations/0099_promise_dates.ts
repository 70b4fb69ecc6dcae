/**
 * The promise-to-pay kept rate reads the actions whose metadata carries a `commitment_date` in a
 * date range: a handful among a hundred thousand actions, whose JSON was parsed one by one. The
 * date is now an indexed expression (NULL when the metadata is not valid JSON, so a bad row never
 * fails a write), on live actions of an invoice only.
 */
import { type Kysely, sql } from 'kysely';

/** The expression the metrics query repeats word for word, so SQLite uses the index. */
export const COMMITMENT_DATE = `CASE WHEN json_valid(metadata) THEN json_extract(metadata, '$.commitment_date') END`;

export async function up(db: Kysely<any>): Promise<void> {
  await sql.raw(`CREATE INDEX actions_commitment_date ON actions(company_id, ${COMMITMENT_DATE}) WHERE deleted_at IS NULL AND invoice_id IS NOT NULL`).execute(db);
}
