// The refresh process's entry (refresh-process.ts forks it): the core is TypeScript, loaded through
// tsx as the CLI loads it (core/cli/run.cjs). The Electron bundle builds refresh-child.ts itself.
require('../typescript.cjs');
// Loading the core takes seconds on a busy machine: the parent is watched from before it.
require('./watch-parent.ts').watchParent(Number(process.argv[3]));
require('./refresh-child.ts');
