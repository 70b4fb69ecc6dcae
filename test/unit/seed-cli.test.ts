import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openEngine } from '../../core/runtime/engine';
import { BIN } from '../support/cli';

const dir = mkdtempSync(join(tmpdir(), 'ardesk-seed-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function ardesk(...args: string[]) {
  const run = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 120_000 });
  return { code: run.status, out: run.stdout, err: run.stderr };
}

describe('ardesk seed', () => {
  it('creates the demo workspace once, and refuses a second time', async () => {
    const file = join(dir, 'demo.sqlite');
    const first = ardesk('seed', '--db', file, '--demo', '--invoices', '400', '--customers', '60', '--seed', '4');
    expect(first.code, first.err).toBe(0);
    expect(first.out).toContain('Acme Industrial Supply');
    expect(first.out).toMatch(/60 customers, 400 invoices/);
    expect(first.out).toContain('users: demo / demo, outsider / outsider');
    expect(first.out).toMatch(/seeded .* with seed 4 in \d+\.\d s/);

    const again = ardesk('seed', '--db', file, '--demo');
    // A refusal of what was asked, like every usage error (issue 40).
    expect(again.code).toBe(2);
    expect(again.err).toContain('already set up');

    // The file is back in WAL mode with its data, ready for `ardesk serve`.
    const engine = await openEngine({ file });
    try {
      expect(engine.database.sqlite.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(engine.database.sqlite.prepare(`SELECT count(*) AS n FROM invoices`).get()).toEqual({ n: 440 });
    } finally {
      await engine.close();
    }
  });

  it('adds a generated ledger as a new company without --demo', () => {
    const res = ardesk('seed', '--db', join(dir, 'plain.sqlite'), '--invoices', '250', '--customers', '30');
    expect(res.code, res.err).toBe(0);
    expect(res.out).toMatch(/Generated Ledger 1 \([0-9a-f-]{36}\): 30 customers, 250 invoices/);
    expect(res.out).not.toContain('users:');
  });

  it('shows the progress of a large ledger and leaves its insights to a refresh, saying so', () => {
    const res = ardesk('seed', '--db', join(dir, 'large.sqlite'), '--demo', '--invoices', '21000', '--customers', '900');
    expect(res.code, res.err).toBe(0);
    const lines = res.err.trim().split('\n');
    expect(lines.filter((l) => l.startsWith('invoices: '))).toHaveLength(11);
    expect(lines).toContain('invoices: 100% (21000/21000)');
    expect(lines[lines.length - 1]).toMatch(/^indexes: 100% \((\d+)\/\1\)$/);
    expect(res.out).toMatch(/21000 invoices[^\n]*\n {2}insights: not computed at this size; `ardesk insights refresh --company [0-9a-f-]{36}`/);
    // The small second company is seeded with its insights, quietly.
    expect(res.out).toMatch(/Bluebird Catering Co\.[^\n]*\nusers:/);
  });

  it('rejects malformed numbers as a usage error', () => {
    const res = ardesk('seed', '--db', join(dir, 'bad.sqlite'), '--invoices', 'many');
    expect(res.code).toBe(2);
    expect(res.err).toContain('--invoices must be a whole number');
  });
});
