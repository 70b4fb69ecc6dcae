import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { Database } from './schema';

export type Db = Kysely<Database>;

export interface OpenedDatabase {
  db: Db;
  /** The raw handle, for the few bulk paths (seeding, import) where prepared statements matter. */
  sqlite: BetterSqlite3.Database;
  file: string;
  close(): Promise<void>;
}

/** Opens (creating if needed) a SQLite file with the pragmas the engine relies on. */
export function openDatabase(file: string): OpenedDatabase {
  const sqlite = new BetterSqlite3(file);
  sqlite.pragma('journal_mode = WAL');
  // FULL: a committed write survives a power cut too, not only a crash of the process.
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('cache_size = -65536');
  sqlite.pragma('temp_store = MEMORY');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
  let closed = false;
  return {
    db,
    sqlite,
    file,
    async close() {
      if (closed) return;
      closed = true;
      await db.destroy();
    },
  };
}
