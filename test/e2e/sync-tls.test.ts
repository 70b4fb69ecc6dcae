/**
 * The team server's transport: TLS with a certificate given on the command line (a self-signed one
 * made here with openssl, trusted by the desktop through NODE_EXTRA_CA_CERTS), and no sign-in or
 * sync in clear on a network address unless --insecure-http says so.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ardesk, ardeskOk, query, startServe } from '../support/sync';

const PASSWORD = 'correct horse 9';

describe('team server transport', () => {
  let dir: string;
  let serverDb: string;
  let cert: string;
  let key: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ardesk-tls-'));
    serverDb = join(dir, 'team.sqlite');
    cert = join(dir, 'cert.pem');
    key = join(dir, 'key.pem');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost'], { stdio: 'ignore' });
    await ardeskOk(['user', 'add', '--db', serverDb, '--username', 'ann', '--password', PASSWORD, '--company', 'Acme', '--role', 'owner', '--create-company']);
  }, 60_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('serves TLS with the given certificate; a desktop that trusts it connects, one that does not is refused', async () => {
    const server = await startServe(['--db', serverDb, '--team', '--port', '0', '--tls-cert', cert, '--tls-key', key]);
    try {
      expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      const untrusted = await ardesk(['connect', '--db', join(dir, 'untrusted.sqlite'), '--server', server.url, '--username', 'ann', '--password', PASSWORD]);
      expect(untrusted.code).toBe(1);
      expect(untrusted.stderr).toMatch(/fetch failed|certificate/i);
      const desktop = join(dir, 'desktop.sqlite');
      const trusted = await ardesk(['connect', '--db', desktop, '--server', server.url, '--username', 'ann', '--password', PASSWORD], { NODE_EXTRA_CA_CERTS: cert });
      expect(trusted.code, trusted.stderr).toBe(0);
      expect(query(desktop, "SELECT name FROM companies")).toEqual([{ name: 'Acme' }]);
      const round = await ardesk(['sync', '--db', desktop, '--json'], { NODE_EXTRA_CA_CERTS: cert });
      // A round over TLS with nothing to push. What it pulls depends on the server's own start-up
      // jobs (its first refresh and aging snapshot), which may still be writing after the download.
      expect(JSON.parse(round.stdout)).toMatchObject({ pushed: 0, applied: 0, rejected: [], pending: 0 });
    } finally {
      await server.stop();
    }
  }, 120_000);

  it('refuses sign-in and sync over plain HTTP on a network address unless --insecure-http is given', async () => {
    const plain = await startServe(['--db', serverDb, '--team', '--port', '0', '--host', '0.0.0.0']);
    try {
      const url = plain.url.replace('0.0.0.0', '127.0.0.1');
      const login = await fetch(`${url}/api/v1/auth/login/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'ann', password: PASSWORD }) });
      expect(login.status).toBe(403);
      expect(await login.json()).toMatchObject({ code: 'insecure_transport' });
      const pull = await fetch(`${url}/api/v1/sync/pull`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(pull.status).toBe(403);
    } finally {
      await plain.stop();
    }
    const allowed = await startServe(['--db', serverDb, '--team', '--port', '0', '--host', '0.0.0.0', '--insecure-http']);
    try {
      const url = allowed.url.replace('0.0.0.0', '127.0.0.1');
      const login = await fetch(`${url}/api/v1/auth/login/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'ann', password: PASSWORD }) });
      expect(login.status).toBe(200);
    } finally {
      await allowed.stop();
    }
  }, 120_000);
});
