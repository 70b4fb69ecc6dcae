import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../core/db/connection';
import { createApp } from '../../core/http/app';
import { addCompany, addUser, type App, call, loginAs } from '../support/api';
import { type TestEngine, testEngine } from '../support/engine';

describe('the data folder and backups (extension)', () => {
  let engine: TestEngine;
  let app: App;
  const tokens: Record<string, string> = {};

  beforeAll(async () => {
    engine = await testEngine('2026-11-23T12:00:00.000Z');
    app = createApp(engine);
    const acme = await addCompany(engine, 'Acme Supply');
    const borealis = await addCompany(engine, 'Borealis Foods');
    await addUser(engine, 'boss', [
      [acme, 'owner'],
      [borealis, 'owner'],
    ]);
    await addUser(engine, 'half', [
      [acme, 'owner'],
      [borealis, 'collector'],
    ]);
    await addUser(engine, 'solo', [[acme, 'owner']]);
    for (const username of ['boss', 'half', 'solo']) tokens[username] = await loginAs(app, username);
    // Files beside the database that are not its backups.
    writeFileSync(join(engine.dir, 'notes.bak'), 'x');
    writeFileSync(join(engine.dir, 'other.sqlite.2026-01-01T00-00-00-000Z.bak'), 'x');
  });
  afterAll(() => engine.dispose());

  it('shows the data folder to an owner of every company, with no backups yet', async () => {
    const res = await call(app, 'GET', '/api/v1/backups/', { token: tokens.boss });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data_folder: engine.dir,
      database_file: join(engine.dir, 'ardesk.sqlite'),
      database_size_bytes: statSync(join(engine.dir, 'ardesk.sqlite')).size,
      backups: [],
    });
  });

  it('backs up now: a consistent copy beside the database that opens with every company, listed newest first', async () => {
    const made = await call(app, 'POST', '/api/v1/backups/', { token: tokens.boss });
    expect(made.status).toBe(201);
    const path = join(engine.dir, 'ardesk.sqlite.2026-11-23T12-00-00-000Z.bak');
    expect(made.body).toEqual({ file_name: 'ardesk.sqlite.2026-11-23T12-00-00-000Z.bak', path, size_bytes: statSync(path).size, created_at: statSync(path).mtime.toISOString() });
    const copy = openDatabase(path);
    try {
      expect(copy.sqlite.prepare('SELECT name FROM companies ORDER BY name').all()).toEqual([{ name: 'Acme Supply' }, { name: 'Borealis Foods' }]);
    } finally {
      await copy.close();
    }
    // A second one at the same instant does not overwrite the first.
    const second = await call(app, 'POST', '/api/v1/backups', { token: tokens.boss });
    expect(second.body.file_name).toBe('ardesk.sqlite.2026-11-23T12-00-00-000Z-2.bak');
    const listed = await call(app, 'GET', '/api/v1/backups', { token: tokens.boss });
    expect(listed.body.backups.map((b: { file_name: string }) => b.file_name).sort()).toEqual([
      'ardesk.sqlite.2026-11-23T12-00-00-000Z-2.bak',
      'ardesk.sqlite.2026-11-23T12-00-00-000Z.bak',
    ]);
    expect(listed.body.backups.every((b: { size_bytes: number }) => b.size_bytes > 0)).toBe(true);
  });

  it('refuses anyone who does not own every company in the database (a backup holds them all)', async () => {
    for (const username of ['half', 'solo']) {
      for (const method of ['GET', 'POST']) {
        const res = await call(app, method, '/api/v1/backups/', { token: tokens[username] });
        expect(res.status, `${username} ${method}`).toBe(403);
        expect(res.body.code).toBe('owner_of_all_required');
      }
    }
    expect((await call(app, 'GET', '/api/v1/backups/')).status).toBe(401);
    expect((await call(app, 'GET', '/api/v1/backups/', { token: tokens.boss })).body.backups).toHaveLength(2);
  });
});
