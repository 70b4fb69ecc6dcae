/**
 * The refresh process (forked by refresh-process.ts): its own SQLite connection on the server's
 * database file, running refreshIntelligence for each request from its parent, one at a time. Its
 * pay-date models stay cached between requests, so an incremental refresh after a payment refits
 * only that customer. Told to stop, it stops the request in hand at its next transaction's end;
 * it exits within a second of its parent's death, even in the middle of a long read.
 */
import { setPriority } from 'node:os';
import type { Clock } from '../clock';
import { openDatabase } from '../db/connection';
import { DEFAULT_WRITE_WAIT, type WriteWait } from '../engine';
import { jobProgressWriter } from './jobs';
import { watchParent } from './watch-parent';
import { refreshIntelligence } from './runner';
import { type RefreshChildMessage, type RefreshParentMessage, STOPPED_MESSAGE } from './refresh-process';

/**
 * The refresh's own transactions wait as the server's do, looking again every 5 ms: the server's
 * writes are short, and the default's pauses of up to 100 ms left the refresh idle long after them.
 */
const REFRESH_WRITE_WAIT: WriteWait = { ...DEFAULT_WRITE_WAIT, maxPauseMs: 5 };

/** A nice value of 10: "below normal" on Windows. */
const REFRESH_NICENESS = 10;

const file = process.argv[2];
const database = openDatabase(file);
// Its reads are scans and its writes appends and scattered index leaves, each met about once per
// chunk: a 16 MB page cache does them as fast as the default 64 MB (measured at 200,000 invoices),
// and this process's resident size is what the memory target counts.
database.sqlite.pragma('cache_size = -16384');
// The server that forked this process checkpoints the log on a thread of its own (core/db/checkpointer.ts):
// a commit here that also checkpointed (nearly every chunk's, at the default 1,000 pages) did the
// server's copy and fsync on the refresh's time, a quarter of a full refresh at 200,000 invoices.
// The default comes back as a backstop past 20,000 pages.
database.sqlite.pragma('wal_autocheckpoint = 20000');
// Background work: when the two compete for a core, the server answering requests goes first.
// Set before the process starts threads of its own, which take this priority from it.
setPriority(REFRESH_NICENESS);

const send = (message: RefreshChildMessage) => process.send?.(message);

let queue: Promise<void> = Promise.resolve();
/** Told to stop: the refresh in hand stops at its next transaction's end. */
let stopping = false;
/** The parent has a write waiting for the lock. */
let held = false;

/** The longest a refresh holds off for the server's writes at one time: a server writing without pause still lets it on. */
const MAX_HOLD_MS = 500;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Between two of a large customer's transactions: a timer's wait (a turn of the event loop would
 * not read the parent's messages first), then none more while the parent has a write waiting, so
 * that write takes the lock now rather than after the next transaction.
 */
async function between(): Promise<void> {
  await sleep(1);
  for (const until = Date.now() + MAX_HOLD_MS; held && !stopping && Date.now() < until; ) await sleep(2);
  if (stopping) throw new Error(STOPPED_MESSAGE);
}

function run(message: Extract<RefreshParentMessage, { type: 'run' }>): Promise<void> {
  if (stopping) return Promise.resolve(void send({ type: 'failed', id: message.id, error: STOPPED_MESSAGE }));
  // The parent's clock (fixed in tests), carried as its offset from this machine's time.
  const clock: Clock = { now: () => new Date(Date.now() + message.clockOffsetMs) };
  const engine = { db: database.db, database, clock, writeWait: REFRESH_WRITE_WAIT };
  return refreshIntelligence(engine, message.companyId, {
    customerIds: message.customerIds,
    between,
    ...(message.job ? { inChunk: jobProgressWriter(message.job) } : {}),
  }).then(
    (report) => void send({ type: 'done', id: message.id, report }),
    (err: unknown) => void send({ type: 'failed', id: message.id, error: err instanceof Error ? err.message : String(err) }),
  );
}

async function stop(): Promise<void> {
  await queue;
  await database.close();
  process.exit(0);
}

process.on('message', (message: RefreshParentMessage) => {
  if (message.type === 'run') queue = queue.then(() => run(message));
  else if (message.type === 'hold') held = message.on;
  else if (message.type === 'stop') {
    stopping = true;
    void stop();
  }
});
// Ctrl-C reaches the whole process group: the parent decides when this process stops.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => undefined);
// The parent is gone (even killed outright): an open chunk's transaction rolls back with the connection.
process.once('disconnect', () => process.exit(0));
if (!process.connected) process.exit(0);
watchParent(Number(process.argv[3]));
