/**
 * Writes generated ledger rows into SQLite through prepared multi-row statements on the raw handle,
 * inside the caller's transaction. In bulk mode it sets aside the known per-row insert triggers
 * and the secondary indexes of invoices and payments, does the triggers' work itself (the same
 * upserts, summed per key instead of applied per row, see replica.ts), and re-creates the indexes
 * and triggers from their own SQL text in sqlite_master: the rows left behind are exactly those of
 * the normal path.
 */
import { availableParallelism } from 'node:os';
import type BetterSqlite3 from 'better-sqlite3';
import { CHUNK_TABLES, type ChunkTable, type LedgerChunk, TABLE_COLUMNS } from './chunks';
import { REPLACED_TRIGGERS, type ReplacedTrigger, type ReplicaState, TriggerReplica } from './replica';

/** Rows per multi-row INSERT: the statement's fixed cost is paid once per batch, far below the bound-parameter limit. */
const BATCH_ROWS = 32;

/** One table's flat values, inserted BATCH_ROWS rows at a time in the order given (so row ids are those of one-by-one inserts). */
function tableInsert(sqlite: BetterSqlite3.Database, table: ChunkTable) {
  const columns = TABLE_COLUMNS[table];
  const width = columns.length;
  const tuple = `(${columns.map(() => '?').join(', ')})`;
  const statements = new Map<number, BetterSqlite3.Statement>();
  const insert = (rows: number) => {
    let statement = statements.get(rows);
    if (!statement) {
      statement = sqlite.prepare(`INSERT INTO ${table} (${columns.join(', ')}) VALUES ${Array.from({ length: rows }, () => tuple).join(', ')}`);
      statements.set(rows, statement);
    }
    return statement;
  };
  return (values: unknown[]) => {
    const rows = values.length / width;
    for (let row = 0; row < rows; row += BATCH_ROWS) {
      const n = Math.min(BATCH_ROWS, rows - row);
      insert(n).run(values.slice(row * width, (row + n) * width));
    }
  };
}

/** Writes chunks of generated rows, each table's rows before those of the tables that refer to them. */
export function chunkWriter(sqlite: BetterSqlite3.Database): (chunk: LedgerChunk) => void {
  const inserts = CHUNK_TABLES.map((table) => [table, tableInsert(sqlite, table)] as const);
  return (chunk) => {
    for (const [table, insert] of inserts) if (chunk.values[table].length) insert(chunk.values[table]);
  };
}

const INDEXED_TABLES = ['invoices', 'payments'];


interface SchemaObject {
  type: 'index' | 'trigger';
  name: string;
  sql: string;
}

/**
 * Runs `load` (which writes one new company's ledger and returns what the replaced triggers would
 * have accumulated over its rows) with the replaced triggers and the secondary indexes of invoices and payments set aside, then restores
 * them. Must run inside a transaction: a failure anywhere rolls the schema back with the data.
 */
export function bulkLoad<T>(
  sqlite: BetterSqlite3.Database,
  companyId: string,
  load: () => { result: T; replica: ReplicaState },
  onIndex?: (done: number, total: number) => void,
): T {
  if (!sqlite.inTransaction) throw new Error('bulkLoad must run inside a transaction');
  const placeholders = (n: number) => Array.from({ length: n }, () => '?').join(', ');
  const triggers = sqlite
    .prepare(`SELECT type, name, sql FROM sqlite_master WHERE type = 'trigger' AND name IN (${placeholders(REPLACED_TRIGGERS.length)}) ORDER BY name`)
    .all(...REPLACED_TRIGGERS) as SchemaObject[];
  const indexes = sqlite
    .prepare(`SELECT type, name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN (${placeholders(INDEXED_TABLES.length)}) ORDER BY name`)
    .all(...INDEXED_TABLES) as SchemaObject[];
  for (const t of triggers) sqlite.exec(`DROP TRIGGER "${t.name}"`);
  for (const i of indexes) sqlite.exec(`DROP INDEX "${i.name}"`);

  const { result, replica } = load();

  new TriggerReplica(replica).write(sqlite, companyId, new Set(triggers.map((t) => t.name as ReplacedTrigger)));
  // SQLite's sorter may use helper threads for CREATE INDEX: it uses none unless asked, nor with temp_store = MEMORY.
  const threads = sqlite.pragma('threads', { simple: true }) as number;
  sqlite.pragma(`threads = ${Math.min(4, availableParallelism())}`);
  try {
    indexes.forEach((index, n) => {
      sqlite.exec(index.sql);
      onIndex?.(n + 1, indexes.length);
    });
  } finally {
    sqlite.pragma(`threads = ${threads}`);
  }
  for (const t of triggers) sqlite.exec(t.sql);
  return result;
}
