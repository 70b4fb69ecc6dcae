/**
 * Connecting a desktop from the app, through its own local API (extensions under /api/v1/sync/):
 * a real team server process (`ardesk serve --team`), a real desktop process (`ardesk serve` on a
 * database set up with its own local account), a TCP proxy of the test's own between them.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../core/db/connection';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy';
import { Api, ardeskOk, query, type ServerProcess, startServe, waitFor } from '../support/sync';

/** Holds a database's write lock from another connection for `ms`, as the refresh beside the server does while it writes. */
function holdWriteLock(file: string, ms: number): Promise<void> {
  const holder = new BetterSqlite3(file);
  holder.exec('BEGIN IMMEDIATE');
  return new Promise((resolve) =>
    setTimeout(() => {
      holder.exec('COMMIT');
      holder.close();
      resolve();
    }, ms),
  );
}

const PASSWORD = 'correct horse 9';
const LOCAL_PASSWORD = 'local pass 7';

describe('connecting a desktop to a team server through the app’s local API', () => {
  let dir: string;
  let serverDb: string;
  let deskDb: string;
  let server: ServerProcess;
  let desktop: ServerProcess;
  let proxy: TcpProxy;
  let serverApi: Api;
  let maria: Api;
  let sam: Api;
  let acme: string;
  let other: string;
  let third: string;

  const status = () => maria.ok('GET', '/api/v1/sync/status');
  const credentials = (overrides: Record<string, unknown> = {}) => ({ server_url: proxy.url, username: 'ann', password: PASSWORD, ...overrides });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ardesk-sync-app-'));
    serverDb = join(dir, 'team.sqlite');
    deskDb = join(dir, 'desk.sqlite');
    await ardeskOk(['user', 'add', '--db', serverDb, '--username', 'ann', '--password', PASSWORD, '--company', 'Acme', '--role', 'owner', '--create-company']);
    await ardeskOk(['user', 'add', '--db', serverDb, '--username', 'carol', '--password', PASSWORD, '--company', 'Other Co', '--role', 'owner', '--create-company']);
    await ardeskOk(['user', 'add', '--db', serverDb, '--username', 'sam', '--password', PASSWORD, '--company', 'Third Co', '--role', 'owner', '--create-company']);
    await ardeskOk(['user', 'add', '--db', deskDb, '--username', 'maria', '--password', LOCAL_PASSWORD, '--company', 'Maria desk', '--role', 'owner', '--create-company']);
    await ardeskOk(['user', 'add', '--db', deskDb, '--username', 'sam', '--password', LOCAL_PASSWORD, '--company', 'Maria desk', '--role', 'collector']);
    acme = query<{ id: string }>(serverDb, "SELECT id FROM companies WHERE name = 'Acme'")[0].id;
    other = query<{ id: string }>(serverDb, "SELECT id FROM companies WHERE name = 'Other Co'")[0].id;
    // Owners add an existing user by username and email (the invitation rule): ann's email.
    const setup = openDatabase(serverDb);
    setup.sqlite.prepare("UPDATE users SET email = 'ann@acme.example' WHERE username = 'ann'").run();
    await setup.close();
    server = await startServe(['--db', serverDb, '--team', '--port', '0']);
    proxy = await startTcpProxy(Number(new URL(server.url).port));
    serverApi = await Api.login(server.url, 'ann', PASSWORD);
    const carol = await Api.login(server.url, 'carol', PASSWORD);
    await carol.ok('POST', `/api/companies/${other}/members`, { username: 'ann', email: 'ann@acme.example', role: 'collector' });
    third = query<{ id: string }>(serverDb, "SELECT id FROM companies WHERE name = 'Third Co'")[0].id;
    await (await Api.login(server.url, 'sam', PASSWORD)).ok('POST', `/api/companies/${third}/members`, { username: 'ann', email: 'ann@acme.example', role: 'collector' });
    const customer = await serverApi.ok('POST', `/api/companies/${acme}/customers`, { name: 'Initech' });
    await serverApi.ok('POST', `/api/companies/${acme}/invoices`, { customer: customer.id, total_amount: 500, number: 'INV-1' });
    desktop = await startServe(['--db', deskDb, '--port', '0', '--sync-interval', '1']);
    maria = await Api.login(desktop.url, 'maria', LOCAL_PASSWORD);
    sam = await Api.login(desktop.url, 'sam', LOCAL_PASSWORD);
  }, 120_000);

  afterAll(async () => {
    await desktop?.stop();
    await proxy?.close();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses malformed bodies in words and changes nothing', async () => {
    for (const body of [
      credentials({ server_url: 'ftp://example.com' }),
      credentials({ server_url: 'not a url' }),
      credentials({ username: 'a\u0000b' }),
      credentials({ extra: 1 }),
      { ...credentials(), company_ids: [] },
      { ...credentials(), company_ids: ['nope'] },
    ]) {
      const path = 'company_ids' in body ? '/api/v1/sync/connect' : '/api/v1/sync/server-companies';
      const res = await maria.call('POST', path, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.detail).toEqual(expect.any(String));
    }
    expect((await maria.call('POST', '/api/v1/sync/disconnect', { keep_local_copy: 'yes' })).status).toBe(400);
    expect((await status()).role).toBeNull();
  });

  it('says in words when the server is unreachable, the password wrong or the certificate not trusted', async () => {
    const closed = await startTcpProxy(1);
    const closedUrl = closed.url;
    await closed.close();
    const unreachable = await maria.call('POST', '/api/v1/sync/server-companies', credentials({ server_url: closedUrl }));
    expect(unreachable.status).toBe(502);
    expect(unreachable.body).toMatchObject({ code: 'team_server_unreachable', detail: expect.stringMatching(/Could not reach the team server at .*nothing answers/) });

    const wrong = await maria.call('POST', '/api/v1/sync/server-companies', credentials({ password: 'not it' }));
    expect(wrong.status).toBe(422);
    expect(wrong.body).toMatchObject({ code: 'team_server_sign_in_refused', detail: expect.stringMatching(/refused this username and password/) });

    const cert = join(dir, 'cert.pem');
    const key = join(dir, 'key.pem');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
    const tlsServer = await startServe(['--db', join(dir, 'tls-team.sqlite'), '--team', '--port', '0', '--tls-cert', cert, '--tls-key', key]);
    try {
      const tls = await maria.call('POST', '/api/v1/sync/server-companies', credentials({ server_url: tlsServer.url }));
      expect(tls.status).toBe(502);
      expect(tls.body).toMatchObject({ code: 'team_server_tls_refused', detail: expect.stringMatching(/self-signed/) });
      const plainToTls = await maria.call('POST', '/api/v1/sync/server-companies', credentials({ server_url: server.url.replace('http:', 'https:') }));
      expect(plainToTls.status).toBe(502);
      expect(plainToTls.body.code).toBe('team_server_tls_refused');
    } finally {
      await tlsServer.stop();
    }
    expect((await status()).role).toBeNull();
  }, 60_000);

  it('refuses a server user whose name a local user already has, leaving no sign-in behind on the server', async () => {
    const samTokens = () => query(serverDb, "SELECT t.id FROM api_tokens t JOIN users u ON u.id = t.user_id WHERE u.username = 'sam' AND t.revoked_at IS NULL");
    const before = samTokens();
    const clash = await maria.call('POST', '/api/v1/sync/connect', { ...credentials({ username: 'sam' }), company_ids: [third] });
    expect(clash.status).toBe(409);
    expect(clash.body).toMatchObject({ code: 'username_taken', detail: expect.stringMatching(/already has a user of its own named sam/) });
    expect((await status()).role).toBeNull();
    expect(samTokens()).toEqual(before);
  });

  it('lets only an owner (or the connected user) manage the connection', async () => {
    const refused = await sam.call('POST', '/api/v1/sync/server-companies', credentials());
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('sync_manager_required');
    expect((await sam.call('POST', '/api/v1/sync/connect', { ...credentials(), company_ids: [acme] })).status).toBe(403);
    expect((await sam.ok('GET', '/api/v1/sync/status')).can_manage).toBe(false);
    expect((await status()).can_manage).toBe(true);
  });

  it('lists the server’s companies, connects the chosen one and downloads it with progress; the password is kept nowhere', async () => {
    const look = await maria.ok('POST', '/api/v1/sync/server-companies', credentials());
    expect(look.companies.map((c: { name: string }) => c.name).sort()).toEqual(['Acme', 'Other Co', 'Third Co']);
    expect(look.companies.every((c: { here: unknown }) => c.here === null)).toBe(true);
    expect(JSON.stringify(look)).not.toMatch(/token/i);
    const annTokens = () => query(serverDb, "SELECT t.id FROM api_tokens t JOIN users u ON u.id = t.user_id WHERE u.username = 'ann' AND t.revoked_at IS NULL");
    const before = annTokens().length;

    const started = await maria.call('POST', '/api/v1/sync/connect', { ...credentials(), company_ids: [acme] });
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({ kind: 'connect', companies: [{ id: acme, name: 'Acme' }] });
    const done = await waitFor('the download to finish', async () => {
      const s = await status();
      return s.transfer?.state === 'done' && s.online ? s : null;
    });
    expect(done.transfer.companies[0]).toMatchObject({ id: acme, done: true, rows: expect.any(Number) });
    expect(done.transfer.companies[0].rows).toBeGreaterThan(3);
    expect(done).toMatchObject({ role: 'replica', username: 'ann', companies: [{ company_id: acme, name: 'Acme' }], pending: 0 });
    expect(done.last_sync_at).toEqual(expect.any(String));
    expect(Object.keys(done).filter((k) => /token/i.test(k))).toEqual([]);
    expect(query(deskDb, "SELECT name FROM customers WHERE company_id = ?", acme)).toEqual([{ name: 'Initech' }]);
    expect(query(deskDb, 'SELECT id FROM companies WHERE id = ?', other)).toEqual([]);
    const stored = [deskDb, `${deskDb}-wal`].filter(existsSync).map((f) => readFileSync(f).toString('latin1')).join('');
    expect(stored).not.toContain(PASSWORD);
    expect(query<{ token_enc: string }>(deskDb, 'SELECT token_enc FROM sync_state')[0].token_enc).toEqual(expect.any(String));

    expect(annTokens()).toHaveLength(before + 1);
    const again = await maria.call('POST', '/api/v1/sync/connect', { ...credentials(), company_ids: [acme] });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 'company_already_local', detail: expect.stringMatching(/already kept/) });
    expect((await maria.ok('POST', '/api/v1/sync/server-companies', credentials())).companies.find((c: { id: string }) => c.id === acme).here).toBe('kept');
  }, 60_000);

  it('syncs an edit made on the desktop to the server, and a refused command comes back undone, in words', async () => {
    const ann = await Api.login(desktop.url, 'ann', PASSWORD);
    expect((await ann.ok('GET', '/api/v1/sync/status')).can_manage).toBe(true);
    const made = await ann.ok('POST', `/api/companies/${acme}/customers`, { name: 'Made on the desktop' });
    const round = await ann.ok('POST', '/api/v1/sync/now');
    expect(round.pending).toBe(0);
    expect(query(serverDb, 'SELECT name FROM customers WHERE id = ?', made.id)).toEqual([{ name: 'Made on the desktop' }]);

    const initech = query<{ id: string }>(serverDb, "SELECT id FROM customers WHERE name = 'Initech'")[0];
    const action = await serverApi.ok('POST', `/api/companies/${acme}/actions`, { customer: initech.id, action_type: 'email', description: 'Remind Initech' });
    await waitFor('the action to reach the desktop', () => query(deskDb, 'SELECT id FROM actions WHERE id = ?', action.id).length === 1);
    proxy.set({ offline: true });
    await ann.ok('POST', `/api/companies/${acme}/actions/${action.id}/approve`, {});
    const offline = await ann.call('POST', '/api/v1/sync/now');
    expect(offline.status).toBe(502);
    expect(offline.body.code).toBe('team_server_unreachable');
    const waiting = await status();
    expect(waiting).toMatchObject({ online: false, pending: 1, last_error: expect.stringMatching(/Could not reach the team server/) });
    const refusedResync = await maria.call('POST', '/api/v1/sync/resync');
    expect(refusedResync.status).toBe(409);
    expect(refusedResync.body).toMatchObject({ code: 'changes_pending', detail: expect.stringMatching(/waiting for the team server: sync them first/) });
    await serverApi.ok('POST', `/api/companies/${acme}/actions/${action.id}/reject`, { reason: 'Customer paid by phone' });
    proxy.set({ offline: false });
    const told = await waitFor('the refusal to come back', async () => {
      const s = await status();
      return s.pending === 0 && s.rejected.length > 0 ? s : null;
    });
    expect(told.rejected[0]).toMatchObject({ command: 'approve_action', company_id: acme, reason: expect.any(String) });
    expect(query<{ status: string }>(deskDb, 'SELECT status FROM actions WHERE id = ?', action.id)[0].status).toBe('cancelled');

    expect((await sam.call('POST', '/api/v1/sync/rejections/dismiss')).status).toBe(403);
    expect((await status()).rejected).toHaveLength(1);
    expect(await ann.ok('POST', '/api/v1/sync/rejections/dismiss')).toEqual({ dismissed: 1 });
    expect((await status()).rejected).toEqual([]);
  }, 90_000);

  it('waits while another connection writes the database (the refresh beside it): an edit, a sync round', async () => {
    const ann = await Api.login(desktop.url, 'ann', PASSWORD);
    const editing = holdWriteLock(deskDb, 500);
    const made = await ann.call('POST', `/api/companies/${acme}/customers`, { name: 'Made while the refresh wrote' });
    await editing;
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const syncing = holdWriteLock(deskDb, 500);
    const round = await ann.call('POST', '/api/v1/sync/now');
    await syncing;
    expect(round.status, JSON.stringify(round.body)).toBe(200);
    expect(round.body.pending).toBe(0);
    expect(query(serverDb, 'SELECT name FROM customers WHERE id = ?', made.body.id)).toEqual([{ name: 'Made while the refresh wrote' }]);
  }, 60_000);

  it('resyncs with progress, then disconnects keeping the local copy as a local-only company', async () => {
    const started = await maria.call('POST', '/api/v1/sync/resync');
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({ kind: 'resync', state: 'running' });
    await waitFor('the resync to finish', async () => (await status()).transfer?.state === 'done');
    expect(query(deskDb, 'SELECT name FROM customers WHERE company_id = ? ORDER BY name', acme)).toEqual([{ name: 'Initech' }, { name: 'Made on the desktop' }, { name: 'Made while the refresh wrote' }]);

    const res = await maria.call('POST', '/api/v1/sync/disconnect', { keep_local_copy: true });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ companies: [{ id: acme, name: 'Acme' }], kept_local_copy: true });
    const after = await status();
    expect(after).toMatchObject({ role: null, server_url: null, companies: [], pending: 0, rejected: [] });
    expect(query(deskDb, 'SELECT token_enc, server_url FROM sync_state')).toEqual([{ token_enc: null, server_url: null }]);
    expect(query(deskDb, 'SELECT name FROM companies ORDER BY name')).toEqual([{ name: 'Acme' }, { name: 'Maria desk' }]);

    const ann = await Api.login(desktop.url, 'ann', PASSWORD);
    const localEdit = await ann.ok('POST', `/api/companies/${acme}/customers`, { name: 'After disconnecting' });
    expect(query(deskDb, 'SELECT count(*) AS n FROM sync_outbox')).toEqual([{ n: 0 }]);
    expect(query(serverDb, 'SELECT id FROM customers WHERE id = ?', localEdit.id)).toEqual([]);

    const look = await maria.ok('POST', '/api/v1/sync/server-companies', credentials());
    expect(look.companies.find((c: { id: string }) => c.id === acme).here).toBe('local_only');
    const clash = await maria.call('POST', '/api/v1/sync/connect', { ...credentials(), company_ids: [acme] });
    expect(clash.status).toBe(409);
    expect(clash.body).toMatchObject({ code: 'company_already_local', detail: expect.stringMatching(/Acme is already on this machine as a local-only company/) });
    expect(query(deskDb, 'SELECT name FROM customers WHERE id = ?', localEdit.id)).toEqual([{ name: 'After disconnecting' }]);
  }, 90_000);

  it('says in words why a download stopped when another member’s username is taken here, keeping nothing of it', async () => {
    await maria.ok('POST', '/api/v1/sync/connect', { ...credentials(), company_ids: [third] });
    const failed = await waitFor('the download to stop', async () => {
      const s = await status();
      return s.transfer?.state === 'failed' ? s : null;
    });
    expect(failed.transfer.error).toMatch(/has a user of its own named sam, and the team server has another user of that name/);
    expect(query(deskDb, 'SELECT id FROM companies WHERE id = ?', third)).toEqual([]);
    expect(query(deskDb, "SELECT count(*) AS n FROM users WHERE username = 'sam'")).toEqual([{ n: 1 }]);
  }, 60_000);

  it('connects another company and disconnects removing the local copy', async () => {
    await maria.ok('POST', '/api/v1/sync/connect', { ...credentials(), company_ids: [other] });
    await waitFor('the download to finish', async () => (await status()).transfer?.state === 'done');
    expect(query(deskDb, 'SELECT name FROM companies WHERE id = ?', other)).toEqual([{ name: 'Other Co' }]);
    // It answered 500 once under the whole suite's load: it did not wait while the refresh beside it wrote.
    const held = holdWriteLock(deskDb, 500);
    const res = await maria.call('POST', '/api/v1/sync/disconnect', { keep_local_copy: false });
    await held;
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(query(deskDb, 'SELECT id FROM companies WHERE id = ?', other)).toEqual([]);
    expect(query(deskDb, 'SELECT name FROM companies ORDER BY name')).toEqual([{ name: 'Acme' }, { name: 'Maria desk' }]);
    const twice = await maria.call('POST', '/api/v1/sync/disconnect', { keep_local_copy: false });
    expect(twice.status).toBe(409);
    expect(twice.body.code).toBe('not_connected');
  }, 60_000);

  it('connects an empty workspace at first launch and signs in there as the server user', async () => {
    const fresh = await startServe(['--db', join(dir, 'fresh.sqlite'), '--port', '0', '--sync-interval', '1']);
    try {
      const setup = (body: unknown) =>
        fetch(`${fresh.url}/api/v1/setup/connect/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(async (r) => ({ status: r.status, body: await r.json() }));
      const wrong = await setup(credentials({ password: 'nope' }));
      expect(wrong.status).toBe(422);
      expect(wrong.body.code).toBe('team_server_sign_in_refused');
      expect((await setup({ ...credentials(), extra: true })).status).toBe(400);
      const done = await setup(credentials());
      expect(done.status).toBe(201);
      expect(done.body.companies.map((c: { name: string }) => c.name).sort()).toEqual(['Acme', 'Other Co', 'Third Co']);
      const me = await fetch(`${fresh.url}/api/v1/auth/me/`, { headers: { authorization: `Token ${done.body.token}` } }).then((r) => r.json());
      expect(me.user.username).toBe('ann');
      const again = await setup(credentials());
      expect(again.status).toBe(409);
      expect(again.body.code).toBe('already_initialized');
    } finally {
      await fresh.stop();
    }
  }, 60_000);
});
