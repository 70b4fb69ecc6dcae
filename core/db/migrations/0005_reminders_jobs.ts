/**
 * Durable jobs and reminder email: what "never the same reminder twice" needs.
 * - jobs.subject_id: the entity a job acts on (an invoice for a reminder), with an index over the
 *   jobs still queued or running, so a second request finds the pending job instead of adding one.
 * - email_outbox: one row per job that sends an email, written and committed BEFORE the SMTP call
 *   ('sending') and settled after it ('sent', 'not_sent', 'unknown'). A job found with its row still
 *   'sending' was interrupted mid-send: the message may have left, so it is not sent again.
 *   message_id is fixed at the first attempt, so any later send of the same job carries the same
 *   Message-ID and receivers can drop a duplicate.
 */
import { type Kysely, sql } from 'kysely';

const statements = [
  `ALTER TABLE jobs ADD COLUMN subject_id TEXT`,
  `CREATE INDEX jobs_pending_subject ON jobs(company_id, kind, subject_id) WHERE status IN ('queued','running')`,
  `CREATE TABLE email_outbox (
  id TEXT PRIMARY KEY,
  company_id TEXT NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  job_id TEXT NOT NULL UNIQUE REFERENCES jobs(id) ON DELETE CASCADE,
  invoice_id TEXT REFERENCES invoices(id) ON DELETE SET NULL,
  customer_id TEXT REFERENCES customers(id) ON DELETE SET NULL,
  email_connection_id TEXT REFERENCES email_connections(id) ON DELETE SET NULL,
  message_id TEXT NOT NULL UNIQUE,
  to_email TEXT NOT NULL,
  subject TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('sending','sent','not_sent','unknown')),
  send_attempts INTEGER NOT NULL DEFAULT 0,
  last_error TEXT,
  communication_id TEXT REFERENCES communications(id) ON DELETE SET NULL,
  started_at TEXT NOT NULL,
  sent_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
)`,
  `CREATE INDEX email_outbox_invoice ON email_outbox(invoice_id) WHERE invoice_id IS NOT NULL`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
