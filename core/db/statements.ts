/**
 * Statements prepared once per connection and text, for the raw reads and writes where Kysely's
 * per-query cost shows: the invoice list (its filters produce a bounded set of shapes), a sync
 * download (the same few upserts many times) and the team server's feed (the same few pulls for
 * every desktop it pokes). The oldest is dropped past MAX_CACHED, so a run of unusual shapes
 * cannot grow the cache without end.
 */
import type BetterSqlite3 from 'better-sqlite3';

const MAX_CACHED = 256;
const caches = new WeakMap<BetterSqlite3.Database, Map<string, BetterSqlite3.Statement>>();

export function prepared(sqlite: BetterSqlite3.Database, text: string): BetterSqlite3.Statement {
  let cache = caches.get(sqlite);
  if (!cache) caches.set(sqlite, (cache = new Map()));
  let statement = cache.get(text);
  if (!statement) {
    statement = sqlite.prepare(text);
    if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value as string);
    cache.set(text, statement);
  }
  return statement;
}
