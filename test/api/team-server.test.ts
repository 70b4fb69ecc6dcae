/**
 * What a team server (ardesk serve --team) refuses that a desktop allows: the first-launch setup
 * routes (an empty team server must not be claimable over the network), the routes that make a
 * desktop of the database (one of them posts credentials to any origin), any password over plain
 * HTTP, and email connections to servers the operator did not allow. The email test never repeats
 * what the remote end said.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mailRuleOf } from '../../core/cli/commands/serve';
import { USUAL_MAIL_PORTS } from '../../core/email/endpoints';
import { createApp } from '../../core/http/app';
import type { Feed } from '../../core/sync/feed';
import { setSyncRole } from '../../core/sync/triggers';
import { addCompany, addUser, call, loginAs } from '../support/api';
import { type TestEngine, testEngine } from '../support/engine';

describe('an empty team server', () => {
  let engine: TestEngine;
  beforeAll(async () => {
    engine = await testEngine();
  });
  afterAll(async () => engine.dispose());

  it('cannot be claimed over the network: setup/account and setup/demo are not there, the status says it is empty', async () => {
    const team = createApp(engine, { team: true, refuseCredentialsInClear: true });
    const account = await call(team, 'POST', '/api/v1/setup/account/', { body: { username: 'mallory', password: 'mallory-pw', company_name: 'Mine' } });
    expect(account.status).toBe(403);
    expect(account.body.code).toBe('insecure_transport');
    const onTls = createApp(engine, { team: true });
    expect((await call(onTls, 'POST', '/api/v1/setup/account/', { body: { username: 'mallory', password: 'mallory-pw', company_name: 'Mine' } })).status).toBe(404);
    expect((await call(onTls, 'POST', '/api/v1/setup/demo/', { body: {} })).status).toBe(404);
    expect((await call(onTls, 'POST', '/api/v1/setup/connect/', { body: { server_url: 'http://127.0.0.1:9', username: 'a', password: 'b' } })).status).toBe(404);
    expect((await call(onTls, 'GET', '/api/v1/setup/')).body).toEqual({ initialized: false });
    expect(await engine.db.selectFrom('users').select('id').execute()).toEqual([]);
  });
});

describe('a team server with users', () => {
  let engine: TestEngine;
  let token: string;
  let company: string;
  let banner: Server;
  let bannerPort: number;

  beforeAll(async () => {
    engine = await testEngine();
    company = await addCompany(engine, 'Acme');
    await addUser(engine, 'ann', [[company, 'owner']]);
    token = await loginAs(createApp(engine), 'ann');
    // A service that is not a mail server, with something to hide in its greeting.
    banner = createServer((socket) => socket.end('SSH-2.0-OpenSSH_9.9 INTERNAL-SECRET-BANNER\r\n'));
    await new Promise<void>((resolve) => banner.listen(0, '127.0.0.1', resolve));
    bannerPort = (banner.address() as { port: number }).port;
  });
  afterAll(async () => {
    banner.close();
    await engine.dispose();
  });

  it('does not mount the desktop-only sync routes, which would post credentials to any origin', async () => {
    const team = createApp(engine, { team: true });
    const body = { server_url: `http://127.0.0.1:${bannerPort}`, username: 'ann', password: 'ann-pw' };
    for (const path of ['/api/v1/sync/server-companies', '/api/v1/sync/connect', '/api/v1/sync/now', '/api/v1/sync/resync', '/api/v1/sync/disconnect']) {
      expect((await call(team, 'POST', path, { token, body })).status, path).toBe(404);
    }
    expect((await call(team, 'GET', '/api/v1/sync/status', { token })).status).toBe(200);
  });

  it('over plain HTTP on a network address, refuses every route that takes a password', async () => {
    const team = createApp(engine, { team: true, refuseCredentialsInClear: true });
    const refusals = [
      await call(team, 'POST', '/api/v1/auth/tokens/', { token, body: { name: 'script' } }),
      await call(team, 'POST', `/api/companies/${company}/members`, { token, body: { username: 'eve', role: 'viewer', password: 'eve-password' } }),
      await call(team, 'POST', `/api/companies/${company}/email-connections`, { token, body: { name: 'AR', from_email: 'ar@acme.example', smtp_host: 'smtp.acme.example', smtp_port: 587, smtp_password: 'x' } }),
      await call(team, 'POST', '/api/v1/auth/login/', { body: { username: 'ann', password: 'ann-pw' } }),
    ];
    for (const r of refusals) expect([r.status, r.body.code]).toEqual([403, 'insecure_transport']);
    expect(await engine.db.selectFrom('api_tokens').select('id').where('kind', '=', 'personal').execute()).toEqual([]);
  });

  it('lets email connections use only the ports the operator allows (default the usual SMTP and IMAP ports), and never repeats a remote greeting', async () => {
    const team = createApp(engine, { team: true });
    const connection = (port: number) => ({ name: `Port ${port}`, from_email: 'ar@acme.example', smtp_host: '127.0.0.1', smtp_port: port });
    const refused = await call(team, 'POST', `/api/companies/${company}/email-connections`, { token, body: connection(bannerPort) });
    expect(refused.status).toBe(400);
    expect(refused.body.errors.smtp_port).toEqual([`This server may connect to mail servers only on ports ${USUAL_MAIL_PORTS.join(', ')}`]);
    // Made where any port is allowed (a desktop), then tested on the team server: not even tried.
    const desktop = createApp(engine);
    const made = await call(desktop, 'POST', `/api/companies/${company}/email-connections`, { token, body: connection(bannerPort) });
    expect(made.status).toBe(201);
    const onTeam = await call(team, 'POST', `/api/companies/${company}/email-connections/${made.body.id}/test`, { token });
    expect(onTeam.body.smtp).toMatchObject({ ok: false, message: `This server may connect to mail servers only on ports ${USUAL_MAIL_PORTS.join(', ')}`, certificate: null });
    const onDesktop = await call(desktop, 'POST', `/api/companies/${company}/email-connections/${made.body.id}/test`, { token });
    expect(onDesktop.body.smtp.ok).toBe(false);
    expect(JSON.stringify(onDesktop.body)).not.toMatch(/SSH|SECRET|OpenSSH/);
    const opened = createApp(engine, { team: true, mailRule: mailRuleOf(String(bannerPort), '127.0.0.1') });
    expect((await call(opened, 'PATCH', `/api/companies/${company}/email-connections/${made.body.id}`, { token, body: { name: 'Renamed' } })).status).toBe(200);
    expect((await call(opened, 'PATCH', `/api/companies/${company}/email-connections/${made.body.id}`, { token, body: { smtp_host: 'elsewhere.example' } })).body.errors.smtp_host).toEqual([
      'This server may connect only to the mail hosts its operator allows (127.0.0.1)',
    ]);
  });

  it("sends members' desktops an email connection without either stored password", async () => {
    setSyncRole(engine.database.sqlite, 'server');
    const team = createApp(engine, { team: true });
    const made = await call(team, 'POST', `/api/companies/${company}/email-connections`, {
      token,
      body: { name: 'AR', from_email: 'ar@acme.example', smtp_host: 'smtp.acme.example', smtp_port: 587, smtp_username: 'ar', smtp_password: 'smtp-secret', imap_host: 'imap.acme.example', imap_username: 'ar', imap_password: 'imap-secret' },
    });
    expect(made.status).toBe(201);
    const stored = await engine.db.selectFrom('email_connections').select(['smtp_password_enc', 'imap_password_enc']).where('id', '=', made.body.id).executeTakeFirstOrThrow();
    expect(stored.smtp_password_enc).not.toBeNull();
    expect(stored.imap_password_enc).not.toBeNull();
    const pulled = await call(team, 'POST', '/api/v1/sync/pull', { token, body: { client_id: randomUUID(), companies: [{ company_id: company, cursor: null }], pending_from: 0 } });
    expect(pulled.status, JSON.stringify(pulled.body)).toBe(200);
    const rows = (pulled.body as Feed).companies.flatMap((c) => c.changes);
    const connection = rows.find((ch) => ch.table === 'email_connections' && ch.row?.id === made.body.id);
    expect(connection?.row).toMatchObject({ smtp_password_enc: null, imap_password_enc: null, imap_username: 'ar' });
  });

  it('reads --mail-ports and --mail-hosts', () => {
    expect(mailRuleOf(undefined, undefined)).toEqual({ ports: USUAL_MAIL_PORTS, hosts: null, refusePrivate: true });
    expect(mailRuleOf('any', 'smtp.acme.example, imap.acme.example')).toEqual({ ports: null, hosts: ['smtp.acme.example', 'imap.acme.example'], refusePrivate: true });
    expect(mailRuleOf('2525', undefined).ports).toEqual([2525]);
    expect(() => mailRuleOf('22,x', undefined)).toThrow(/x is not a port/);
  });
});
