/**
 * Imports a statement on a worker thread of its own (import-thread.ts): its matching and
 * applying take seconds of CPU and a disk flush per commit, which on the server's thread would
 * hold every other request up. The thread opens its own connection to the database file, as the
 * import does in-process, and ends with its answer. Its writes wait for the lock as the server's
 * do, and the server's background writer holds off until it has answered.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Clock } from '../clock';
import type { WriteWait } from '../engine';
import { DomainError, type FieldErrors } from '../errors';
import type { ImportStatementOptions, ImportSummary } from './import-shapes';

export interface ImportThreadInput {
  file: string;
  options: ImportStatementOptions;
  /** The engine's clock when the import started (ISO): the thread's clock runs on from it. */
  startedAt: string;
  writeWait: Pick<WriteWait, 'timeoutMs' | 'maxPauseMs'>;
}

/** The thread's answer. */
export type ImportThreadMessage =
  | { summary: ImportSummary }
  | { problem: { status: number; code: string; message: string; errors?: FieldErrors } }
  | { error: string };

/** The statement, its facts and a batch's decisions in memory; past this the thread stops rather than the server. */
const THREAD_HEAP_MB = 1024;

/** The bundled entry (the Electron build puts it beside its main bundle), else the source's. */
function entry(): string {
  const bundled = join(__dirname, 'bank-import-thread.js');
  return existsSync(bundled) ? bundled : join(__dirname, 'import-thread.cjs');
}

export function importOffThread(engine: { file: string; clock: Clock; writeWait?: WriteWait }, options: ImportStatementOptions): Promise<ImportSummary> {
  const input: ImportThreadInput = {
    file: engine.file,
    options,
    startedAt: engine.clock.now().toISOString(),
    writeWait: { timeoutMs: engine.writeWait?.timeoutMs ?? 30_000, maxPauseMs: engine.writeWait?.maxPauseMs },
  };
  return new Promise((resolve, reject) => {
    const worker = new Worker(entry(), { workerData: input, resourceLimits: { maxOldGenerationSizeMb: THREAD_HEAP_MB } });
    let settled = false;
    // A person waits for the answer: the server's background writer (the refresh process, which the
    // paid customers set going) holds off from the start, not only once a batch finds the lock taken.
    let holding: (() => void) | undefined = engine.writeWait?.onBlocked?.();
    const release = () => {
      holding?.();
      holding = undefined;
    };
    worker.once('message', (message: ImportThreadMessage) => {
      settled = true;
      release();
      if ('summary' in message) resolve(message.summary);
      else if ('problem' in message) reject(new DomainError(message.problem.status, message.problem.code, message.problem.message, message.problem.errors));
      else reject(new Error(`Importing the statement failed: ${message.error}`));
    });
    worker.once('error', (err: Error & { code?: string }) => {
      release();
      if (settled) return;
      settled = true;
      reject(err.code === 'ERR_WORKER_OUT_OF_MEMORY' ? new DomainError(413, 'file_too_large', 'The statement needs more memory to import than one file may use; ask the bank for a shorter period') : err);
    });
    worker.once('exit', (code) => {
      release();
      if (!settled) reject(new Error(`The statement import stopped (exit ${code}) before it answered`));
    });
  });
}
