// The statement-import thread's entry (import-off-thread.ts starts it): the core is TypeScript,
// loaded through tsx as the CLI loads it. The Electron bundle builds import-thread.ts itself.
require('../typescript.cjs');
require('./import-thread.ts');
