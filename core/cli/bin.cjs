#!/usr/bin/env node
// The `ardesk` command (the package bin: npx ardesk, npm start). It runs the CLI in this Node when
// the SQLite driver loads in it; otherwise in the project's own Node from node_modules as a child,
// passing signals on and exiting with the child's code; otherwise it says in one line what to do.
const { spawn } = require('node:child_process');
const { constants } = require('node:os');
const { join } = require('node:path');
const { chooseRuntime, pinnedNode, sqliteDriver } = require('./node-runtime.cjs');

const FORWARDED_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'];

function runInChild(node, argv) {
  // The IPC channel lets the child notice when this launcher is gone (run.cjs stops with it).
  const child = spawn(node, [join(__dirname, 'run.cjs'), ...argv], { stdio: ['inherit', 'inherit', 'inherit', 'ipc'] });
  const forward = (signal) => child.kill(signal);
  for (const signal of FORWARDED_SIGNALS) process.on(signal, forward);
  child.once('error', (err) => {
    console.error(`ardesk: could not start ${node}: ${err.message}`);
    process.exit(1);
  });
  child.once('exit', (code, signal) => {
    process.exit(signal ? 128 + (constants.signals[signal] || 0) : (code ?? 1));
  });
}

/**
 * Under npm (`npx ardesk`, `npm start`) a shell sits between npm and this process, and it dies of
 * the SIGTERM that npm passes on without passing it further: stop when that parent is gone, as a
 * hang-up. Outside npm a vanished parent means nothing (`nohup ardesk serve &` outlives its shell).
 */
function stopWithNpmParent() {
  if (!process.env.npm_lifecycle_event) return;
  const parent = process.ppid;
  const timer = setInterval(() => {
    try {
      process.kill(parent, 0);
    } catch (err) {
      if (err.code !== 'ESRCH') return;
      clearInterval(timer);
      process.kill(process.pid, 'SIGHUP');
    }
  }, 250);
  timer.unref();
}

const argv = process.argv.slice(2);
// Help needs neither the driver nor the TypeScript core: answered at once.
if (argv.length === 0 || ['help', '--help', '-h'].includes(argv[0])) {
  console.log(require('./usage.cjs').helpText());
  process.exit(argv.length ? 0 : 1);
}
const runtime = chooseRuntime(process.version, sqliteDriver(), pinnedNode());
if (runtime.kind !== 'none') stopWithNpmParent();
if (runtime.kind === 'here') {
  require('./run.cjs').run(argv);
} else if (runtime.kind === 'pinned') {
  runInChild(runtime.node, argv);
} else {
  console.error(runtime.message);
  process.exitCode = 1;
}
