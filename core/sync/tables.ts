/**
 * Which tables sync, read from the live schema so tables added by later migrations follow: every
 * table with a company_id column (and companies itself), except the aggregates that triggers keep
 * from other rows (core/sync/derived.ts), the local audit log, the tables a database's refresh keeps
 * for itself, the sync tables and the full-text index tables. Each table's rows are identified by
 * `id` when it has one, else by its primary key columns.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { DERIVED_TABLES } from './derived';

export interface SyncedTable {
  name: string;
  columns: string[];
  key: string[];
  /** The column that says which company a row belongs to. */
  companyColumn: string;
}

/** The local audit trail: each database keeps its own (a desktop's is undone with its writes). */
export const AUDIT_TABLE = 'changes';

/** What a database's own intelligence refresh keeps for its reads (0300): a replica does not refresh. */
const LOCAL_TABLES: ReadonlySet<string> = new Set(['forecast_inflows', 'forecast_state']);

interface ColumnInfo {
  name: string;
  pk: number;
}

function tableNames(sqlite: BetterSqlite3.Database): string[] {
  const rows = sqlite.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as Array<{ name: string; sql: string | null }>;
  return rows.filter((r) => !/^\s*CREATE\s+VIRTUAL/i.test(r.sql ?? '')).map((r) => r.name);
}

function describe(sqlite: BetterSqlite3.Database, name: string): SyncedTable | null {
  const columns = sqlite.prepare(`PRAGMA table_info("${name}")`).all() as ColumnInfo[];
  const names = columns.map((c) => c.name);
  const companyColumn = name === 'companies' ? 'id' : names.includes('company_id') ? 'company_id' : null;
  if (!companyColumn) return null;
  const primary = columns.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => c.name);
  const key = names.includes('id') ? ['id'] : primary;
  if (key.length === 0) return null;
  // A local row number (invoices.seq) is not part of the row's identity and is never copied.
  const local = primary.filter((c) => !key.includes(c));
  return { name, columns: names.filter((c) => !local.includes(c)), key, companyColumn };
}

function isShadowOrSystem(name: string, all: Set<string>): boolean {
  if (name.startsWith('sqlite_') || name.startsWith('sync_') || name.startsWith('kysely_')) return true;
  // FTS5 shadow tables (x_data, x_idx, x_content, x_docsize, x_config) of a virtual table x.
  const shadow = /^(.*)_(data|idx|content|docsize|config)$/.exec(name);
  return shadow !== null && all.has(shadow[1]);
}

/** Dependency order by foreign keys (self references ignored), so parents are written first. */
function inDependencyOrder(sqlite: BetterSqlite3.Database, tables: SyncedTable[]): SyncedTable[] {
  const byName = new Map(tables.map((t) => [t.name, t]));
  const ordered: SyncedTable[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (t: SyncedTable) => {
    if (state.get(t.name)) return;
    state.set(t.name, 'visiting');
    const fks = sqlite.prepare(`PRAGMA foreign_key_list("${t.name}")`).all() as Array<{ table: string }>;
    for (const fk of fks) {
      const parent = byName.get(fk.table);
      if (parent && parent !== t && !state.get(parent.name)) visit(parent);
    }
    state.set(t.name, 'done');
    ordered.push(t);
  };
  for (const t of tables) visit(t);
  return ordered;
}

export interface SyncSchema {
  /** Tables the feed carries, parents first. */
  feed: SyncedTable[];
  /** Tables whose local changes a replica can undo: the feed's plus the audit log. */
  undoable: SyncedTable[];
  byName: Map<string, SyncedTable>;
}

const cache = new WeakMap<BetterSqlite3.Database, SyncSchema>();

export function syncSchema(sqlite: BetterSqlite3.Database): SyncSchema {
  const cached = cache.get(sqlite);
  if (cached) return cached;
  const names = tableNames(sqlite);
  const all = new Set(sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all().map((r) => (r as { name: string }).name));
  const candidates = names
    .filter((n) => !isShadowOrSystem(n, all) && !DERIVED_TABLES.has(n) && !LOCAL_TABLES.has(n) && n !== AUDIT_TABLE)
    .map((n) => describe(sqlite, n))
    .filter((t): t is SyncedTable => t !== null);
  const feed = inDependencyOrder(sqlite, candidates);
  const audit = describe(sqlite, AUDIT_TABLE);
  const undoable = audit ? [...feed, audit] : feed;
  const schema = { feed, undoable, byName: new Map(undoable.map((t) => [t.name, t])) };
  cache.set(sqlite, schema);
  return schema;
}

/** SQL for a row's key as the JSON array stored in sync_rows/sync_undo, from NEW or OLD. */
export function keySql(table: SyncedTable, alias: 'NEW' | 'OLD'): string {
  return `json_array(${table.key.map((c) => `${alias}."${c}"`).join(', ')})`;
}

/** SQL for the whole row as a JSON object, from NEW or OLD. */
export function rowJsonSql(table: SyncedTable, alias: 'NEW' | 'OLD'): string {
  return `json_object(${table.columns.map((c) => `'${c}', ${alias}."${c}"`).join(', ')})`;
}
