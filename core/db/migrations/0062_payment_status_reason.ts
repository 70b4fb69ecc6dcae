/** Why a payment was voided, settled or failed, as the person who did it wrote it. */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql.raw(`ALTER TABLE payments ADD COLUMN status_reason TEXT`).execute(db);
}
