import Database from 'better-sqlite3';

/** How long the server's start-up work may take before the bench gives up waiting (1M invoices: about 2 minutes). */
const SETTLE_LIMIT_MS = 15 * 60_000;

/**
 * Waits until the server has no due background job left (the aging snapshots it catches up, the
 * intelligence engine's daily refresh of a freshly seeded ledger): the figures are those of a
 * settled server, not of one sharing its process with a full refresh. Read from the database file.
 */
export async function waitForSettledJobs(db: string): Promise<number> {
  const started = performance.now();
  const reader = new Database(db, { readonly: true });
  try {
    const busy = busyJobs(reader);
    // The scheduler queues its work within a few seconds of start.
    await new Promise((r) => setTimeout(r, 5_000));
    while (busy() > 0) {
      if (performance.now() - started > SETTLE_LIMIT_MS) throw new Error('the server still had background jobs after 15 minutes');
      await new Promise((r) => setTimeout(r, 1_000));
    }
  } finally {
    reader.close();
  }
  return (performance.now() - started) / 1000;
}

function busyJobs(reader: Database.Database): () => number {
  const busy = reader.prepare(`SELECT count(*) FROM jobs WHERE status = 'running' OR (status = 'queued' AND run_after <= ?)`).pluck();
  return () => busy.get(new Date().toISOString()) as number;
}

/** How many background jobs are running or due now (0 on a settled server), read from the database file. */
export function backgroundJobsBusy(db: string): number {
  const reader = new Database(db, { readonly: true });
  try {
    return busyJobs(reader)();
  } finally {
    reader.close();
  }
}
