/**
 * Calls, notes and customers' replies.
 * - communications: a call's outcome and promise to pay (date, amount in minor units); for an
 *   email received, the sender's address and its attachments (names and sizes, JSON), and the
 *   connection and Message-ID it was read with, unique so re-reading a mailbox adds nothing twice.
 * - customer_contacts: an address that bounced is marked failing (when, and the server's words).
 * - email_connections: IMAP settings to read replies (the password sealed like the SMTP one), and
 *   the outcome of the last read.
 * - imap_mailbox_states: per connection and mailbox, the UIDVALIDITY and the last UID read.
 */
import { type Kysely, sql } from 'kysely';

const statements = [
  `ALTER TABLE communications ADD COLUMN outcome TEXT`,
  `ALTER TABLE communications ADD COLUMN promise_date TEXT`,
  `ALTER TABLE communications ADD COLUMN promise_amount INTEGER`,
  `ALTER TABLE communications ADD COLUMN from_email TEXT`,
  `ALTER TABLE communications ADD COLUMN attachments TEXT`,
  `CREATE UNIQUE INDEX communications_inbound_message ON communications(email_connection_id, message_id)
     WHERE direction = 'inbound' AND message_id IS NOT NULL`,
  `CREATE INDEX communications_message_id ON communications(company_id, message_id) WHERE message_id IS NOT NULL`,
  `CREATE INDEX scheduled_steps_message_id ON scheduled_steps(message_id) WHERE message_id IS NOT NULL`,
  `CREATE INDEX email_outbox_message_id ON email_outbox(message_id)`,
  `ALTER TABLE customer_contacts ADD COLUMN email_failed_at TEXT`,
  `ALTER TABLE customer_contacts ADD COLUMN email_failure TEXT`,
  `ALTER TABLE email_connections ADD COLUMN imap_host TEXT`,
  `ALTER TABLE email_connections ADD COLUMN imap_port INTEGER`,
  `ALTER TABLE email_connections ADD COLUMN imap_secure INTEGER NOT NULL DEFAULT 1`,
  `ALTER TABLE email_connections ADD COLUMN imap_username TEXT`,
  `ALTER TABLE email_connections ADD COLUMN imap_password_enc TEXT`,
  `ALTER TABLE email_connections ADD COLUMN imap_mailbox TEXT NOT NULL DEFAULT 'INBOX'`,
  `ALTER TABLE email_connections ADD COLUMN replies_checked_at TEXT`,
  `ALTER TABLE email_connections ADD COLUMN replies_error TEXT`,
  `CREATE TABLE imap_mailbox_states (
  company_id TEXT NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  email_connection_id TEXT NOT NULL REFERENCES email_connections(id) ON DELETE CASCADE,
  mailbox TEXT NOT NULL,
  uid_validity TEXT NOT NULL,
  last_uid INTEGER NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (email_connection_id, mailbox)
)`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
