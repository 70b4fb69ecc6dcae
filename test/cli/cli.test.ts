import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../core/db/connection';
import { afterDatabaseLine, BIN } from '../support/cli';

const run = promisify(execFile);

async function ardesk(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args]);
    return { code: 0, stdout, stderr: afterDatabaseLine(stderr) };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: afterDatabaseLine(e.stderr) };
  }
}

describe('the ardesk command', () => {
  let dir: string;
  let db: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'ardesk-cli-'));
    db = join(dir, 'cli.sqlite');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('adds a user with a membership in a new company, hashing the password', async () => {
    const res = await ardesk(['user', 'add', '--db', db, '--username', 'maria', '--password', 's3cret!', '--name', 'Maria Lopez', '--company', 'Lopez Supply', '--create-company', '--role', 'owner']);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/user maria added as owner of the new company Lopez Supply \([0-9a-f-]{36}\)/);
    const opened = openDatabase(db);
    const row = opened.sqlite
      .prepare('SELECT u.display_name, u.password_hash, m.role, c.name FROM users u JOIN memberships m ON m.user_id = u.id JOIN companies c ON c.id = m.company_id')
      .get() as Record<string, string>;
    await opened.close();
    expect(row).toMatchObject({ display_name: 'Maria Lopez', role: 'owner', name: 'Lopez Supply' });
    expect(row.password_hash).toMatch(/^scrypt\$/);
    expect(row.password_hash).not.toContain('s3cret!');
  });

  it('refuses a taken username and a bad role with a clear message and a non-zero exit', async () => {
    const taken = await ardesk(['user', 'add', '--db', db, '--username', 'maria', '--password', 'other']);
    expect(taken.code).toBe(2);
    expect(taken.stderr).toContain('taken');
    const role = await ardesk(['user', 'add', '--db', db, '--username', 'li', '--password', 'pw12', '--role', 'boss']);
    expect(role.code).toBe(2);
    expect(role.stderr).toContain('--role must be one of owner, manager, collector, viewer');
  });

  it('reports the schema as current and writes a usable backup', async () => {
    expect((await ardesk(['migrate', '--db', db])).stdout).toContain('schema is up to date');
    const out = join(dir, 'copy.sqlite');
    const res = await ardesk(['backup', '--db', db, '--out', out]);
    expect(res.code).toBe(0);
    expect(existsSync(out)).toBe(true);
    const copy = openDatabase(out);
    expect(copy.sqlite.prepare('SELECT username FROM users').all()).toEqual([{ username: 'maria' }]);
    await copy.close();
  });

  it('refuses to write a backup over an existing file unless --force, and writes backups and databases owner-only', async () => {
    const precious = join(dir, 'precious.sqlite');
    writeFileSync(precious, 'another database');
    const refused = await ardesk(['backup', '--db', db, '--out', precious]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`${precious} already exists; give --force to replace it`);
    expect(readFileSync(precious, 'utf8')).toBe('another database');
    expect((await ardesk(['backup', '--db', db, '--out', db, '--force'])).stderr).toContain('--out is the database itself');
    expect((await ardesk(['backup', '--db', db, '--out', precious, '--force'])).code).toBe(0);
    const copy = openDatabase(precious);
    expect(copy.sqlite.prepare('SELECT username FROM users').all()).toEqual([{ username: 'maria' }]);
    await copy.close();
    const mode = (file: string) => statSync(file).mode & 0o777;
    expect(mode(precious)).toBe(0o600);
    expect(mode(join(dir, 'copy.sqlite'))).toBe(0o600);
    expect(mode(db)).toBe(0o600);
    const fresh = openDatabase(join(dir, 'fresh.sqlite'));
    fresh.sqlite.exec('CREATE TABLE t (x); INSERT INTO t VALUES (1)');
    expect([mode(join(dir, 'fresh.sqlite')), mode(join(dir, 'fresh.sqlite-wal')), mode(join(dir, 'fresh.sqlite-shm'))]).toEqual([0o600, 0o600, 0o600]);
    await fresh.close();
  });

  it('explains unknown commands and options', async () => {
    const unknown = await ardesk(['frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command frobnicate');
    const badOption = await ardesk(['serve', '--bogus']);
    expect(badOption.code).toBe(2);
    expect(badOption.stderr).toContain('unknown option --bogus');
    const badPort = await ardesk(['serve', '--port', '70000', '--db', db]);
    expect(badPort.code).toBe(2);
    expect(badPort.stderr).toContain('--port must be a whole number from 0 to 65535');
  });
});
