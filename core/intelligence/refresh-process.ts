/**
 * The intelligence refresh in a process of its own, for the server (`ardesk serve`, the desktop).
 *
 * better-sqlite3 is synchronous, so a refresh on the server's event loop held every request for
 * each chunk's reads, models and write (seconds at 100,000 invoices over 48 customers). Here a
 * child process with its own SQLite connection on the same file runs it: requests never wait on
 * its work, and only a write waits for the chunk transaction in hand (chunks are bounded by work,
 * runner.ts). A process rather than a worker thread so that its memory (the fitted model and a
 * chunk's rows, hundreds of MB at 1M invoices) is not the server's: a thread's heap counts in its
 * process's resident size.
 *
 * The child starts on the first refresh and stays for the server's life (its cached models make an
 * incremental refresh after a payment a few milliseconds); if it dies, the refresh in hand fails
 * (the job retries) and the next one starts a new child.
 *
 * It never outlives the server (issue 37): closing it stops the refresh in hand at its next
 * transaction's end, and kills the child after STOP_GRACE_MS; the child exits within a second of
 * this process's death however it died (refresh-child.ts). While a write of the server's waits
 * for the lock, the child is told to hold off between two of its transactions (holdOff).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Clock } from '../clock';
import type { RefreshJobRef } from './jobs';
import type { RefreshReport } from './runner';

export type RefreshParentMessage =
  | { type: 'run'; id: number; companyId: string; customerIds?: string[]; job?: RefreshJobRef; clockOffsetMs: number }
  | { type: 'stop' }
  | { type: 'hold'; on: boolean };

export type RefreshChildMessage = { type: 'done'; id: number; report: RefreshReport } | { type: 'failed'; id: number; error: string };

export interface RefreshRun {
  customerIds?: string[];
  /** The job it runs for: the child writes the job's progress in its own chunk transactions (jobs.ts). */
  job?: RefreshJobRef;
}

export interface RefreshProcess {
  /** Runs one refresh in the child (started if need be) and resolves with its report. */
  run(companyId: string, options?: RefreshRun): Promise<RefreshReport>;
  /** The child's process id, while it runs. */
  pid(): number | null;
  /**
   * A write of this process found the lock taken: the child pauses between its transactions until
   * the function returned is called (the write went through or gave up).
   */
  holdOff(): () => void;
  /** Stops the child: the refresh in hand stops at its next transaction's end (and fails), or the child is killed. */
  close(): Promise<void>;
}

/** How long a closing child has to stop by itself before it is killed. */
export const STOP_GRACE_MS = 2_000;

/** Why a refresh in hand failed when the server stopped. */
export const STOPPED_MESSAGE = 'interrupted: the server stopped during the refresh';

/** The bundled entry (the Electron build puts it beside its main bundle), else the source's. */
function entry(): string {
  const bundled = join(__dirname, 'refresh-child.js');
  return existsSync(bundled) ? bundled : join(__dirname, 'refresh-child.cjs');
}

export function startRefreshProcess(file: string, clock: Clock): RefreshProcess {
  let child: ChildProcess | null = null;
  let closed = false;
  let holding = 0;
  let nextId = 1;
  const pending = new Map<number, { resolve: (report: RefreshReport) => void; reject: (err: Error) => void }>();

  const tell = (message: RefreshParentMessage) => {
    if (child?.connected) child.send(message, () => undefined);
  };

  function spawnChild(): ChildProcess {
    // ELECTRON_RUN_AS_NODE: in the desktop app process.execPath is Electron, run here as plain Node.
    // Its parent's pid: the child watches it from its first moment (refresh-child.ts).
    const started = fork(entry(), [file, String(process.pid)], { execArgv: [], env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' } });
    started.on('message', (message: RefreshChildMessage) => {
      const waiting = pending.get(message.id);
      if (!waiting) return;
      pending.delete(message.id);
      if (message.type === 'done') waiting.resolve(message.report);
      else waiting.reject(new Error(message.error));
    });
    started.once('exit', (code, signal) => {
      if (child === started) child = null;
      for (const [id, waiting] of pending) {
        pending.delete(id);
        waiting.reject(new Error(closed ? STOPPED_MESSAGE : `the intelligence refresh process stopped (${signal ?? `exit code ${code}`})`));
      }
    });
    started.on('error', (err) => console.error(`ardesk: intelligence refresh process: ${err.message}`));
    return started;
  }

  return {
    run(companyId, options = {}) {
      if (closed) return Promise.reject(new Error(STOPPED_MESSAGE));
      child ??= spawnChild();
      if (holding) tell({ type: 'hold', on: true });
      const id = nextId++;
      const message: RefreshParentMessage = { type: 'run', id, companyId, customerIds: options.customerIds, job: options.job, clockOffsetMs: clock.now().getTime() - Date.now() };
      const sent = child;
      return new Promise<RefreshReport>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        sent.send(message, (err) => {
          if (err && pending.delete(id)) reject(err);
        });
      });
    },
    pid: () => child?.pid ?? null,
    holdOff() {
      if (holding++ === 0) tell({ type: 'hold', on: true });
      let done = false;
      return () => {
        if (done) return;
        done = true;
        if (--holding === 0) tell({ type: 'hold', on: false });
      };
    },
    async close() {
      closed = true;
      const running = child;
      if (!running || running.exitCode !== null || running.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
      tell({ type: 'stop' });
      // A child in a long stretch of reads or models answers only after it: it is killed, and the
      // write transaction it may hold rolls back with its connection.
      const kill = setTimeout(() => running.kill('SIGKILL'), STOP_GRACE_MS);
      await exited;
      clearTimeout(kill);
    },
  };
}
