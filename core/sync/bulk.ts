/**
 * A whole company's download, written in bulk inside the download's transaction. Row by row, each
 * of a hundred thousand invoices fired a dozen triggers and updated a dozen indexes in random
 * order; here, for the length of the download:
 * - the triggers of the synced tables that only copy what the server's rows already carry or keep
 *   derived tables (aggregates, full-text indexes: core/sync/derived.ts) are set aside with the
 *   replica's undo triggers, and the derived rows of the company are computed once at the end;
 * - a table that holds no other company's rows has its secondary indexes set aside and built once
 *   at the end, except unique ones and one per foreign key (SQLite looks children up through it);
 * - rows go in as multi-row upserts (core/sync/apply.ts).
 * Everything set aside is re-created from its own SQL text in sqlite_master before the commit, so
 * the schema is the same, and a failure anywhere rolls the schema back with the rows.
 */
import { availableParallelism } from 'node:os';
import type BetterSqlite3 from 'better-sqlite3';
import { dropFullText, DERIVED_TABLES, rebuildDerived } from './derived';
import { syncSchema } from './tables';

interface SchemaObject {
  name: string;
  tbl_name: string;
  sql: string;
}

/** The tables a trigger's body writes (INSERT INTO, UPDATE, DELETE FROM). */
export function tablesWrittenBy(triggerSql: string): string[] {
  const body = triggerSql.slice(triggerSql.search(/\bBEGIN\b/i));
  const written = new Set<string>();
  for (const m of body.matchAll(/\b(?:INSERT(?:\s+OR\s+\w+)?\s+INTO|REPLACE\s+INTO|DELETE\s+FROM|UPDATE(?:\s+OR\s+\w+)?)\s+("[^"]+"|\w+)/gi)) {
    const name = m[1].replace(/"/g, '');
    // `DO UPDATE SET` of an upsert is not a table.
    if (!/^set$/i.test(name)) written.add(name);
  }
  return [...written];
}

/**
 * The triggers on synced tables whose work a bulk download can skip: every table they write is
 * either synced (the server's rows already carry the result) or derived (rebuilt at the end), or
 * they are the replica's undo triggers (core/sync/triggers.ts), which write nothing while a
 * download runs (capture is off). A trigger writing anything else stays in place and fires as
 * usual: slower, never wrong.
 */
export function skippableTriggers(sqlite: BetterSqlite3.Database): SchemaObject[] {
  const { feed } = syncSchema(sqlite);
  const synced = new Set(feed.map((t) => t.name));
  const triggers = sqlite.prepare("SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY rowid").all() as SchemaObject[];
  return triggers.filter(
    (t) => synced.has(t.tbl_name) && (t.name.startsWith('sync_u_') || (!t.name.startsWith('sync_') && tablesWrittenBy(t.sql).every((w) => synced.has(w) || DERIVED_TABLES.has(w)))),
  );
}

/** Secondary indexes of a table that bulk writing can do without: not unique, and not the one SQLite uses for a foreign key. */
function indexesToSetAside(sqlite: BetterSqlite3.Database, table: string, companyColumn: string): SchemaObject[] {
  const indexes = sqlite
    .prepare("SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL ORDER BY rowid")
    .all(table) as SchemaObject[];
  const foreignKeys = new Set((sqlite.prepare(`PRAGMA foreign_key_list("${table}")`).all() as Array<{ from: string }>).map((f) => f.from).filter((c) => c !== companyColumn));
  const unique = new Set((sqlite.prepare(`PRAGMA index_list("${table}")`).all() as Array<{ name: string; unique: number }>).filter((i) => i.unique).map((i) => i.name));
  const kept = new Set<string>();
  return indexes.filter((index) => {
    if (unique.has(index.name)) return false;
    const first = (sqlite.prepare(`PRAGMA index_info("${index.name}")`).all() as Array<{ name: string | null }>)[0]?.name;
    if (first && foreignKeys.has(first) && !kept.has(first)) {
      kept.add(first);
      return false;
    }
    return true;
  });
}

export interface BulkDownload {
  /** Builds what was set aside: indexes, the company's derived rows, then the triggers. */
  finish(): void;
}

/**
 * Starts a bulk download of one company: sets triggers and indexes aside and removes the company's
 * local rows (a full resync), leaving the tables ready for its rows. Must run in a transaction.
 */
export function beginBulkDownload(sqlite: BetterSqlite3.Database, companyId: string, forget: () => void): BulkDownload {
  if (!sqlite.inTransaction) throw new Error('a bulk download must run inside a transaction');
  if ((sqlite.prepare('SELECT capture FROM sync_state WHERE id = 1').get() as { capture: number }).capture !== 0) throw new Error('a bulk download must run with capture off');
  const { feed } = syncSchema(sqlite);
  const triggers = skippableTriggers(sqlite);
  const indexes = feed
    .filter((t) => !sqlite.prepare(`SELECT 1 FROM "${t.name}" WHERE "${t.companyColumn}" IS NOT ? LIMIT 1`).get(companyId))
    .flatMap((t) => indexesToSetAside(sqlite, t.name, t.companyColumn));
  // Out of the full-text indexes while the rows and their indexed values are still there.
  dropFullText(sqlite, companyId);
  for (const t of triggers) sqlite.exec(`DROP TRIGGER "${t.name}"`);
  for (const i of indexes) sqlite.exec(`DROP INDEX "${i.name}"`);
  forget();
  return {
    finish() {
      // SQLite's sorter may use helper threads for CREATE INDEX; it uses none unless asked.
      const threads = sqlite.pragma('threads', { simple: true }) as number;
      sqlite.pragma(`threads = ${Math.min(4, availableParallelism())}`);
      try {
        for (const i of indexes) sqlite.exec(i.sql);
      } finally {
        sqlite.pragma(`threads = ${threads}`);
      }
      rebuildDerived(sqlite, companyId);
      for (const t of triggers) sqlite.exec(t.sql);
    },
  };
}
