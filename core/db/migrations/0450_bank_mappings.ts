/**
 * Column mappings of banks' CSV and XLSX exports (issue 38), kept per company for the next file of
 * the same bank: the header row they were made for (JSON, as the file wrote it) and the mapping
 * (core/bank/read/table.ts's BankMappingSchema, as JSON). One per header row in a company.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql
    .raw(
      `CREATE TABLE bank_mappings (
        id TEXT PRIMARY KEY,
        company_id TEXT NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
        headers TEXT NOT NULL,
        mapping TEXT NOT NULL,
        created_by TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      )`,
    )
    .execute(db);
  await sql.raw(`CREATE UNIQUE INDEX bank_mappings_headers ON bank_mappings(company_id, headers)`).execute(db);
}
