/**
 * The refresh process's watchdog (refresh-child.ts; its entry starts it before loading the rest of
 * the core, seconds on a busy machine). The IPC channel's `disconnect` is seen only between two
 * pieces of work, and reading or modelling one large customer runs for seconds: a thread of this
 * process looks every 200 ms whether its parent (the pid it was forked with) is still its parent,
 * and ends the process at once when not. SIGKILL: the process's own handlers ignore the other
 * signals, and an open transaction rolls back with its connection. Started once per process.
 */
import { Worker } from 'node:worker_threads';

const PARENT_CHECK_MS = 200;
let started = false;

export function watchParent(parent: number): void {
  if (started || !Number.isInteger(parent) || parent <= 0) return;
  started = true;
  const watchdog = new Worker(
    `const { workerData } = require('node:worker_threads');
     const check = () => { if (process.ppid !== workerData.parent) process.kill(workerData.self, 'SIGKILL'); };
     check();
     setInterval(check, ${PARENT_CHECK_MS});`,
    { eval: true, workerData: { parent, self: process.pid } },
  );
  watchdog.unref();
}

