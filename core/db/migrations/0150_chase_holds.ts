/**
 * The chase respects the customer (issue 22): an enrollment pauses by itself on an unanswered reply,
 * a standing promise or an open dispute (each a per-sequence setting, on by default) and says why; a
 * step can wait for a broken promise; a queue row keeps the collector's edit, skip or snooze; a
 * dispute is a record of its own (reason, owner, open or resolved).
 */
import { type Kysely, sql } from 'kysely';

const STATEMENTS = [
  `ALTER TABLE sequences ADD COLUMN pause_on_reply INTEGER NOT NULL DEFAULT 1`,
  `ALTER TABLE sequences ADD COLUMN pause_on_promise INTEGER NOT NULL DEFAULT 1`,
  `ALTER TABLE sequences ADD COLUMN pause_on_dispute INTEGER NOT NULL DEFAULT 1`,
  `ALTER TABLE sequence_steps ADD COLUMN on_promise_missed INTEGER NOT NULL DEFAULT 0`,
  `ALTER TABLE sequence_enrollments ADD COLUMN paused_kind TEXT`,
  `ALTER TABLE sequence_enrollments ADD COLUMN paused_reason TEXT`,
  `ALTER TABLE sequence_enrollments ADD COLUMN paused_at TEXT`,
  `ALTER TABLE sequence_enrollments ADD COLUMN paused_until TEXT`,
  `ALTER TABLE sequence_enrollments ADD COLUMN paused_invoice_id TEXT`,
  `ALTER TABLE sequence_enrollments ADD COLUMN reply_handled_at TEXT`,
  `ALTER TABLE scheduled_steps ADD COLUMN edited_subject TEXT`,
  `ALTER TABLE scheduled_steps ADD COLUMN edited_body TEXT`,
  `ALTER TABLE scheduled_steps ADD COLUMN edited_at TEXT`,
  `ALTER TABLE scheduled_steps ADD COLUMN cancel_reason TEXT`,
  `CREATE INDEX sequence_enrollments_active ON sequence_enrollments(company_id, status, customer_id)`,
  `CREATE TABLE disputes (
     id TEXT PRIMARY KEY,
     company_id TEXT NOT NULL REFERENCES companies(id),
     customer_id TEXT NOT NULL REFERENCES customers(id),
     invoice_id TEXT NOT NULL REFERENCES invoices(id),
     reason TEXT NOT NULL,
     owner_id TEXT REFERENCES team_members(id) ON DELETE SET NULL,
     status TEXT NOT NULL CHECK (status IN ('open', 'resolved')),
     communication_id TEXT,
     resolution TEXT,
     opened_by TEXT,
     resolved_by TEXT,
     resolved_at TEXT,
     created_at TEXT NOT NULL,
     updated_at TEXT NOT NULL
   )`,
  `CREATE INDEX disputes_invoice ON disputes(company_id, invoice_id, status)`,
  `CREATE INDEX disputes_customer ON disputes(company_id, customer_id, status)`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of STATEMENTS) await sql.raw(statement).execute(db);
}
