/**
 * Labels are facts (issue 21): a label can mean "a dispute" or "a promise to pay", set per company in
 * Settings › Labels, and the engine reads that setting instead of the label's name. Labels the
 * engine read by name until now (a name with "disput" or "promise" in it: the demo's "Disputed" and
 * "Promise to pay", the IBM preset's "Disputed") keep their meaning, so nothing changes for them.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of [
    `ALTER TABLE labels ADD COLUMN meaning TEXT CHECK (meaning IN ('dispute', 'promise'))`,
    `UPDATE labels SET meaning = 'dispute' WHERE lower(name) LIKE '%disput%'`,
    `UPDATE labels SET meaning = 'promise' WHERE meaning IS NULL AND lower(name) LIKE '%promise%'`,
    // The engine finds the labels with a meaning of each company (few) and then their invoices.
    `CREATE INDEX labels_meaning ON labels(company_id, meaning) WHERE meaning IS NOT NULL`,
  ]) {
    await sql.raw(statement).execute(db);
  }
}
