/**
 * Statements sent by email (core/documents/send.ts): one run per request (one customer from its
 * page, or many from the Customers list), one item per customer with what happened to it, so the
 * sender sees progress and a summary of what was sent and what could not be, and why.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of [
    `CREATE TABLE statement_runs (
      id TEXT PRIMARY KEY,
      company_id TEXT NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
      as_of TEXT NOT NULL,
      requested_by TEXT,
      job_id TEXT,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    )`,
    `CREATE TABLE statement_run_items (
      id TEXT PRIMARY KEY,
      company_id TEXT NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
      run_id TEXT NOT NULL REFERENCES statement_runs(id) ON DELETE CASCADE,
      customer_id TEXT NOT NULL REFERENCES customers(id) ON DELETE CASCADE,
      position INTEGER NOT NULL,
      status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'not_sent')),
      sent_to TEXT,
      reason TEXT,
      message_id TEXT,
      pdf_bytes INTEGER,
      updated_at TEXT NOT NULL
    )`,
    `CREATE INDEX statement_run_items_run ON statement_run_items(run_id, position)`,
    `CREATE INDEX statement_runs_company ON statement_runs(company_id, created_at)`,
  ]) {
    await sql.raw(statement).execute(db);
  }
}
