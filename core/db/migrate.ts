import { chmodSync, closeSync, existsSync, openSync, statSync } from 'node:fs';
import { Migrator } from 'kysely/migration';
import { beginImmediate, type OpenedDatabase } from './connection';
import { migrations } from './migrations';

export interface MigrationReport {
  applied: string[];
  /** Path of the copy taken before migrating an existing file, or null when none was needed. */
  backup: string | null;
}

/**
 * Brings the schema to the latest version. Before touching an existing file that has pending
 * migrations, it copies the file aside, so a failed or unwanted migration can be undone by hand.
 */
export async function migrateToLatest(opened: OpenedDatabase, now: Date = new Date()): Promise<MigrationReport> {
  const migrator = new Migrator({
    db: opened.db,
    provider: { getMigrations: async () => migrations },
  });
  const pending = (await migrator.getMigrations()).filter((m) => !m.executedAt);
  // Up to date: no write at all, so opening a database another process is writing never waits here.
  if (pending.length === 0) return { applied: [], backup: null };
  let backup: string | null = null;
  if (pending.length > 0 && opened.file !== ':memory:' && existsSync(opened.file) && hasUserTables(opened)) {
    backup = backupPathFor(opened.file, now);
    await backupDatabase(opened, backup);
  }
  // Every pending migration in one write transaction (kysely runs SQLite's without one): a new file
  // is made in one commit rather than a sync to disk per statement, and a migration that fails
  // leaves the schema as it was. A DatabaseBusyError lets the caller wait for the other writer and try again.
  beginImmediate(opened.sqlite);
  try {
    const { error, results } = await migrator.migrateToLatest();
    if (error) throw error instanceof Error ? error : new Error(String(error));
    opened.sqlite.exec('commit');
    return { applied: (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName), backup };
  } finally {
    if (opened.sqlite.inTransaction) opened.sqlite.exec('rollback');
  }
}

function hasUserTables(opened: OpenedDatabase): boolean {
  if (statSync(opened.file).size === 0) return false;
  const row = opened.sqlite.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table'").get() as { n: number };
  return row.n > 0;
}

/** Where a backup of `file` taken at `now` goes: beside it, named `<file>.<time>.bak`. */
export function backupPathFor(file: string, now: Date): string {
  return `${file}.${now.toISOString().replace(/[:.]/g, '-')}.bak`;
}

/** A consistent online copy (SQLite's backup API), safe while the database is in use. */
export async function backupDatabase(opened: OpenedDatabase, target: string): Promise<string> {
  if (opened.file === ':memory:') throw new Error('cannot back up an in-memory database');
  // Owner-only like the database itself, from the moment the file exists.
  if (!existsSync(target)) closeSync(openSync(target, 'a', 0o600));
  await opened.sqlite.backup(target);
  chmodSync(target, 0o600);
  return target;
}

