/**
 * Lets timers and I/O run (other requests, on a server). Better-sqlite3 is synchronous, so a long
 * run of awaited queries never leaves the microtask queue; work of many rows awaits this between
 * chunks.
 */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
