/**
 * WAL checkpoints on a worker thread.
 *
 * A checkpoint copies committed pages from the write-ahead log into the database file and fsyncs
 * both. By default SQLite runs one inside a commit, on the committing thread, whenever the log
 * has passed wal_autocheckpoint pages: in the server that thread is the event loop, so a commit
 * that happened to pass the mark held every request for its checkpoint's copy and fsync (a third
 * of a refresh chunk's write time at 1M invoices, and over a second when the disk was busy).
 *
 * Here a second connection on a worker thread checkpoints (PASSIVE: it never takes the write lock
 * nor waits for one) every CHECKPOINT_EVERY_MS. The main connection keeps an automatic checkpoint
 * only as a backstop, at FALLBACK_PAGES, for a log the worker cannot keep up with; if the worker
 * stops, the default comes back. Durability is unchanged: a commit is durable once its log frames
 * are synced, which the committing connection still does (`synchronous = FULL`).
 */
import { Worker } from 'node:worker_threads';
import type BetterSqlite3 from 'better-sqlite3';

const CHECKPOINT_EVERY_MS = 200;
/** About 80 MB of log at 4 KB pages. */
const FALLBACK_PAGES = 20_000;
const DEFAULT_PAGES = 1_000;

/** The worker's whole program: plain CommonJS, so it runs the same under tsx and in the Electron bundle. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('synchronous = FULL');
const timer = setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch (err) {
    // Another connection's checkpoint is running: this one comes again on the next tick.
    if (err.code !== 'SQLITE_BUSY') throw err;
  }
}, workerData.everyMs);
parentPort.on('message', (message) => {
  if (message !== 'close') return;
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

export interface Checkpointer {
  /** Stops the worker and closes its connection (before the main connection closes, so that one is the last and tidies the log). */
  close(): Promise<void>;
}

export function startCheckpointer(sqlite: BetterSqlite3.Database, file: string): Checkpointer {
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { file, driver: require.resolve('better-sqlite3'), everyMs: CHECKPOINT_EVERY_MS },
  });
  sqlite.pragma(`wal_autocheckpoint = ${FALLBACK_PAGES}`);
  let running = true;
  const exited = new Promise<void>((resolve) => {
    worker.once('exit', () => {
      running = false;
      if (sqlite.open) sqlite.pragma(`wal_autocheckpoint = ${DEFAULT_PAGES}`);
      resolve();
    });
  });
  // A worker that fails (it could not open the file, a checkpoint threw) exits: the default comes back.
  worker.on('error', (err) => console.error(`ardesk: background checkpoints stopped: ${err.message}`));
  worker.unref();
  return {
    async close() {
      // Referenced again so the process stays up until the worker has closed its connection.
      worker.ref();
      if (running) worker.postMessage('close');
      await exited;
    },
  };
}
