import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Migrator } from 'kysely/migration';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../core/db/connection';
import { migrations } from '../../core/db/migrations';
import { openEngine } from '../../core/runtime/engine';

describe('migrations at start-up', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'ardesk-migrate-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('creates a new database without a backup, with WAL, full sync and foreign keys on', async () => {
    const file = join(dir, 'new.sqlite');
    const engine = await openEngine({ file });
    expect(engine.migration.applied).toEqual(Object.keys(migrations));
    expect(engine.migration.backup).toBeNull();
    expect(engine.database.sqlite.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(engine.database.sqlite.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(engine.database.sqlite.pragma('synchronous', { simple: true })).toBe(2);
    await engine.close();
    expect(readdirSync(dir).filter((f) => f.endsWith('.bak'))).toEqual([]);
  });

  it('copies an existing file aside before applying pending migrations, keeping its data', async () => {
    const file = join(dir, 'old.sqlite');
    const first = Object.keys(migrations)[0];
    const old = openDatabase(file);
    const partial = new Migrator({ db: old.db, provider: { getMigrations: async () => ({ [first]: migrations[first] }) } });
    expect((await partial.migrateToLatest()).error).toBeUndefined();
    old.sqlite.prepare("INSERT INTO companies (id, name, currency, created_at, updated_at) VALUES ('c1', 'Kept Co', 'USD', 'x', 'x')").run();
    await old.close();

    const engine = await openEngine({ file });
    expect(engine.migration.applied).toEqual(Object.keys(migrations).slice(1));
    expect(engine.migration.backup).not.toBeNull();
    expect(existsSync(engine.migration.backup!)).toBe(true);
    expect(engine.database.sqlite.prepare('SELECT name FROM companies').get()).toEqual({ name: 'Kept Co' });
    await engine.close();

    const backup = openDatabase(engine.migration.backup!);
    expect(backup.sqlite.prepare('SELECT name FROM companies').get()).toEqual({ name: 'Kept Co' });
    await backup.close();
  });

  it('does nothing and takes no backup when the schema is current', async () => {
    const file = join(dir, 'current.sqlite');
    await (await openEngine({ file })).close();
    const again = await openEngine({ file });
    expect(again.migration).toEqual({ applied: [], backup: null });
    await again.close();
  });

  it('0210 marks the labels the engine read by name with that meaning, and only those', async () => {
    const file = join(dir, 'labels.sqlite');
    const old = openDatabase(file);
    const before = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < '0210'));
    const partial = new Migrator({ db: old.db, provider: { getMigrations: async () => before } });
    expect((await partial.migrateToLatest()).error).toBeUndefined();
    old.sqlite.prepare("INSERT INTO companies (id, name, currency, created_at, updated_at) VALUES ('c1', 'Kept Co', 'USD', 'x', 'x')").run();
    const label = old.sqlite.prepare("INSERT INTO labels (id, company_id, name, color, created_at, updated_at) VALUES (?, 'c1', ?, '#000000', 'x', 'x')");
    for (const [id, name] of [['l1', 'Disputed'], ['l2', 'Promise to pay'], ['l3', 'VIP'], ['l4', 'Payment plan']]) label.run(id, name);
    await old.close();

    const engine = await openEngine({ file });
    expect(engine.database.sqlite.prepare('SELECT name, meaning FROM labels ORDER BY id').all()).toEqual([
      { name: 'Disputed', meaning: 'dispute' },
      { name: 'Promise to pay', meaning: 'promise' },
      { name: 'VIP', meaning: null },
      { name: 'Payment plan', meaning: null },
    ]);
    expect(() => engine.database.sqlite.prepare("UPDATE labels SET meaning = 'maybe' WHERE id = 'l3'").run()).toThrow(/CHECK/);
    await engine.close();
  });
});
