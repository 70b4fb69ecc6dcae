// The worker thread of runLedgerJobInWorker (ledger-job.ts): the core is TypeScript, loaded
// through tsx as the CLI loads it (core/cli/run.cjs). A failure to load is posted like a failure
// to generate (ledger-thread.ts), so the writer never waits for a worker that is gone.
const { workerData } = require('node:worker_threads');

try {
  require('../typescript.cjs');
  require('./ledger-thread.ts');
} catch (err) {
  workerData.port.postMessage({ type: 'failed', error: err && err.stack ? err.stack : String(err) });
  // Slot 0 of the shared counters is POSTED (ledger-job.ts).
  Atomics.add(workerData.flow, 0, 1);
  Atomics.notify(workerData.flow, 0);
}
