import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, type ServerProcess, startServe } from '../support/cli';
import { AR_HEADER, csv } from '../support/import-fixtures';

function ardesk(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }));
  });
}

describe('CLI writes while a server writes the same database', () => {
  let dir: string;
  let db: string;
  let server: ServerProcess;
  let token: string;
  let companyId: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ardesk-busy-'));
    db = join(dir, 'busy.sqlite');
    expect((await ardesk(['user', 'add', '--db', db, '--username', 'ana', '--password', 'ana-pw', '--company', 'Busy Co', '--role', 'owner', '--create-company'])).code).toBe(0);
    server = await startServe(['--port', '0', '--db', db]);
    const login = await fetch(`${server.url}/api/v1/auth/login/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'ana', password: 'ana-pw' }) });
    const body = (await login.json()) as { token: string; companies: Array<{ id: string }> };
    token = body.token;
    companyId = body.companies[0].id;
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('user add waits for a write transaction that holds the lock, says so after a second, and succeeds once it ends', async () => {
    const holder = new BetterSqlite3(db);
    holder.exec('BEGIN IMMEDIATE');
    holder.prepare("INSERT INTO changes (company_id, user_id, command, entity, entity_id, op, data, created_at) VALUES (NULL, NULL, 'hold', 'x', 'x', 'insert', '{}', '2026-01-01')").run();
    try {
      const child = spawn(process.execPath, [BIN, 'user', 'add', '--db', db, '--username', 'bo', '--password', 'bo-pw', '--company', 'Busy Co'], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      // The lock is held past SQLite's 5 s busy timeout, until the command says it is waiting.
      const waited = Date.now();
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no waiting message: ${stderr}`)), 60_000);
        child.stderr.on('data', (c: Buffer) => {
          stderr += c.toString();
          if (stderr.includes('waiting for the database')) {
            clearTimeout(timer);
            resolve();
          }
        });
      });
      await new Promise((r) => setTimeout(r, Math.max(0, 5_500 - (Date.now() - waited))));
      holder.exec('ROLLBACK');
      expect(await exited).toBe(0);
      expect(stdout).toContain('user bo added');
    } finally {
      if (holder.inTransaction) holder.exec('ROLLBACK');
      holder.close();
    }
  });

  it('import and user add succeed while the server is busy with a stream of writes', async () => {
    let writing = true;
    let written = 0;
    const writer = (async () => {
      for (let i = 0; writing; i++) {
        const res = await fetch(`${server.url}/api/companies/${companyId}/labels`, {
          method: 'POST',
          headers: { authorization: `Token ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name: `label ${i}`, color: '#336699' }),
        });
        expect(res.status).toBe(201);
        written++;
      }
    })();
    const file = join(dir, 'rows.csv');
    const rows: Array<Array<string | number>> = [AR_HEADER];
    for (let i = 0; i < 300; i++) rows.push([`C${i % 20}`, `Customer ${i % 20}`, 'US', '', `B-${i}`, '1/5/2026', '2/4/2026', 100 + i, '', '', '', '']);
    writeFileSync(file, csv(rows));
    const mapping = join(dir, 'mapping.json');
    writeFileSync(mapping, JSON.stringify({ entity: 'ar-rows', formats: { date: 'M/D/YYYY' }, customers: { remote_id: 'Customer ID', name: 'Customer' }, invoices: { invoice_number: 'Invoice', invoice_date: 'Date', due_date: 'Due', total_amount: 'Amount' } }));
    try {
      const results = await Promise.all([
        ardesk(['import', '--db', db, '--company', 'Busy Co', '--file', file, '--mapping', mapping]),
        ardesk(['user', 'add', '--db', db, '--username', 'cy', '--password', 'cy-pw', '--company', 'Busy Co']),
      ]);
      for (const r of results) expect(r.code, r.stderr).toBe(0);
      expect(results[0].stdout).toContain('300 created');
    } finally {
      writing = false;
      await writer;
    }
    expect(written).toBeGreaterThan(0);
  });
});
