/**
 * The triggers behind sync, generated from the live schema (core/sync/tables.ts) for the
 * database's role and replaced whenever the schema or the role changes:
 * - server: every insert, update and delete of a synced row stamps it in sync_rows with the next
 *   version (deletes as tombstones), whoever writes it (API, jobs, imports, another process);
 * - replica: the first local change of a row of a synced company since the last pull keeps the
 *   row's previous image in sync_undo, so a pull can put back the server's state before applying
 *   what changed there and replaying the commands still pending.
 */
import type BetterSqlite3 from 'better-sqlite3';
import type { SyncRole } from '../db/schema';
import { keySql, rowJsonSql, type SyncedTable, syncSchema } from './tables';

function versionTriggers(t: SyncedTable): string[] {
  const stamp = (alias: 'NEW' | 'OLD', deleted: 0 | 1) => `BEGIN
  UPDATE sync_state SET version = version + 1 WHERE id = 1;
  INSERT INTO sync_rows (tbl, key, company_id, version, deleted)
  VALUES ('${t.name}', ${keySql(t, alias)}, ${alias}."${t.companyColumn}", (SELECT version FROM sync_state WHERE id = 1), ${deleted})
  ON CONFLICT (tbl, key) DO UPDATE SET version = excluded.version, deleted = excluded.deleted, company_id = excluded.company_id;
END`;
  return [
    `CREATE TRIGGER sync_v_${t.name}_insert AFTER INSERT ON "${t.name}" ${stamp('NEW', 0)}`,
    `CREATE TRIGGER sync_v_${t.name}_update AFTER UPDATE ON "${t.name}" ${stamp('NEW', 0)}`,
    `CREATE TRIGGER sync_v_${t.name}_delete AFTER DELETE ON "${t.name}" ${stamp('OLD', 1)}`,
  ];
}

function undoTriggers(t: SyncedTable): string[] {
  const when = (alias: 'NEW' | 'OLD') =>
    `WHEN (SELECT capture FROM sync_state WHERE id = 1) = 1 AND EXISTS (SELECT 1 FROM sync_companies WHERE company_id = ${alias}."${t.companyColumn}")`;
  return [
    `CREATE TRIGGER sync_u_${t.name}_insert AFTER INSERT ON "${t.name}" ${when('NEW')} BEGIN
  INSERT OR IGNORE INTO sync_undo (tbl, key, row) VALUES ('${t.name}', ${keySql(t, 'NEW')}, NULL);
END`,
    `CREATE TRIGGER sync_u_${t.name}_update BEFORE UPDATE ON "${t.name}" ${when('OLD')} BEGIN
  INSERT OR IGNORE INTO sync_undo (tbl, key, row) VALUES ('${t.name}', ${keySql(t, 'OLD')}, ${rowJsonSql(t, 'OLD')});
END`,
    `CREATE TRIGGER sync_u_${t.name}_delete BEFORE DELETE ON "${t.name}" ${when('OLD')} BEGIN
  INSERT OR IGNORE INTO sync_undo (tbl, key, row) VALUES ('${t.name}', ${keySql(t, 'OLD')}, ${rowJsonSql(t, 'OLD')});
END`,
  ];
}

function wantedTriggers(sqlite: BetterSqlite3.Database, role: SyncRole | null): string[] {
  const schema = syncSchema(sqlite);
  if (role === 'server') return schema.feed.flatMap(versionTriggers);
  if (role === 'replica') return schema.undoable.flatMap(undoTriggers);
  return [];
}

/** Makes the sync triggers match the role and schema; a no-op when they already do. */
export function ensureSyncTriggers(sqlite: BetterSqlite3.Database): void {
  const { role } = sqlite.prepare('SELECT role FROM sync_state WHERE id = 1').get() as { role: SyncRole | null };
  const wanted = wantedTriggers(sqlite, role);
  const existing = sqlite.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'sync\\_%' ESCAPE '\\'").all() as Array<{ name: string; sql: string }>;
  const same = existing.length === wanted.length && existing.every((e) => wanted.includes(e.sql));
  if (same) return;
  sqlite.transaction(() => {
    for (const e of existing) sqlite.exec(`DROP TRIGGER "${e.name}"`);
    for (const statement of wanted) sqlite.exec(statement);
  })();
}

/** Gives the database its sync role and the triggers of that role. */
export function setSyncRole(sqlite: BetterSqlite3.Database, role: SyncRole | null): void {
  sqlite.prepare('UPDATE sync_state SET role = ? WHERE id = 1').run(role);
  ensureSyncTriggers(sqlite);
}
