/**
 * The intelligence engine (core/intelligence):
 * - evidence: the facts, figures and records an insight or a generated action rests on (JSON array).
 * - actions.trigger_key: what made the engine propose an action (e.g. a broken promise on an
 *   invoice); one proposal per trigger, and a rejected one is not proposed again.
 * - intelligence_state: per company, the last change the engine has seen and the last full refresh,
 *   so touched customers are found from the change record and the daily refresh catches up.
 */
import { type Kysely, sql } from 'kysely';

const statements = [
  `ALTER TABLE insights ADD COLUMN evidence TEXT NOT NULL DEFAULT '[]'`,
  `ALTER TABLE actions ADD COLUMN evidence TEXT NOT NULL DEFAULT '[]'`,
  `ALTER TABLE actions ADD COLUMN trigger_key TEXT`,
  `CREATE INDEX actions_trigger ON actions(company_id, customer_id, trigger_key) WHERE trigger_key IS NOT NULL`,
  `CREATE INDEX insights_customer_active ON insights(company_id, customer_id) WHERE valid_to IS NULL`,
  `CREATE TABLE intelligence_state (
  company_id TEXT PRIMARY KEY REFERENCES companies(id) ON DELETE CASCADE,
  last_change_seq INTEGER NOT NULL DEFAULT 0,
  last_full_refresh_date TEXT,
  updated_at TEXT NOT NULL
)`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
