/**
 * The collector's worklist (My work, follow-up filters): follow-up dates of open invoices, and
 * recent inbound messages, each reachable through an index so the worklist does not scan a
 * million invoices or the whole message history.
 */
import { type Kysely, sql } from 'kysely';

const statements = [
  `CREATE INDEX invoices_follow_up ON invoices(company_id, next_follow_up_date, id) WHERE next_follow_up_date IS NOT NULL AND closing_reason IS NULL`,
  `CREATE INDEX communications_direction ON communications(company_id, direction, occurred_at)`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
