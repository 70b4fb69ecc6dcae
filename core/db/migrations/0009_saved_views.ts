/**
 * Saved views of the invoice desk: a named filter/sort state per user and company. Kept in the
 * database (not the browser's storage) because the desktop's origin changes port every launch,
 * and a view must survive restarts.
 */
import { type Kysely, sql } from 'kysely';

const statements = [
  `CREATE TABLE saved_views (
  id TEXT PRIMARY KEY,
  company_id TEXT NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  query TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
)`,
  `CREATE UNIQUE INDEX saved_views_name ON saved_views(company_id, user_id, name COLLATE NOCASE)`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
