/**
 * Lists cut into chunks for `IN (...)` lists and multi-row inserts: SQLite binds at most 32,766
 * parameters per statement, and a shorter statement keeps the write lock for less time.
 */

/** Ids per `IN (...)` list. */
export const CHUNK = 500;

/** `list` in consecutive pieces of at most `size` items (none for an empty list). */
export function chunks<T>(list: readonly T[], size = CHUNK): T[][] {
  if (!(size >= 1)) throw new RangeError(`chunk size must be at least 1, got ${size}`);
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}
