import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startCheckpointer } from '../../core/db/checkpointer';
import { type Engine } from '../../core/engine';
import { openEngine } from '../../core/runtime/engine';

/** About 2,500 pages of 4 KB: past SQLite's default automatic checkpoint (1,000), below the backstop (20,000). */
const ROWS = 2_500;
const ROW_BYTES = 3_000;

async function until(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return condition();
}

function writeRows(engine: Engine): void {
  const sqlite = engine.database.sqlite;
  sqlite.exec('CREATE TABLE IF NOT EXISTS scratch (id INTEGER PRIMARY KEY, body BLOB)');
  const insert = sqlite.prepare('INSERT INTO scratch (body) VALUES (?)');
  sqlite.transaction(() => {
    for (let i = 0; i < ROWS; i++) insert.run(Buffer.alloc(ROW_BYTES, i % 251));
  })();
}

describe('background WAL checkpoints (the server engine)', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'ardesk-checkpoint-'));
    file = join(dir, 'ardesk.sqlite');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('copies committed pages into the database file from the worker, not in the committing thread', async () => {
    const engine = await openEngine({ file, checkpointInBackground: true });
    expect(engine.database.sqlite.pragma('wal_autocheckpoint', { simple: true })).toBe(20_000);
    writeRows(engine);
    // 2,500 pages is below the main connection's backstop: only the worker can have copied them in.
    expect(await until(() => statSync(file).size >= ROWS * ROW_BYTES, 5_000)).toBe(true);
    await engine.close();
    // The main connection closes last, so it tidies the log away.
    expect(existsSync(`${file}-wal`)).toBe(false);
    const reopened = new BetterSqlite3(file, { readonly: true });
    expect(reopened.prepare('SELECT count(*) AS n, sum(length(body)) AS bytes FROM scratch').get()).toEqual({ n: ROWS, bytes: ROWS * ROW_BYTES });
    reopened.close();
  });

  it('gives the main connection its own checkpoints back when the worker cannot run', async () => {
    const engine = await openEngine({ file });
    const errors: string[] = [];
    const logged = console.error;
    console.error = (message: string) => errors.push(message);
    try {
      // The worker opens only an existing file: this one is not there.
      const checkpointer = startCheckpointer(engine.database.sqlite, join(dir, 'missing.sqlite'));
      expect(engine.database.sqlite.pragma('wal_autocheckpoint', { simple: true })).toBe(20_000);
      await checkpointer.close();
      expect(engine.database.sqlite.pragma('wal_autocheckpoint', { simple: true })).toBe(1_000);
      expect(errors.join('\n')).toMatch(/background checkpoints stopped/);
    } finally {
      console.error = logged;
      await engine.close();
    }
  });

  it('without it (CLI commands, tests), commits checkpoint as SQLite does by default', async () => {
    const engine = await openEngine({ file });
    expect(engine.database.sqlite.pragma('wal_autocheckpoint', { simple: true })).toBe(1_000);
    writeRows(engine);
    expect(statSync(file).size).toBeGreaterThanOrEqual(ROWS * ROW_BYTES);
    await engine.close();
  });
});
