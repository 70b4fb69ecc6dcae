// The document thread's entry (render.ts starts it): the core is TypeScript, loaded through tsx as
// the CLI loads it (core/cli/run.cjs). The Electron bundle builds render-thread.ts itself.
require('tsx/cjs');
require('./render-thread.ts');
