// The refresh process's entry (refresh-process.ts forks it): the core is TypeScript, loaded through
// tsx as the CLI loads it (core/cli/run.cjs). The Electron bundle builds refresh-child.ts itself.
require('../typescript.cjs');
require('./refresh-child.ts');
