/** The last send of a company through a connection, for the email health warning. */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql.raw(`CREATE INDEX email_outbox_connection ON email_outbox(company_id, email_connection_id, updated_at)`).execute(db);
}
