/**
 * Inside the ledger worker thread: generates the job's rows and posts them chunk by chunk, waiting
 * while the writer is CHUNKS_AHEAD chunks behind, then posts the result (or the failure).
 */
import { type MessagePort, workerData } from 'node:worker_threads';
import { CHUNKS_AHEAD, type LedgerJob, type LedgerThreadMessage, POSTED, runLedgerJob, WRITTEN } from './ledger-job';

const { job, port, flow } = workerData as { job: LedgerJob; port: MessagePort; flow: Int32Array };
const post = (message: LedgerThreadMessage) => {
  port.postMessage(message);
  Atomics.add(flow, POSTED, 1);
  Atomics.notify(flow, POSTED);
};

try {
  const result = runLedgerJob(job, (chunk) => {
    for (let written = Atomics.load(flow, WRITTEN); Atomics.load(flow, POSTED) - written >= CHUNKS_AHEAD; written = Atomics.load(flow, WRITTEN)) {
      Atomics.wait(flow, WRITTEN, written);
    }
    post({ type: 'chunk', chunk });
  });
  post({ type: 'done', result });
} catch (err) {
  post({ type: 'failed', error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
}
