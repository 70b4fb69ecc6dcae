// The statement-reading thread's entry (read-off-thread.ts starts it): the core is TypeScript,
// loaded through tsx as the CLI loads it. The Electron bundle builds read-thread.ts itself.
require('../typescript.cjs');
require('./read-thread.ts');
