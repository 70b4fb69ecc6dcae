/**
 * Local-first sync (core/sync). One file holds both roles' tables; a database uses those of its
 * role only (sync_state.role: 'server' for the team server, 'replica' for a connected desktop).
 * The per-table triggers that feed sync_rows (server) and sync_undo (replica) are generated at
 * start-up from the live schema (core/sync/triggers.ts), so tables added by later migrations sync
 * too without a migration of their own.
 */
import { type Kysely, sql } from 'kysely';

const statements = [
  `CREATE TABLE sync_state (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  role TEXT CHECK (role IN ('server', 'replica')),
  version INTEGER NOT NULL DEFAULT 0,
  capture INTEGER NOT NULL DEFAULT 1,
  client_id TEXT,
  server_url TEXT,
  user_id TEXT,
  username TEXT,
  token_enc TEXT,
  last_mutation_id INTEGER NOT NULL DEFAULT 0,
  last_sync_at TEXT,
  last_error TEXT
)`,
  `INSERT INTO sync_state (id) VALUES (1)`,
  `CREATE TABLE sync_rows (
  tbl TEXT NOT NULL,
  key TEXT NOT NULL,
  company_id TEXT,
  version INTEGER NOT NULL,
  deleted INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (tbl, key)
) WITHOUT ROWID`,
  `CREATE INDEX sync_rows_company_version ON sync_rows(company_id, version)`,
  `CREATE INDEX sync_rows_version ON sync_rows(version)`,
  `CREATE TABLE sync_clients (
  client_id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL,
  last_mutation_id INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
)`,
  `CREATE TABLE sync_mutations (
  seq INTEGER PRIMARY KEY,
  client_id TEXT NOT NULL,
  mutation_id INTEGER NOT NULL,
  company_id TEXT NOT NULL,
  command TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('applied', 'rejected')),
  reason TEXT,
  created_at TEXT NOT NULL,
  UNIQUE (client_id, mutation_id)
)`,
  `CREATE TABLE sync_companies (
  company_id TEXT PRIMARY KEY,
  cursor TEXT,
  pulled_at TEXT
)`,
  `CREATE TABLE sync_outbox (
  mutation_id INTEGER PRIMARY KEY,
  company_id TEXT NOT NULL,
  command TEXT NOT NULL,
  method TEXT NOT NULL,
  path TEXT NOT NULL,
  content_type TEXT,
  body TEXT,
  body_encoding TEXT NOT NULL DEFAULT 'utf8' CHECK (body_encoding IN ('utf8', 'base64')),
  ids TEXT NOT NULL,
  created_at TEXT NOT NULL
)`,
  `CREATE TABLE sync_undo (
  tbl TEXT NOT NULL,
  key TEXT NOT NULL,
  row TEXT,
  PRIMARY KEY (tbl, key)
) WITHOUT ROWID`,
  `CREATE TABLE sync_rejections (
  mutation_id INTEGER PRIMARY KEY,
  company_id TEXT NOT NULL,
  command TEXT NOT NULL,
  reason TEXT NOT NULL,
  created_at TEXT NOT NULL
)`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
