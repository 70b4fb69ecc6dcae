/**
 * `ardesk connect` and `ardesk sync` tell a script author what went wrong with the team server in
 * words (the same ones the app shows), exit 1, and leave the database unconnected.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ardesk, ardeskOk, query, type ServerProcess, startServe } from '../support/sync';

const PASSWORD = 'correct horse battery';

/** A loopback port nothing listens on: taken from the OS, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

describe('ardesk connect and sync: failures in words', () => {
  let dir: string;
  let team: ServerProcess;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ardesk-sync-errors-'));
    const teamDb = join(dir, 'team.sqlite');
    await ardeskOk(['user', 'add', '--db', teamDb, '--username', 'ann', '--password', PASSWORD, '--company', 'Acme', '--role', 'owner', '--create-company']);
    team = await startServe(['--db', teamDb, '--team', '--port', '0']);
  }, 60_000);

  afterAll(async () => {
    await team?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const unconnected = (db: string) => query<{ server_url: string | null }>(db, 'SELECT server_url FROM sync_state')[0].server_url;

  it('names a server that does not answer, a wrong password and a reserved port', async () => {
    const db = join(dir, 'desktop.sqlite');
    const url = `http://127.0.0.1:${await closedPort()}`;
    const refused = await ardesk(['connect', '--db', db, '--server', url, '--username', 'ann', '--password', PASSWORD]);
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toBe(`ardesk connect: Could not reach the team server at ${url}: nothing answers at that address (is ardesk serve --team running, on that port?)`);

    const wrong = await ardesk(['connect', '--db', db, '--server', team.url, '--username', 'ann', '--password', 'not it']);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr.trim()).toBe(`ardesk connect: The team server at ${team.url} refused this username and password`);

    const reserved = await ardesk(['connect', '--db', db, '--server', 'http://127.0.0.1:25', '--username', 'ann', '--password', PASSWORD]);
    expect(reserved.code).toBe(1);
    expect(reserved.stderr).toMatch(/that port is reserved for another protocol/);
    expect(unconnected(db)).toBeNull();
  }, 60_000);

  it('sync --server moves a desktop to the team server’s new address; an address that does not answer keeps the old one', async () => {
    const db = join(dir, 'moving.sqlite');
    // A database of its own, never connected (a missing one is refused before: "no database at").
    await ardeskOk(['migrate', '--db', join(dir, 'alone.sqlite')]);
    const notConnected = await ardesk(['sync', '--db', join(dir, 'alone.sqlite'), '--server', team.url]);
    expect(notConnected.code).toBe(2);
    expect(notConnected.stderr).toContain('not connected to a team server');
    await ardeskOk(['connect', '--db', db, '--server', team.url, '--username', 'ann', '--password', PASSWORD]);
    const nowhere = `http://127.0.0.1:${await closedPort()}`;
    const failed = await ardesk(['sync', '--db', db, '--server', nowhere]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain(`Could not reach the team server at ${nowhere}`);
    expect(failed.stderr).toContain(`kept the team server address ${team.url}`);
    expect(unconnected(db)).toBe(team.url);
    const moved = team.url.replace('127.0.0.1', 'localhost');
    const round = await ardesk(['sync', '--db', db, '--server', `${moved}/`]);
    expect(round.code).toBe(0);
    expect(round.stdout).toContain(`Team server address changed from ${team.url} to ${moved}`);
    expect(unconnected(db)).toBe(moved);
  }, 60_000);

  it('sync on a replica whose server went away says so and keeps the replica', async () => {
    const db = join(dir, 'replica.sqlite');
    await ardeskOk(['connect', '--db', db, '--server', team.url, '--username', 'ann', '--password', PASSWORD]);
    await team.stop();
    const round = await ardesk(['sync', '--db', db]);
    expect(round.code).toBe(1);
    expect(round.stderr.trim()).toMatch(new RegExp(`^ardesk sync: Could not reach the team server at ${team.url.replace(/[.]/g, '\\.')}: nothing answers at that address`));
    expect(unconnected(db)).toBe(team.url);
  }, 60_000);
});
