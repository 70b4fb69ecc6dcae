/**
 * Raw reads for the invoice list, where per-query builder overhead shows at a million rows.
 * Reads run synchronously on the engine's one connection while holding Kysely's connection lock,
 * inside a deferred read transaction: they never see a command's half-written transaction, and
 * the count, facets and page of one request all come from the same snapshot.
 */
import type BetterSqlite3 from 'better-sqlite3';
import type { Engine } from '../engine';

export type Sqlite = BetterSqlite3.Database;

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
