import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { meetsMinimum, sqliteDriver } from '../../core/cli/node-runtime.cjs';
import { BIN, PACKAGE_DIR, startServe } from '../support/cli';

/** Resolves true while something accepts connections on the port, false once it refuses them. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Milliseconds from now until the port refuses connections (gives up after 10 s). */
async function msUntilFree(port: number): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < 10_000) {
    if (!(await accepts(port))) return Date.now() - started;
    await new Promise((r) => setTimeout(r, 50));
  }
  return Infinity;
}

/**
 * A Node on PATH, outside node_modules, in which the SQLite driver cannot load (the machine's
 * Node 20 here and in CI), or null when the machine has none.
 */
function oldSystemNode(): string | null {
  const required = sqliteDriver()!.node;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const node = join(dir, 'node');
    if (!dir || dir.includes('node_modules') || !existsSync(node)) continue;
    const version = spawnSync(node, ['-p', 'process.version'], { encoding: 'utf8' }).stdout.trim();
    if (version && !meetsMinimum(version, required)) return node;
  }
  return null;
}

const OLD_NODE = oldSystemNode();

/** Each start of a real server spawns Node and tsx; on a loaded machine that takes many seconds. */
const SERVER_TEST_MS = 120_000;

describe('the ardesk launcher and stop signals', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'ardesk-launcher-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const portOf = (url: string) => Number(new URL(url).port);

  it('frees the port within 2 s when the launcher is told to stop (in the Node that loads the driver)', async () => {
    const server = await startServe(['--port', '0', '--db', join(dir, 'here.sqlite')]);
    const port = portOf(server.url);
    expect(await accepts(port)).toBe(true);
    const exited = new Promise<number | null>((resolve) => server.child.once('exit', (code) => resolve(code)));
    process.kill(server.child.pid!, 'SIGTERM');
    expect(await msUntilFree(port)).toBeLessThan(2000);
    expect(await exited).toBe(0);
  }, SERVER_TEST_MS);

  describe.runIf(OLD_NODE)(`started by a Node the driver cannot load in (${OLD_NODE})`, () => {
    it('runs the project Node as its child, passing SIGTERM, SIGINT and SIGHUP on and exiting with its code', async () => {
      for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
        const server = await startServe(['--port', '0', '--db', join(dir, 'child.sqlite')], {}, [OLD_NODE!, BIN]);
        const port = portOf(server.url);
        expect(await accepts(port)).toBe(true);
        const exited = new Promise<number | null>((resolve) => server.child.once('exit', (code) => resolve(code)));
        process.kill(server.child.pid!, signal);
        expect(await msUntilFree(port), signal).toBeLessThan(2000);
        expect(await exited, signal).toBe(0);
      }
    }, 3 * SERVER_TEST_MS);

    it('takes its child down with it when killed outright', async () => {
      const server = await startServe(['--port', '0', '--db', join(dir, 'killed.sqlite')], {}, [OLD_NODE!, BIN]);
      const port = portOf(server.url);
      process.kill(server.child.pid!, 'SIGKILL');
      expect(await msUntilFree(port)).toBeLessThan(2000);
    }, SERVER_TEST_MS);

    it('says in one line what to do when the project Node is not installed, instead of crashing', () => {
      // A package with the launcher and the driver but without node_modules/node (npm ci never ran
      // its install, or ran without dev dependencies).
      const pkg = join(dir, 'no-pinned-node');
      mkdirSync(join(pkg, 'core'), { recursive: true });
      mkdirSync(join(pkg, 'node_modules'));
      cpSync(join(PACKAGE_DIR, 'core', 'cli'), join(pkg, 'core', 'cli'), { recursive: true });
      symlinkSync(join(PACKAGE_DIR, 'node_modules', 'better-sqlite3'), join(pkg, 'node_modules', 'better-sqlite3'));
      const run = spawnSync(OLD_NODE!, [join(pkg, 'core', 'cli', 'bin.cjs'), 'serve', '--db', join(dir, 'never.sqlite')], { encoding: 'utf8' });
      expect(run.signal).toBeNull();
      expect(run.status).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      expect(run.stderr).toMatch(/^ardesk: Node v\d+\.\d+\.\d+ cannot load the SQLite driver \(better-sqlite3 [\d.]+ needs Node >=\d+\)/);
      expect(run.stderr).toContain(`run \`npm ci\` in ${pkg}`);
      expect(existsSync(join(dir, 'never.sqlite'))).toBe(false);
    }, SERVER_TEST_MS);
  });

  it('frees the port within 2 s when `npx ardesk serve` is killed', async () => {
    const server = await startServe(['--port', '0', '--db', join(dir, 'npx.sqlite')], {}, ['npx', 'ardesk']);
    const port = portOf(server.url);
    expect(server.output()).not.toContain('EBADENGINE');
    process.kill(server.child.pid!, 'SIGTERM');
    expect(await msUntilFree(port)).toBeLessThan(2000);
  }, SERVER_TEST_MS);
});
