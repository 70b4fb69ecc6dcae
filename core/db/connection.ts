import { closeSync, existsSync, openSync } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import { type Driver, Kysely, SqliteDialect } from 'kysely';
import type { Database } from './schema';
import { preparedForKysely } from './statements';

export type Db = Kysely<Database>;

export interface OpenedDatabase {
  db: Db;
  /** The raw handle, for the few bulk paths (seeding, import) where prepared statements matter. */
  sqlite: BetterSqlite3.Database;
  file: string;
  close(): Promise<void>;
}

/** How long a write waits for another connection's write to finish (busy_timeout, for statements). */
const BUSY_TIMEOUT_MS = 5000;

/** Raised when a write transaction cannot start because another connection is writing. */
export class DatabaseBusyError extends Error {
  constructor() {
    super('The database is busy: another connection is writing');
    this.name = 'DatabaseBusyError';
  }
}

function isBusy(err: unknown): boolean {
  const code = (err as { code?: string } | null)?.code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED';
}

/**
 * Every Kysely transaction is a write transaction here (reads use plain statements or
 * readSnapshot), so it starts as BEGIN IMMEDIATE: the write lock is taken up front, and a
 * transaction never fails half-way by upgrading a read lock another writer blocks. The BEGIN
 * does not wait inside SQLite (that would block the event loop): it fails at once with
 * DatabaseBusyError, and runCommand waits and retries asynchronously, holding no lock meanwhile.
 */
/** BEGIN IMMEDIATE on the connection, failing at once with DatabaseBusyError while another connection writes. */
export function beginImmediate(sqlite: BetterSqlite3.Database): void {
  sqlite.pragma('busy_timeout = 0');
  try {
    sqlite.exec('begin immediate');
  } catch (err) {
    throw isBusy(err) ? new DatabaseBusyError() : err;
  } finally {
    sqlite.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  constructor(private readonly sqlite: BetterSqlite3.Database) {
    // Kysely prepares every query it runs: the same few shapes thousands of times over (a pushed
    // mutation's replay is about twenty), and the preparing cost as much as the running.
    super({ database: { prepare: (text: string) => preparedForKysely(sqlite, text), close: () => sqlite.close() } });
  }

  override createDriver(): Driver {
    const driver = super.createDriver();
    const sqlite = this.sqlite;
    driver.beginTransaction = async () => beginImmediate(sqlite);
    return driver;
  }
}

/** Opens (creating if needed) a SQLite file with the pragmas the engine relies on. */
export function openDatabase(file: string): OpenedDatabase {
  // Readable by its owner only: it holds password hashes, token hashes and every customer. SQLite
  // gives the -wal and -shm files the mode of the database file.
  if (file !== ':memory:' && !existsSync(file)) closeSync(openSync(file, 'a', 0o600));
  const sqlite = new BetterSqlite3(file);
  sqlite.pragma('journal_mode = WAL');
  // FULL: a committed write survives a power cut too, not only a crash of the process.
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  sqlite.pragma('cache_size = -65536');
  sqlite.pragma('temp_store = MEMORY');
  const db = new Kysely<Database>({ dialect: new ImmediateSqliteDialect(sqlite) });
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
