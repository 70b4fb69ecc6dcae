import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, PACKAGE_DIR, type ServerProcess, startServe } from './cli';

export interface DemoServer {
  url: string;
  stop(): Promise<void>;
}

const DB = 'ardesk.sqlite';
/** What the engine keeps beside its database file: the secrets key (the demo's SMTP password is sealed with it). */
const BESIDE = ['.key'];

/**
 * The demo workspace as `serve --demo` seeds it (seed 1, today's date: the same rows every time),
 * seeded once per test run by `ardesk seed --demo` into the run's folder (test/run-folder.ts) and
 * copied for each server, since seeding with its intelligence run is most of a server's start. A
 * lock folder makes one process seed while the others wait. Null outside a vitest run.
 */
async function demoTemplate(): Promise<string | null> {
  const runDir = process.env.ARDESK_TEST_RUN_DIR;
  if (!runDir || !existsSync(runDir)) return null;
  const dir = join(runDir, `demo-${new Date().toISOString().slice(0, 10)}`);
  const file = join(dir, DB);
  const done = join(dir, 'seeded');
  const lock = `${dir}.lock`;
  for (;;) {
    if (existsSync(done)) return file;
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (existsSync(lock) && Date.now() - statSync(lock).mtimeMs > 180_000) rmSync(lock, { recursive: true, force: true });
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  try {
    if (!existsSync(done)) {
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir);
      execFileSync(process.execPath, [BIN, 'seed', '--demo', '--db', file], { cwd: PACKAGE_DIR, stdio: 'pipe' });
      mkdirSync(done);
    }
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
  return file;
}

/**
 * `ardesk serve --port 0 --db <tmp> [extraArgs]` as a real child process on a copy of the demo
 * workspace (or with `--demo` on an empty database outside a vitest run); its URL comes from the
 * "listening" line. The database lives in a temp folder removed on stop.
 */
export async function startDemoServer(extraArgs: string[] = []): Promise<DemoServer> {
  const template = await demoTemplate();
  const dir = mkdtempSync(join(tmpdir(), 'ardesk-browser-'));
  const file = join(dir, DB);
  let server: ServerProcess;
  try {
    if (template) for (const suffix of ['', '-wal', ...BESIDE]) if (existsSync(template + suffix)) copyFileSync(template + suffix, file + suffix);
    server = await startServe(['--port', '0', '--db', file, ...(template ? [] : ['--demo']), ...extraArgs]);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    url: server.url,
    async stop() {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
