import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closestNames } from '../../core/cli/company';
import { listeningInodes } from '../../core/cli/port';
import { statusLine } from '../../core/cli/progress';
import { customersFor } from '../../core/cli/commands/seed';
import { openDatabase } from '../../core/db/connection';
import { BIN, startServe } from '../support/cli';

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

async function rows<T>(file: string, sql: string): Promise<T[]> {
  const opened = openDatabase(file);
  try {
    return opened.sqlite.prepare(sql).all() as T[];
  } finally {
    await opened.close();
  }
}

describe('the ardesk command without traps', () => {
  let dir: string;
  let db: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'ardesk-traps-'));
    db = join(dir, 'traps.sqlite');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('seeds about one customer per 20 invoices unless told, and says so in its help', async () => {
    const seeded = await ardesk(['seed', '--db', db, '--invoices', '60']);
    expect(seeded.code).toBe(0);
    expect(seeded.stdout).toMatch(/Generated Ledger 1 \([0-9a-f-]{36}\): 3 customers, 60 invoices/);
    expect([customersFor(1), customersFor(100_000), customersFor(1_000_000)]).toEqual([1, 5_000, 50_000]);
    const help = await ardesk(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--customers N (default: about one per 20 invoices)');
    expect(help.stdout).toContain('ardesk member add --username U --company NAME_OR_ID');
    expect(help.stdout).toContain('ardesk company list');
  });

  it('refuses a user for an unknown company with the closest names, changing nothing; --create-company makes it', async () => {
    const refused = await ardesk(['user', 'add', '--db', db, '--username', 'ana', '--password', 'ana-pw-1', '--company', 'Ledger 1']);
    expect(refused.code).toBe(2);
    // One line of refusal after the line naming the database.
    expect(refused.stderr.trim().split('\n')).toEqual([`ardesk: database ${db}`, expect.any(String)]);
    expect(refused.stderr).toContain('no company Ledger 1; did you mean "Generated Ledger 1"?');
    expect(refused.stderr).toContain('--create-company');
    expect(await rows(db, 'SELECT username FROM users')).toEqual([]);
    expect(await rows(db, 'SELECT name FROM companies')).toEqual([{ name: 'Generated Ledger 1' }]);

    const made = await ardesk(['user', 'add', '--db', db, '--username', 'ana', '--password', 'ana-pw-1', '--company', 'Acme', '--create-company', '--role', 'owner']);
    expect(made.code).toBe(0);
    expect(made.stdout).toMatch(/user ana added as owner of the new company Acme/);
    const existing = await ardesk(['user', 'add', '--db', db, '--username', 'bo', '--password', 'bo-pw-12', '--company', 'Generated Ledger 1']);
    expect(existing.code).toBe(0);
    expect(existing.stdout).toMatch(/user bo added as collector of company Generated Ledger 1 \(/);
    // The maker of a new company is on its team as manager (so "Mine" and the AR owner pickers know
    // them); a collector joining an existing one is on its team too (issue 40: users and team members are one).
    expect(await rows(db, 'SELECT u.username, c.name AS company, t.role FROM team_members t JOIN users u ON u.id = t.user_id JOIN companies c ON c.id = t.company_id ORDER BY u.username')).toEqual([
      { username: 'ana', company: 'Acme', role: 'manager' },
      { username: 'bo', company: 'Generated Ledger 1', role: 'ar' },
    ]);
  });

  it('adds an existing user to another company, once, and lists the companies', async () => {
    const added = await ardesk(['member', 'add', '--db', db, '--username', 'ana', '--company', 'Generated Ledger 1', '--role', 'viewer']);
    expect(added.code).toBe(0);
    expect(added.stdout).toContain('ana added as viewer of Generated Ledger 1');
    expect(await rows(db, "SELECT c.name, m.role FROM memberships m JOIN users u ON u.id = m.user_id JOIN companies c ON c.id = m.company_id WHERE u.username = 'ana' ORDER BY c.name")).toEqual([
      { name: 'Acme', role: 'owner' },
      { name: 'Generated Ledger 1', role: 'viewer' },
    ]);
    const again = await ardesk(['member', 'add', '--db', db, '--username', 'ana', '--company', 'Acme']);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('ana is already a member of Acme, as owner');
    const nobody = await ardesk(['member', 'add', '--db', db, '--username', 'zed', '--company', 'Acme']);
    expect(nobody.code).toBe(2);
    expect(nobody.stderr).toContain('no user zed');
    const typo = await ardesk(['member', 'add', '--db', db, '--username', 'ana', '--company', 'Acne']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('did you mean "Acme"');

    const list = await ardesk(['company', 'list', '--db', db]);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^Acme {2}[0-9a-f-]{36} {2}USD {2}1 members, 0 invoices$/m);
    expect(list.stdout).toMatch(/^Generated Ledger 1 {2}[0-9a-f-]{36} {2}USD {2}2 members, 60 invoices$/m);
  });

  it('says why an insights refresh had nothing to do', async () => {
    const res = await ardesk(['insights', 'refresh', '--db', db, '--company', 'Acme']);
    expect(res.code).toBe(0);
    expect(res.stdout.trim()).toBe('Nothing to recompute for Acme: it has no invoices yet. Its company-wide figures are up to date.');
    expect(res.stderr).toBe(`ardesk: database ${db}\n`);
  });

  it('names a port in use, who holds it, and --port 0, in one line', async () => {
    const holder: Server = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as { port: number }).port;
    try {
      const res = await ardesk(['serve', '--db', db, '--port', String(port)]);
      expect(res.code).toBe(2);
      const lines = res.stderr.trim().split('\n').filter((l) => !l.startsWith('ardesk: database '));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(`port ${port} on 127.0.0.1 is in use (pid ${process.pid}, `);
      expect(lines[0]).toContain('--port 0 for a free one');
    } finally {
      holder.close();
    }
  });

  it('runs --demo without --db in a demo folder beside the data folder, never in the data folder itself', async () => {
    const real = join(dir, 'real-data');
    const server = await startServe(['--port', '0', '--demo'], { ARDESK_DATA_DIR: real });
    try {
      expect(server.output()).toContain(`the demo workspace lives in ${real}-demo`);
      expect(existsSync(join(`${real}-demo`, 'ardesk.sqlite'))).toBe(true);
      expect(existsSync(join(real, 'ardesk.sqlite'))).toBe(false);
    } finally {
      await server.stop();
    }
    expect(await rows(join(`${real}-demo`, 'ardesk.sqlite'), 'SELECT username FROM users ORDER BY username')).toEqual([{ username: 'demo' }, { username: 'outsider' }]);
  });
});

