/**
 * Actions and insights.
 * - At most one active insight per company, target and insight_type: recording a new one ends the
 *   previous one in the same transaction, and this index refuses any write that would leave two.
 * - The insight list's default (active only, newest first) reads an index instead of sorting.
 * - The actions inbox lists non-deleted actions of a company newest first.
 */
import { type Kysely, sql } from 'kysely';

const statements = [
  `CREATE UNIQUE INDEX insights_one_active ON insights(company_id, target_type, target_id, insight_type) WHERE valid_to IS NULL`,
  `CREATE INDEX insights_company_active ON insights(company_id, valid_from, id) WHERE valid_to IS NULL`,
  `CREATE INDEX actions_company_live ON actions(company_id, created_at, id) WHERE deleted_at IS NULL`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
