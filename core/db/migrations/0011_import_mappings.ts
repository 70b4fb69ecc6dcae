/** Import mappings a company saves to reuse (a name per company, the mapping as JSON). */
import { type Kysely, sql } from 'kysely';

const statements = [
  `CREATE TABLE import_mappings (
  id TEXT PRIMARY KEY,
  company_id TEXT NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  mapping TEXT NOT NULL,
  created_by TEXT REFERENCES users(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
)`,
  `CREATE UNIQUE INDEX import_mappings_name ON import_mappings(company_id, name COLLATE NOCASE)`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
