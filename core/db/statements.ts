/**
 * Statements prepared once per connection and text: every Kysely query (see connection.ts) and the
 * raw reads and writes where Kysely's per-query cost shows: the invoice list (its filters produce a
 * bounded set of shapes), a sync download (the same few upserts many times) and the team server's
 * feed (the same few pulls for every desktop it pokes). The oldest is dropped past MAX_CACHED, so a run of unusual shapes
 * cannot grow the cache without end.
 */
import type BetterSqlite3 from 'better-sqlite3';

const MAX_CACHED = 1_000;
const caches = new WeakMap<BetterSqlite3.Database, Map<string, BetterSqlite3.Statement>>();
// Kysely's own: the raw paths switch a statement's mode (pluck, raw), which Kysely's reading does not expect.
const kyselyCaches = new WeakMap<BetterSqlite3.Database, Map<string, BetterSqlite3.Statement>>();

function cached(from: WeakMap<BetterSqlite3.Database, Map<string, BetterSqlite3.Statement>>, sqlite: BetterSqlite3.Database, text: string): BetterSqlite3.Statement {
  let cache = from.get(sqlite);
  if (!cache) from.set(sqlite, (cache = new Map()));
  let statement = cache.get(text);
  if (!statement) {
    statement = sqlite.prepare(text);
    if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value as string);
    cache.set(text, statement);
  }
  return statement;
}

export function prepared(sqlite: BetterSqlite3.Database, text: string): BetterSqlite3.Statement {
  return cached(caches, sqlite, text);
}

/** Savepoints carry a new name each (core/engine.ts): kept, they would only push the others out. */
const ONCE_ONLY = /^(savepoint|release|rollback to) /i;

/** For Kysely's queries (connection.ts); a statement still iterating (a stream) is not handed out twice. */
export function preparedForKysely(sqlite: BetterSqlite3.Database, text: string): BetterSqlite3.Statement {
  if (ONCE_ONLY.test(text)) return sqlite.prepare(text);
  const statement = cached(kyselyCaches, sqlite, text);
  return statement.busy ? sqlite.prepare(text) : statement;
}
