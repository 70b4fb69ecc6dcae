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
 */
import { type ChildProcess, fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Clock } from '../clock';
import type { RefreshJobRef } from './jobs';
import type { RefreshReport } from './runner';

export type RefreshParentMessage =
  | { type: 'run'; id: number; companyId: string; customerIds?: string[]; job?: RefreshJobRef; clockOffsetMs: number }
  | { type: 'stop' };

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
  /** Stops the child after the refresh in hand. */
  close(): Promise<void>;
}

/** The bundled entry (the Electron build puts it beside its main bundle), else the source's. */
function entry(): string {
  const bundled = join(__dirname, 'refresh-child.js');
  return existsSync(bundled) ? bundled : join(__dirname, 'refresh-child.cjs');
}

export function startRefreshProcess(file: string, clock: Clock): RefreshProcess {
  let child: ChildProcess | null = null;
  let nextId = 1;
  const pending = new Map<number, { resolve: (report: RefreshReport) => void; reject: (err: Error) => void }>();

  function spawnChild(): ChildProcess {
    // ELECTRON_RUN_AS_NODE: in the desktop app process.execPath is Electron, run here as plain Node.
    const started = fork(entry(), [file], { execArgv: [], env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' } });
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
        waiting.reject(new Error(`the intelligence refresh process stopped (${signal ?? `exit code ${code}`})`));
      }
    });
    started.on('error', (err) => console.error(`ardesk: intelligence refresh process: ${err.message}`));
    return started;
  }

  return {
    run(companyId, options = {}) {
      child ??= spawnChild();
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
    async close() {
      const running = child;
      if (!running || running.exitCode !== null) return;
      const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
      running.send({ type: 'stop' } satisfies RefreshParentMessage);
      await exited;
    },
  };
}
