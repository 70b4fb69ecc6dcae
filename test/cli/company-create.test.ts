/** Issue 40: `ardesk company create` and `ardesk member invite` make a company and its team from nothing. */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
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

describe('ardesk company create and member invite', () => {
  let dir: string;
  let db: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ardesk-company-create-'));
    db = join(dir, 'cli.sqlite');
    expect((await ardesk(['user', 'add', '--db', db, '--username', 'robin', '--password', 's3cret-pw'])).code).toBe(0);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('creates a company with its owner and details, refuses bad values in words, and invites a collector with a setup code', async () => {
    const bad = await ardesk(['company', 'create', '--db', db, '--name', 'Typo Co', '--owner', 'robin', '--currency', 'EUX']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('currency code such as USD');
    const made = await ardesk(['company', 'create', '--db', db, '--name', 'Nordlicht GmbH', '--owner', 'robin', '--currency', 'eur', '--time-zone', 'Europe/Berlin', '--country', 'de', '--tax-id', 'DE123456789']);
    expect(made.stderr).toBe('');
    expect(made.stdout).toMatch(/^company Nordlicht GmbH created \([0-9a-f-]{36}\), EUR, Europe\/Berlin, DE; robin is its owner\n$/);
    const invited = await ardesk(['member', 'invite', '--db', db, '--company', 'Nordlicht GmbH', '--username', 'carla', '--name', 'Carla Diaz', '--role', 'collector']);
    expect(invited.code).toBe(0);
    const code = /Setup code \(shown once, valid until [^)]+\): ([A-Z2-9]{4}-[A-Z2-9]{4}-[A-Z2-9]{4})/.exec(invited.stdout)?.[1];
    expect(code).toBeDefined();

    const opened = openDatabase(db);
    try {
      const rows = opened.sqlite
        .prepare(
          `SELECT c.name, c.currency, c.time_zone, c.country, d.tax_id, u.username, m.role, t.role AS team_role, u.setup_code_hash
           FROM companies c JOIN memberships m ON m.company_id = c.id JOIN users u ON u.id = m.user_id
           LEFT JOIN team_members t ON t.company_id = c.id AND t.user_id = u.id LEFT JOIN company_document_details d ON d.company_id = c.id
           ORDER BY u.username`,
        )
        .all() as Array<Record<string, string | null>>;
      expect(rows.map(({ setup_code_hash: hash, ...r }) => ({ ...r, hashed: hash !== null }))).toEqual([
        { name: 'Nordlicht GmbH', currency: 'EUR', time_zone: 'Europe/Berlin', country: 'DE', tax_id: 'DE123456789', username: 'carla', role: 'collector', team_role: 'ar', hashed: true },
        { name: 'Nordlicht GmbH', currency: 'EUR', time_zone: 'Europe/Berlin', country: 'DE', tax_id: 'DE123456789', username: 'robin', role: 'owner', team_role: 'manager', hashed: false },
      ]);
      expect(JSON.stringify(rows)).not.toContain(code!);
    } finally {
      await opened.close();
    }
  });
});
