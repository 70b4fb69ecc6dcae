/**
 * Raw reads for the invoice list, where per-query builder overhead shows at a million rows.
 * Reads run synchronously on the engine's one connection while holding Kysely's connection lock,
 * inside a deferred read transaction: they never see a command's half-written transaction, and
 * the count, facets and page of one request all come from the same snapshot.
 */
import type BetterSqlite3 from 'better-sqlite3';
import type { Engine } from '../engine';

export type Sqlite = BetterSqlite3.Database;

const MAX_CACHED = 256;
const caches = new WeakMap<Sqlite, Map<string, BetterSqlite3.Statement>>();

/** A prepared statement, cached per connection by its text (filters produce a bounded set of shapes). */
export function prepared(sqlite: Sqlite, text: string): BetterSqlite3.Statement {
  let cache = caches.get(sqlite);
  if (!cache) {
    cache = new Map();
    caches.set(sqlite, cache);
  }
  let statement = cache.get(text);
  if (!statement) {
    statement = sqlite.prepare(text);
    if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value as string);
    cache.set(text, statement);
  }
  return statement;
}

export function readSnapshot<T>(engine: Pick<Engine, 'db' | 'database'>, fn: (sqlite: Sqlite) => T): Promise<T> {
  const sqlite = engine.database.sqlite;
  // Inside a synced operation's transaction the connection is held already (core/sync).
  if (engine.db.isTransaction) return Promise.resolve(sqlite.transaction(() => fn(sqlite)).deferred());
  return engine.db.connection().execute(async () => sqlite.transaction(() => fn(sqlite)).deferred());
}

/** A list of values as one bound parameter, for `x IN (SELECT value FROM json_each(?))`. */
export function jsonList(values: readonly unknown[]): string {
  return JSON.stringify(values);
}
