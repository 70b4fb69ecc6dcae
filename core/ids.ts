import { v7 } from 'uuid';
import { currentTrace } from './trace';

/**
 * New identifiers are time-ordered UUIDv7, so inserts append to indexes and ids sort by creation.
 * Inside a replayed operation the original run's identifiers come first (core/sync/trace.ts).
 */
export function newId(): string {
  const trace = currentTrace();
  if (!trace) return v7();
  const id = trace.supply.shift() ?? v7();
  trace.made.push(id);
  return id;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID_RE.test(value);
}
