/**
 * Local-first sync with real processes over real HTTP: a team server (`ardesk serve --team`), two
 * desktops (`ardesk serve` on connected databases) behind TCP proxies of the test's own, and the
 * `ardesk connect` / `ardesk sync` commands. Every scenario ends with the same checks: the outbox
 * drains, nothing is applied twice, every database passes integrity_check.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRng } from '../../core/seed/random';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy';
import { Api, ardesk, ardeskOk, companyState, integrityCheck, query, type ServerProcess, startServe, waitFor } from '../support/sync';

const PASSWORD = 'correct horse 9';
const CHAOS_SEED = 44;

describe('sync between a team server and two desktops', () => {
  let dir: string;
  let serverDb: string;
  let server: ServerProcess;
  let serverPort: number;
  let serverApi: Api;
  let acme: string;
  let other: string;
  const desktops: Array<{ name: string; user: string; db: string; proxy: TcpProxy; process: ServerProcess | null; api: Api | null }> = [];

  async function startTeamServer() {
    server = await startServe(['--db', serverDb, '--team', '--port', String(serverPort)]);
    serverPort = Number(new URL(server.url).port);
    for (const d of desktops) d.proxy.retarget(serverPort);
  }

  async function startDesktop(d: (typeof desktops)[number]) {
    d.process = await startServe(['--db', d.db, '--port', '0', '--sync-interval', '1']);
    d.api = await Api.login(d.process.url, d.user, PASSWORD);
  }

  const status = (d: (typeof desktops)[number]) => d.api!.ok('GET', '/api/v1/sync/status');

  /** Waits until every desktop has nothing pending and holds exactly the server's rows. */
  async function converged(companyId: string) {
    await waitFor('the desktops to converge', async () => {
      const expected = companyState(serverDb, companyId);
      for (const d of desktops) {
        const s = await status(d);
        if (s.pending !== 0) return false;
        if (JSON.stringify(companyState(d.db, companyId)) !== JSON.stringify(expected)) return false;
      }
      return true;
    }, 45_000);
  }

  function appliedOnce() {
    const dup = query(serverDb, 'SELECT client_id, mutation_id, count(*) AS n FROM sync_mutations GROUP BY client_id, mutation_id HAVING n > 1');
    expect(dup).toEqual([]);
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ardesk-sync-'));
    serverDb = join(dir, 'team.sqlite');
    await ardeskOk(['user', 'add', '--db', serverDb, '--username', 'ann', '--password', PASSWORD, '--company', 'Acme', '--role', 'owner', '--create-company']);
    await ardeskOk(['user', 'add', '--db', serverDb, '--username', 'bob', '--password', PASSWORD, '--company', 'Acme', '--role', 'collector']);
    await ardeskOk(['user', 'add', '--db', serverDb, '--username', 'carol', '--password', PASSWORD, '--company', 'Other Co', '--role', 'owner', '--create-company']);
    acme = query<{ id: string }>(serverDb, "SELECT id FROM companies WHERE name = 'Acme'")[0].id;
    other = query<{ id: string }>(serverDb, "SELECT id FROM companies WHERE name = 'Other Co'")[0].id;
    serverPort = 0;
    server = await startServe(['--db', serverDb, '--team', '--port', '0']);
    serverPort = Number(new URL(server.url).port);
    serverApi = await Api.login(server.url, 'ann', PASSWORD);
    const customer = await serverApi.ok('POST', `/api/companies/${acme}/customers`, { name: 'Initech' });
    await serverApi.ok('POST', `/api/companies/${acme}/invoices`, { customer: customer.id, total_amount: 500, number: 'INV-1' });
    const carol = await Api.login(server.url, 'carol', PASSWORD);
    await carol.ok('POST', `/api/companies/${other}/customers`, { name: 'Secret Customer' });
    for (const [name, user] of [['d1', 'ann'], ['d2', 'bob']] as const) {
      // Seeded: a failing chaos run cuts, delays and reorders by the same draws when rerun.
      const proxy = await startTcpProxy(serverPort, createRng(CHAOS_SEED, desktops.length).next);
      const db = join(dir, `${name}.sqlite`);
      const out = await ardesk(['connect', '--db', db, '--server', proxy.url, '--username', user, '--password', PASSWORD]);
      expect(out.code, out.stderr).toBe(0);
      expect(out.stdout).toMatch(/Connected Acme: \d+ rows downloaded/);
      expect(out.stderr).toMatch(/Downloading Acme/);
      desktops.push({ name, user, db, proxy, process: null, api: null });
    }
    for (const d of desktops) await startDesktop(d);
  }, 120_000);

  afterAll(async () => {
    for (const d of desktops) {
      await d.process?.stop();
      await d.proxy.close();
    }
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps only the connecting user’s password hash and never another company’s rows', () => {
    const hashes = query<{ username: string; password_hash: string }>(desktops[0].db, 'SELECT username, password_hash FROM users ORDER BY username');
    expect(hashes.map((h) => h.username)).toEqual(['ann', 'bob']);
    expect(hashes.find((h) => h.username === 'ann')!.password_hash).toMatch(/^scrypt\$/);
    expect(hashes.find((h) => h.username === 'bob')!.password_hash).toBe('!');
    for (const d of desktops) {
      expect(query(d.db, 'SELECT id FROM companies WHERE id = ?', other)).toEqual([]);
      expect(query(d.db, "SELECT id FROM customers WHERE name = 'Secret Customer'")).toEqual([]);
    }
  });

  it('converges after concurrent offline edits on both desktops, with the ids made offline', async () => {
    for (const d of desktops) d.proxy.set({ offline: true });
    const [d1, d2] = desktops;
    const initech = query<{ id: string }>(d1.db, "SELECT id FROM customers WHERE name = 'Initech'")[0];
    const c1 = await d1.api!.ok('POST', `/api/companies/${acme}/customers`, { name: 'Made offline by Ann' });
    const i1 = await d1.api!.ok('POST', `/api/companies/${acme}/invoices`, { customer: c1.id, total_amount: 120, number: 'ANN-1' });
    const c2 = await d2.api!.ok('POST', `/api/companies/${acme}/customers`, { name: 'Made offline by Bob' });
    await d2.api!.ok('POST', `/api/companies/${acme}/invoices`, { customer: c2.id, total_amount: 80, number: 'BOB-1' });
    await d1.api!.ok('PATCH', `/api/companies/${acme}/customers/${initech.id}`, { notes: 'Ann was here' });
    await d2.api!.ok('PATCH', `/api/companies/${acme}/customers/${initech.id}`, { notes: 'Bob was here' });
    expect((await status(d1)).pending).toBe(3);
    expect((await status(d2)).pending).toBe(3);
    for (const d of desktops) d.proxy.set({ offline: false });
    await converged(acme);
    const onServer = query<{ id: string; name: string }>(serverDb, 'SELECT id, name FROM customers WHERE id IN (?, ?)', c1.id, c2.id);
    expect(onServer.map((c) => c.name).sort()).toEqual(['Made offline by Ann', 'Made offline by Bob']);
    expect(query(serverDb, 'SELECT id FROM invoices WHERE id = ?', i1.id)).toHaveLength(1);
    appliedOnce();
  }, 90_000);

  it('ends an action approved on one desktop and rejected on the other in one valid state, and tells the loser', async () => {
    const customer = query<{ id: string }>(serverDb, "SELECT id FROM customers WHERE name = 'Initech'")[0];
    const action = await serverApi.ok('POST', `/api/companies/${acme}/actions`, { customer: customer.id, action_type: 'email', description: 'Remind Initech' });
    await converged(acme);
    const [d1, d2] = desktops;
    for (const d of desktops) d.proxy.set({ offline: true });
    await d1.api!.ok('POST', `/api/companies/${acme}/actions/${action.id}/approve`, {});
    await d2.api!.ok('POST', `/api/companies/${acme}/actions/${action.id}/reject`, { reason: 'Customer paid by phone' });
    d2.proxy.set({ offline: false });
    await waitFor('the rejection to reach the server', async () => (await status(d2)).pending === 0);
    d1.proxy.set({ offline: false });
    await converged(acme);
    const final = query<{ status: string }>(serverDb, 'SELECT status FROM actions WHERE id = ?', action.id)[0];
    expect(final.status).toBe('cancelled');
    for (const d of desktops) expect(query<{ status: string }>(d.db, 'SELECT status FROM actions WHERE id = ?', action.id)[0].status).toBe('cancelled');
    const told = (await status(d1)).rejected;
    expect(told).toEqual(expect.arrayContaining([expect.objectContaining({ command: 'approve_action', reason: 'Cannot approve an action whose status is cancelled; allowed from: proposed, scheduled' })]));
    expect((await status(d2)).rejected.filter((r: { command: string }) => r.command === 'reject_action')).toEqual([]);
    appliedOnce();
  }, 90_000);

  it('loses nothing and applies nothing twice through cut, delayed and reordered connections', async () => {
    for (const d of desktops) d.proxy.set({ cutProbability: 0.3, chunkDelayMs: 5, holdMs: 150 });
    const made: string[] = [];
    for (let i = 0; i < 12; i += 1) {
      const d = desktops[i % 2];
      const name = `Chaos ${i}`;
      await d.api!.ok('POST', `/api/companies/${acme}/customers`, { name });
      made.push(name);
      await new Promise((r) => setTimeout(r, 100));
    }
    await waitFor('some connections to be cut', () => desktops.every((d) => d.proxy.cuts() > 0), 30_000);
    for (const d of desktops) d.proxy.set({ cutProbability: 0, chunkDelayMs: 0, holdMs: 0 });
    await converged(acme);
    const names = query<{ name: string; n: number }>(serverDb, "SELECT name, count(*) AS n FROM customers WHERE name LIKE 'Chaos %' GROUP BY name");
    expect(names.map((r) => r.name).sort()).toEqual([...made].sort());
    expect(names.every((r) => r.n === 1)).toBe(true);
    appliedOnce();
  }, 120_000);

  it('survives a SIGKILL of the team server and its restart', async () => {
    const [d1] = desktops;
    server.child.kill('SIGKILL');
    await new Promise((r) => server.child.once('exit', r));
    const c = await d1.api!.ok('POST', `/api/companies/${acme}/customers`, { name: 'Made while the server was down' });
    // The desktop's next round finds the server gone (a round every second).
    await waitFor('the desktop to see the team server offline', async () => (await status(d1)).online === false, 10_000);
    expect((await status(d1)).pending).toBeGreaterThan(0);
    await startTeamServer();
    serverApi = await Api.login(server.url, 'ann', PASSWORD);
    await converged(acme);
    expect(query(serverDb, 'SELECT id FROM customers WHERE id = ?', c.id)).toHaveLength(1);
    appliedOnce();
  }, 120_000);

  it('loses nothing when a desktop dies after applying a pull and before committing it', async () => {
    const db = join(dir, 'd3.sqlite');
    const proxy = await startTcpProxy(serverPort);
    await ardeskOk(['connect', '--db', db, '--server', proxy.url, '--username', 'ann', '--password', PASSWORD]);
    proxy.set({ offline: true });
    const d3 = await startServe(['--db', db, '--port', '0', '--sync-interval', '3600']);
    const api = await Api.login(d3.url, 'ann', PASSWORD);
    const made = await api.ok('POST', `/api/companies/${acme}/customers`, { name: 'Made before the crash' });
    await d3.stop();
    proxy.set({ offline: false });
    expect(query(db, 'SELECT command FROM sync_outbox')).toEqual([{ command: 'create_customer' }]);

    const crashed = await ardesk(['sync', '--db', db, '--json'], { ARDESK_SYNC_FAULT: 'pull-before-commit' });
    expect(crashed.code, crashed.stderr).toBe(86);
    expect(integrityCheck(db)).toBe('ok');
    // The push reached the server; the pull's transaction died with the process, so the command
    // is still queued locally and the local state is the one from before the pull.
    expect(query(serverDb, 'SELECT id FROM customers WHERE id = ?', made.id)).toHaveLength(1);
    expect(query(db, 'SELECT command FROM sync_outbox')).toEqual([{ command: 'create_customer' }]);

    const again = await ardesk(['sync', '--db', db, '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ pushed: 1, applied: 1, rejected: [], pending: 0 });
    expect(query(serverDb, "SELECT id FROM customers WHERE name = 'Made before the crash'")).toHaveLength(1);
    expect(query(db, 'SELECT id FROM customers WHERE id = ?', made.id)).toHaveLength(1);
    expect(JSON.stringify(companyState(db, acme))).toBe(JSON.stringify(companyState(serverDb, acme)));
    expect(integrityCheck(db)).toBe('ok');
    appliedOnce();
    await proxy.close();
  }, 120_000);

  it('stops feeding a company to a desktop whose membership was removed, and tells of its pending commands', async () => {
    const [, d2] = desktops;
    d2.proxy.set({ offline: true });
    await d2.api!.ok('POST', `/api/companies/${acme}/customers`, { name: 'Bob after removal' });
    const bob = query<{ id: string }>(serverDb, "SELECT id FROM users WHERE username = 'bob'")[0].id;
    const writer = new BetterSqlite3(serverDb);
    writer.pragma('busy_timeout = 5000');
    writer.prepare('DELETE FROM memberships WHERE user_id = ? AND company_id = ?').run(bob, acme);
    writer.close();
    await serverApi.ok('POST', `/api/companies/${acme}/customers`, { name: 'After Bob left' });
    await d2.process!.stop();
    d2.process = null;
    d2.proxy.set({ offline: false });
    const round = await ardesk(['sync', '--db', d2.db, '--json']);
    expect(round.code, round.stderr).toBe(0);
    const result = JSON.parse(round.stdout);
    expect(result.pending).toBe(0);
    expect(result.rejected).toEqual([expect.objectContaining({ command: 'create_customer' })]);
    expect(query(d2.db, 'SELECT id FROM customers WHERE company_id = ?', acme)).toEqual([]);
    expect(query(d2.db, "SELECT id FROM customers WHERE name IN ('After Bob left', 'Bob after removal')")).toEqual([]);
    expect(query(serverDb, "SELECT id FROM customers WHERE name = 'Bob after removal'")).toEqual([]);
    desktops.splice(1, 1);
    await d2.proxy.close();
  }, 90_000);

  it('leaves every database whole', () => {
    for (const file of [serverDb, ...desktops.map((d) => d.db)]) expect(integrityCheck(file)).toBe('ok');
  });
});
