/**
 * A step that ran shows what went out (issue 41): the address its email was sent to, kept with the
 * step at its claim (the subject, body and attachments are on its communication).
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE scheduled_steps ADD COLUMN sent_to TEXT`.execute(db);
}
