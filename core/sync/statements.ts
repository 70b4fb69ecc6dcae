/**
 * Statements prepared once per database and text: a download writes the same few shapes many
 * times, and the team server answers the same few pulls for every desktop it pokes.
 */
import type BetterSqlite3 from 'better-sqlite3';

const statements = new WeakMap<BetterSqlite3.Database, Map<string, BetterSqlite3.Statement>>();

export function prepared(sqlite: BetterSqlite3.Database, text: string): BetterSqlite3.Statement {
  let cache = statements.get(sqlite);
  if (!cache) statements.set(sqlite, (cache = new Map()));
  let statement = cache.get(text);
  if (!statement) cache.set(text, (statement = sqlite.prepare(text)));
  return statement;
}
