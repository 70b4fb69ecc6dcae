/**
 * Email threads (issue 41): each email keeps its References chain (as received, or as we sent it)
 * and the thread it belongs to (the Message-ID of the thread's first message), so the customer page
 * and the invoice panel show a conversation in order and a reply from the timeline threads in the
 * customer's mail client. Emails recorded before this have no thread: each is its own (its
 * Message-ID), which is what a reader without References would show too.
 */
import { type Kysely, sql } from 'kysely';

const statements = [
  `ALTER TABLE communications ADD COLUMN email_references TEXT`,
  `ALTER TABLE communications ADD COLUMN thread_id TEXT`,
  `CREATE INDEX communications_thread ON communications(company_id, thread_id) WHERE thread_id IS NOT NULL`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
