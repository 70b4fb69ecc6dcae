/**
 * Reads a statement file on a worker thread of its own (read-thread.ts), so the seconds a large
 * file takes to parse never hold the server's requests up. The thread ends with its answer. A
 * small file (a few dozen entries) is read here: starting a thread costs more than reading it.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { DomainError, type FieldErrors } from '../errors';
import { readStatement } from './read/detect';
import type { ParsedStatement } from './statement';

export interface ReadThreadInput {
  bytes: Uint8Array;
  name: string | undefined;
}

export type ReadThreadAnswer = { statement: ParsedStatement } | { problem: { status: number; code: string; message: string; errors?: FieldErrors } } | { error: string };

/** A 50 MB file parses into several times its size; past this the thread stops rather than the server. */
const THREAD_HEAP_MB = 1024;

/** Files up to this size parse in well under 100 ms (about 100 camt entries). */
const IN_PROCESS_BYTES = 64 * 1024;

/** The bundled entry (the Electron build puts it beside its main bundle), else the source's. */
function entry(): string {
  const bundled = join(__dirname, 'bank-read-thread.js');
  return existsSync(bundled) ? bundled : join(__dirname, 'read-thread.cjs');
}

export async function readStatementOffThread(bytes: Buffer, name?: string): Promise<ParsedStatement> {
  if (bytes.byteLength <= IN_PROCESS_BYTES) return readStatement(bytes, name);
  return new Promise((resolve, reject) => {
    const worker = new Worker(entry(), { workerData: { bytes, name } satisfies ReadThreadInput, resourceLimits: { maxOldGenerationSizeMb: THREAD_HEAP_MB } });
    let settled = false;
    worker.once('message', (answer: ReadThreadAnswer) => {
      settled = true;
      if ('statement' in answer) resolve(answer.statement);
      else if ('problem' in answer) reject(new DomainError(answer.problem.status, answer.problem.code, answer.problem.message, answer.problem.errors));
      else reject(new Error(`Reading the statement failed: ${answer.error}`));
    });
    worker.once('error', (err: Error & { code?: string }) => {
      if (settled) return;
      settled = true;
      reject(err.code === 'ERR_WORKER_OUT_OF_MEMORY' ? new DomainError(413, 'file_too_large', 'The statement needs more memory to read than one file may use; ask the bank for a shorter period') : err);
    });
    worker.once('exit', (code) => {
      if (!settled) reject(new Error(`The statement reader stopped (exit ${code}) before it answered`));
    });
  });
}
