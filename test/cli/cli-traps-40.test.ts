/**
 * The command line without traps (issue 40, item 5): each trap the issue found, run through the
 * real `ardesk` command against real files.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../core/db/connection';
import { BIN, PACKAGE_DIR, startServe } from '../support/cli';

const run = promisify(execFile);

async function ardesk(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], { env: { ...process.env, ...env } });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** A refusal is one line of our own words: no stack, no raw error code, no JSON, balanced quotes. */
function ownWords(stderr: string): string {
  const lines = stderr.trim().split('\n').filter((l) => !l.startsWith('ardesk: database '));
  const first = lines[0] ?? '';
  expect(first).not.toMatch(/ENOENT|EACCES|\{"|:\d+:\d+\)|Error:/);
  expect((first.match(/"/g) ?? []).length % 2).toBe(0);
  expect((first.match(/'/g) ?? []).length % 2).toBe(0);
  return first;
}

describe('the ardesk command without traps (issue 40)', () => {
  let dir: string;
  let db: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ardesk-traps40-'));
    db = join(dir, 'desk.sqlite');
    expect((await ardesk(['user', 'add', '--db', db, '--username', 'ana', '--password', 'ana-pw-1', '--company', 'Acme', '--create-company', '--role', 'owner'])).code).toBe(0);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('seed never writes into the data folder unless told: without --db it refuses and creates nothing', async () => {
    const data = join(dir, 'real-data');
    const res = await ardesk(['seed', '--invoices', '10'], { ARDESK_DATA_DIR: data });
    expect(res.code).toBe(2);
    expect(ownWords(res.stderr)).toContain(`it never writes into your data folder (${data}) unless told`);
    expect(existsSync(data)).toBe(false);
  });

  it('a read command on a --db that does not exist says "no database at PATH" and creates nothing', async () => {
    const missing = join(dir, 'typo', 'dsek.sqlite');
    const res = await ardesk(['company', 'list', '--db', missing]);
    expect(res.code).toBe(2);
    expect(ownWords(res.stderr)).toBe(`ardesk company: no database at ${missing} (ardesk seed, ardesk serve or ardesk user add make one)`);
    expect(existsSync(join(dir, 'typo'))).toBe(false);
  });

  it('every command says on stderr which database it opened', async () => {
    const res = await ardesk(['company', 'list', '--db', db]);
    expect(res.code).toBe(0);
    expect(res.stderr).toBe(`ardesk: database ${db}\n`);
    expect(res.stdout).toMatch(/^Acme /);
  });

  it('"database is locked" names the process holding it', async () => {
    const busy = join(dir, 'busy.sqlite');
    expect((await ardesk(['user', 'add', '--db', busy, '--username', 'bo', '--password', 'bo-pw-12', '--company', 'Busy', '--create-company'])).code).toBe(0);
    const server = await startServe(['--port', '0', '--db', busy]);
    try {
      const res = await ardesk(['seed', '--db', busy, '--invoices', '10']);
      expect(res.code).toBe(1);
      expect(ownWords(res.stderr)).toMatch(new RegExp(`the database ${busy.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is in use by .*ardesk serve --port 0 --db .* \\(pid ${server.child.pid}\\); stop it first`));
    } finally {
      await server.stop();
    }
  });

  it('an unknown flag is refused in our words, with the closest one', async () => {
    const bogus = await ardesk(['company', 'list', '--db', db, '--bogus']);
    expect(bogus.code).toBe(2);
    expect(ownWords(bogus.stderr)).toBe('ardesk company: unknown option --bogus');
    const typo = await ardesk(['company', 'list', '--db', db, '--jsn']);
    expect(ownWords(typo.stderr)).toBe('ardesk company: unknown option --jsn; did you mean --json?');
    const empty = await ardesk(['company', 'list', '--db']);
    expect(ownWords(empty.stderr)).toBe('ardesk company: --db needs a value');
  });

  it('a missing --out folder and a missing --tls-cert file are said in words, not ENOENT', async () => {
    const out = join(dir, 'no-such-folder', 'copy.sqlite');
    const backup = await ardesk(['backup', '--db', db, '--out', out]);
    expect(backup.code).toBe(2);
    expect(ownWords(backup.stderr)).toBe(`ardesk backup: --out ${out}: the folder ${join(dir, 'no-such-folder')} does not exist`);
    const cert = join(dir, 'cert.pem');
    const serve = await ardesk(['serve', '--db', db, '--port', '0', '--team', '--tls-cert', cert, '--tls-key', join(dir, 'key.pem')]);
    expect(serve.code).toBe(2);
    expect(ownWords(serve.stderr)).toBe(`ardesk serve: --tls-cert ${cert}: there is no such file`);
  });

  it('a short password and a taken username are refusals in words, exit 2', async () => {
    const short = await ardesk(['user', 'add', '--db', db, '--username', 'cy', '--password', 'x']);
    expect(short.code).toBe(2);
    expect(ownWords(short.stderr)).toBe('ardesk user: The user is invalid: password: Use at least 4 characters');
    const taken = await ardesk(['user', 'add', '--db', db, '--username', 'ana', '--password', 'another-1']);
    expect(taken.code).toBe(2);
    expect(ownWords(taken.stderr)).toBe('ardesk user: The username ana is taken');
  });

  it('an unknown subcommand or command says so, with the closest', async () => {
    const sub = await ardesk(['company', 'lst', '--db', db]);
    expect(sub.code).toBe(2);
    expect(ownWords(sub.stderr)).toBe('ardesk company: unknown subcommand "company lst"; did you mean list?');
    const command = await ardesk(['comapny', 'list']);
    expect(command.code).toBe(2);
    expect(ownWords(command.stderr)).toBe('ardesk: unknown command comapny; did you mean company?');
  });

  it('connect on a connected database says so and downloads nothing', async () => {
    const replica = join(dir, 'replica.sqlite');
    expect((await ardesk(['migrate', '--db', replica])).code).toBe(0);
    const opened = openDatabase(replica);
    opened.sqlite.prepare("UPDATE sync_state SET server_url = 'https://team.example.test:4870' WHERE id = 1").run();
    await opened.close();
    const res = await ardesk(['connect', '--db', replica, '--server', 'https://other.example.test', '--username', 'ana', '--password', 'ana-pw-1']);
    expect(res.code).toBe(2);
    expect(ownWords(res.stderr)).toBe('ardesk connect: this database is already connected to https://team.example.test:4870: ardesk sync catches up, ardesk connect --resync downloads everything again');
  });

  it('backtest --json gives null where there is no data, and README\'s example names the company', async () => {
    const res = await ardesk(['backtest', '--db', db, '--company', 'Acme', '--json']);
    expect(res.code).toBe(0);
    const report = JSON.parse(res.stdout);
    expect(report).toMatchObject({ invoices: 0, mae_days: null, late_accuracy: null, baselines: { due_date: { mae_days: null } } });
    expect(report.conditional.every((c: { dated: number; mae_days: number | null }) => c.dated > 0 || c.mae_days === null)).toBe(true);
    const readme = readFileSync(resolve(PACKAGE_DIR, 'README.md'), 'utf8');
    const examples = readme.match(/`ardesk backtest[^`]*`/g) ?? [];
    expect(examples.length).toBeGreaterThan(0);
    for (const example of examples) expect(example).toContain('--company');
  });

  it("README's import recipe runs as written (its database in a temp folder)", async () => {
    const readme = readFileSync(resolve(PACKAGE_DIR, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## Import a ledger'));
    const block = /```sh\n([\s\S]*?)```/.exec(section)![1];
    const commands = block
      .split('\n')
      .filter((l) => l.startsWith('npx ardesk ') && !l.startsWith('npx ardesk serve'))
      .map((l) => [...l.slice('npx ardesk '.length).matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]).map((a) => (a === '/tmp/ibm.sqlite' ? join(dir, 'ibm.sqlite') : a)));
    expect(commands.map((c) => c[0])).toEqual(['user', 'import']);
    for (const args of commands) {
      const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>((done) =>
        execFile(process.execPath, [BIN, ...args], { cwd: PACKAGE_DIR }, (err, out, errOut) => done({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout: out, stderr: errOut })),
      );
      expect(code, stderr).toBe(0);
      if (args[0] === 'import') expect(stdout).toContain('invoices:  2466 created');
    }
  }, 60_000);
});
