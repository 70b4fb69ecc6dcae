/**
 * The worker thread a statement file is read on (read-off-thread.ts starts one per upload):
 * parsing a 10,000-entry camt.053 takes seconds of CPU, which on the server's thread would hold
 * every other request up. It answers with the statement, or with the reader's refusal (a 400
 * naming the line, a 413) to be thrown again on the other side.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { DomainError } from '../errors';
import { readStatement } from './read/detect';
import type { ReadThreadAnswer, ReadThreadInput } from './read-off-thread';

if (!parentPort) throw new Error('read-thread runs as a worker thread');
const input = workerData as ReadThreadInput;
let answer: ReadThreadAnswer;
try {
  answer = { statement: readStatement(Buffer.from(input.bytes.buffer, input.bytes.byteOffset, input.bytes.byteLength), input.name) };
} catch (err) {
  answer = err instanceof DomainError ? { problem: { status: err.status, code: err.code, message: err.message, errors: err.errors } } : { error: err instanceof Error ? (err.stack ?? err.message) : String(err) };
}
parentPort.postMessage(answer);
