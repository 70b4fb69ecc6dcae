/**
 * The Actions inbox's value at risk, stored on the action (core/actions/value-at-risk.ts) instead of
 * computed for every proposal as the inbox is read. Existing actions get theirs from the next full
 * refresh, which runs at the next start: each company's last full refresh is forgotten.
 */
import { type Kysely, sql } from 'kysely';

const statements = [
  `ALTER TABLE actions ADD COLUMN value_at_risk INTEGER`,
  // Covers the inbox's count and its page of ids in its default orders, filters included; the
  // index it replaces (0120) held the same rows in creation order, which no inbox order walks.
  `DROP INDEX actions_inbox`,
  `CREATE INDEX actions_inbox_value ON actions(company_id, status, is_action_required, is_ai_recommended, value_at_risk, created_at, top_recommendation, invoice_id, id)
  WHERE deleted_at IS NULL`,
  `UPDATE intelligence_state SET last_full_refresh_date = NULL`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