describe('the CLI helpers', () => {
  it('finds the closest company names: containing first, then by edits, case aside', () => {
    const names = ['Generated Ledger 1', 'Acme', 'Harbor Foods', 'Ledgerline'];
    expect(closestNames('Ledger 1', names)).toEqual(['Generated Ledger 1', 'Ledgerline']);
    expect(closestNames('acne', names)).toEqual(['Acme']);
    expect(closestNames('ledger', names)).toEqual(['Ledgerline', 'Generated Ledger 1']);
    expect(closestNames('Zebra Logistics', names)).toEqual([]);
  });

  it('reads who listens on a port from the kernel table', () => {
    const table = [
      '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode',
      '   0: 0100007F:1306 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 4242 1',
      '   1: 0100007F:1306 0100007F:C350 01 00000000:00000000 00:00000000 00000000  1000        0 4343 1',
      '   2: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 4444 1',
    ].join('\n');
    expect(listeningInodes(table, 4870)).toEqual(['4242']);
    expect(listeningInodes(table, 8080)).toEqual(['4444']);
    expect(listeningInodes(table, 9999)).toEqual([]);
  });

  it('writes each download step once where nothing redraws a line, and redraws in place on a terminal', () => {
    const written: string[] = [];
    const pipe = { isTTY: false, write: (s: string) => written.push(s) } as unknown as NodeJS.WriteStream;
    const line = statusLine(pipe);
    for (const rows of ['500', '1,000', '1,500']) line.show(`Downloading Acme: ${rows} rows`);
    line.show('Downloading Harbor: 10 rows');
    line.done();
    expect(written).toEqual(['Downloading Acme ...\n', 'Downloading Harbor ...\n']);
    const drawn: string[] = [];
    const tty = statusLine({ isTTY: true, write: (s: string) => drawn.push(s) } as unknown as NodeJS.WriteStream);
    tty.show('Downloading Acme: 500 rows');
    tty.done();
    expect(drawn).toEqual(['\r\x1b[KDownloading Acme: 500 rows', '\r\x1b[K']);
  });
});
