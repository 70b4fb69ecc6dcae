import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IGNORED_COMMANDS, INTELLIGENCE_REFRESH } from '../../core/intelligence/jobs';
import { BIN, PACKAGE_DIR, type ServerProcess, startServe } from './cli';
import { query } from './sync';

export interface DemoServer {
  url: string;
  /** The server's database file, for reading what it did (readers never block its writer). */
  file: string;
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
    file,
    async stop() {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Waits until the server's intelligence engine has caught up with the company: every change is past
 * its watcher and no refresh is queued or running. A test that picks a proposal to act on waits for
 * this first, or a refresh of what the test before it did can withdraw the proposal under its hands.
 */
export async function intelligenceSettled(server: DemoServer, companyId: string, timeoutMs = 60_000): Promise<void> {
  const ignored = IGNORED_COMMANDS.map(() => '?').join(',');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [{ unseen }] = query<{ unseen: number }>(
      server.file,
      `SELECT count(*) AS unseen FROM changes WHERE company_id = ? AND command NOT IN (${ignored})
         AND seq > coalesce((SELECT last_change_seq FROM intelligence_state WHERE company_id = ?), 0)`,
      companyId,
      ...IGNORED_COMMANDS,
      companyId,
    );
    const [{ pending }] = query<{ pending: number }>(server.file, "SELECT count(*) AS pending FROM jobs WHERE company_id = ? AND kind = ? AND status IN ('queued', 'running')", companyId, INTELLIGENCE_REFRESH);
    if (unseen === 0 && pending === 0) return;
    if (Date.now() > deadline) throw new Error(`the intelligence refresh did not settle in ${timeoutMs} ms (${unseen} changes unseen, ${pending} refreshes pending)`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
