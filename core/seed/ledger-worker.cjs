// The worker thread of runLedgerJobInWorker (ledger-job.ts): the core is TypeScript, loaded
// through tsx as the CLI loads it (core/cli/run.cjs).
require('tsx/cjs');
require('./ledger-thread.ts');
