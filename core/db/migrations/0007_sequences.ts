/**
 * Sequences: what sending a queue step needs to be safe and traceable.
 * - scheduled_steps.send_started_at: the claim taken (and committed) before the SMTP call, so two
 *   concurrent sends of one step cannot both reach the mail server.
 * - scheduled_steps.message_id: the step's Message-ID, fixed at the first claim, so a retried send
 *   carries the same id (receivers drop duplicates) and follow-ups can reply in the same thread.
 * - scheduled_steps.communication_id: the communication the send recorded; it also tells the
 *   sequence's own emails apart from a collector's manual touches (last-touch awareness).
 * - sequence names unique regardless of case; indexes for the queue's filters.
 */
import { type Kysely, sql } from 'kysely';

const statements = [
  `ALTER TABLE scheduled_steps ADD COLUMN send_started_at TEXT`,
  `ALTER TABLE scheduled_steps ADD COLUMN message_id TEXT`,
  `ALTER TABLE scheduled_steps ADD COLUMN communication_id TEXT REFERENCES communications(id) ON DELETE SET NULL`,
  `CREATE INDEX scheduled_steps_communication ON scheduled_steps(communication_id) WHERE communication_id IS NOT NULL`,
  `CREATE INDEX scheduled_steps_customer ON scheduled_steps(company_id, customer_id, status)`,
  `CREATE INDEX scheduled_steps_sequence ON scheduled_steps(sequence_id, status)`,
  `CREATE UNIQUE INDEX sequences_name_nocase ON sequences(company_id, name COLLATE NOCASE)`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
