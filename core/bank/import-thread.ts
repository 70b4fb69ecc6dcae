/**
 * The worker thread a large statement is imported on (import-off-thread.ts starts one per
 * import): stored, matched and applied on a connection of its own, as in-process. It answers with
 * the summary, or with the refusal (a 404, a 409) to be thrown again on the other side.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { Clock } from '../clock';
import { DomainError } from '../errors';
import { importOnOwnConnection } from './import';
import type { ImportThreadInput, ImportThreadMessage } from './import-off-thread';

if (!parentPort) throw new Error('import-thread runs as a worker thread');
const port = parentPort;
const input = workerData as ImportThreadInput;
const say = (message: ImportThreadMessage) => port.postMessage(message);
// The engine's clock as it was when the import was asked for, running on in real time.
const origin = Date.parse(input.startedAt);
const since = performance.now();
const clock: Clock = { now: () => new Date(origin + (performance.now() - since)) };

importOnOwnConnection({ file: input.file, clock, writeWait: input.writeWait }, input.options).then(
  (summary) => say({ summary }),
  (err: unknown) =>
    say(err instanceof DomainError ? { problem: { status: err.status, code: err.code, message: err.message, errors: err.errors } } : { error: err instanceof Error ? (err.stack ?? err.message) : String(err) }),
);
