/**
 * Documents a sequence email step attaches (issue 26): a JSON array of attachment kinds
 * (core/documents/attachments.ts), empty for none. A column of sequence_steps, so it syncs with the
 * step (core/sync/tables.ts).
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE sequence_steps ADD COLUMN attach TEXT NOT NULL DEFAULT '[]'`.execute(db);
}
