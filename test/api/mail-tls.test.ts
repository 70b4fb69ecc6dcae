/**
 * Mail servers' certificates are verified (issue 44): real SMTP servers (smtp-server) and Dovecot
 * on loopback with the certificates of test/fixtures/tls. This process does not trust the test CA
 * (test/e2e/mail-tls-ca.test.ts runs a server that does), so a CA-signed certificate is refused
 * here; a self-signed one is refused until an owner trusts exactly it, and again once it changes.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Migrator } from 'kysely/migration';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../core/db/connection';
import { migrations } from '../../core/db/migrations';
import { MailDeliveryError } from '../../core/email/diagnose';
import { sendEmail } from '../../core/email/mailer';
import { createApp } from '../../core/http/app';
import { type App, addCompany, addUser, call, loginAs } from '../support/api';
import { type TestEngine, testEngine } from '../support/engine';
import { type ImapServer, startImap } from '../support/imap';
import { addMember } from '../support/rows';
import { type SmtpServer, startSmtp } from '../support/smtp';

const TLS = resolve(__dirname, '../fixtures/tls');
const pem = (name: string) => readFileSync(resolve(TLS, name), 'utf8');
const CA_SIGNED = { cert: pem('server.pem'), key: pem('server.key') };
const SELF_SIGNED = { cert: pem('self-signed-1.pem'), key: pem('self-signed-1.key') };
const REPLACED = { cert: pem('self-signed-2.pem'), key: pem('self-signed-2.key') };
const NOW = '2026-11-23T12:00:00.000Z';

describe('verified TLS to mail servers', () => {
  let engine: TestEngine;
  let app: App;
  let owner: string;
  let collector: string;
  let company: string;
  const servers: SmtpServer[] = [];
  const api = (method: string, path: string, body?: unknown, token = owner) => call(app, method, `/api/companies/${company}${path}`, { token, body });
  const smtp = async (options: Parameters<typeof startSmtp>[0]) => {
    const server = await startSmtp(options);
    servers.push(server);
    return server;
  };
  const connection = async (port: number, extra: Record<string, unknown> = {}) => {
    const res = await api('POST', '/email-connections', { name: `Port ${port}`, from_email: 'ar@acme.example', smtp_host: '127.0.0.1', smtp_port: port, ...extra });
    expect(res.status).toBe(201);
    return res.body as { id: string; require_tls: boolean };
  };
  const row = (id: string) => engine.db.selectFrom('email_connections').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const mail = { to: 'ap@customer.example', subject: 'Invoice INV-1', text: 'Hello', messageId: '<tls-1@ardesk.local>' };
  const sendThrough = async (id: string) => sendEmail(await row(id), engine.secrets, mail).then(() => null, (err: unknown) => err);

  beforeAll(async () => {
    engine = await testEngine(NOW);
    app = createApp(engine);
    company = await addCompany(engine, 'Acme Supply');
    await addMember(engine, company, await addUser(engine, 'olga', []), 'owner');
    await addMember(engine, company, await addUser(engine, 'carl', []), 'collector');
    owner = await loginAs(app, 'olga');
    collector = await loginAs(app, 'carl');
  });
  afterAll(async () => {
    for (const server of servers) await server.close();
    await engine.dispose();
  });

  it('refuses a certificate no known authority signed, shows it, and sends nothing', async () => {
    const server = await smtp({ tls: CA_SIGNED });
    const made = await connection(server.port);
    // A server on this machine does not need TLS by default; STARTTLS is still used when offered.
    expect(made.require_tls).toBe(false);
    const test = await api('POST', `/email-connections/${made.id}/test`);
    expect(test.status).toBe(200);
    expect(test.body.smtp).toMatchObject({ ok: false, tls: 'untrusted', can_trust: true, trusted_certificate: null, certificate: { subject: 'CN=127.0.0.1', issuer: 'CN=ardesk test CA' } });
    expect(test.body.smtp.certificate.sha256).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    expect(test.body.smtp.message).toBe(`The SMTP server 127.0.0.1:${server.port} shows a certificate no known authority signed. If it is your own server, an owner can test the connection in Settings › Email and trust that certificate.`);
    const failure = await sendThrough(made.id);
    expect(failure).toBeInstanceOf(MailDeliveryError);
    expect((failure as MailDeliveryError).message).toBe(`${test.body.smtp.message}`);
    expect((failure as MailDeliveryError).code).toBe('ETLS');
    expect(server.messages).toHaveLength(0);
  });

  it('lets an owner trust exactly a self-signed certificate, and refuses it again once it changes', async () => {
    let server = await smtp({ tls: SELF_SIGNED });
    const { id } = await connection(server.port);
    const seen = (await api('POST', `/email-connections/${id}/test`)).body.smtp;
    expect(seen).toMatchObject({ ok: false, tls: 'untrusted', can_trust: true, certificate: { subject: 'CN=mail.self-hosted.test, O=Self-hosted 1' } });
    expect(await sendThrough(id)).toBeInstanceOf(MailDeliveryError);

    // Trusting changes what the connection accepts: owners only, and only the certificate seen.
    const forbidden = await api('POST', `/email-connections/${id}/trusted-certificates`, { server: 'smtp', sha256: seen.certificate.sha256 }, collector);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.code).toBe('owner_only');
    const wrong = await api('POST', `/email-connections/${id}/trusted-certificates`, { server: 'smtp', sha256: seen.certificate.sha256.replace(/^../, '00') });
    expect(wrong.status).toBe(409);
    expect(wrong.body.code).toBe('certificate_changed');
    expect((await api('POST', `/email-connections/${id}/trusted-certificates`, { server: 'smtp', sha256: 'not a fingerprint' })).status).toBe(400);
    expect((await row(id)).smtp_tls_cert).toBeNull();
    const trusted = await api('POST', `/email-connections/${id}/trusted-certificates`, { server: 'smtp', sha256: seen.certificate.sha256.toLowerCase() });
    expect(trusted.status).toBe(200);
    expect(trusted.body.smtp_trusted_certificate).toMatchObject({ sha256: seen.certificate.sha256, subject: seen.certificate.subject, trusted_at: NOW });

    expect((await api('POST', `/email-connections/${id}/test`)).body.smtp).toMatchObject({ ok: true, tls: 'pinned', can_trust: false });
    expect(await sendThrough(id)).toBeNull();
    expect((await server.waitFor(1))[0].subject).toBe('Invoice INV-1');

    // The server comes back with another certificate on the same port.
    const port = server.port;
    await server.close();
    server = await smtp({ tls: REPLACED, port });
    const changed = (await api('POST', `/email-connections/${id}/test`)).body.smtp;
    expect(changed).toMatchObject({ ok: false, tls: 'untrusted', can_trust: true, certificate: { subject: 'CN=mail.self-hosted.test, O=Self-hosted 2' }, trusted_certificate: { sha256: seen.certificate.sha256 } });
    expect(changed.message).toMatch(/^The mail server's certificate changed since you trusted it \(SMTP 127\.0\.0\.1:\d+\)/);
    const refused = await sendThrough(id);
    expect((refused as Error).message).toBe(changed.message);
    expect(server.messages).toHaveLength(0);

    // Revoked: only a known authority's certificate passes again (owners only).
    expect((await api('DELETE', `/email-connections/${id}/trusted-certificates/smtp`, undefined, collector)).status).toBe(403);
    const revoked = await api('DELETE', `/email-connections/${id}/trusted-certificates/smtp`);
    expect(revoked.body.smtp_trusted_certificate).toBeNull();
    expect((await api('POST', `/email-connections/${id}/test`)).body.smtp).toMatchObject({ ok: false, can_trust: true, trusted_certificate: null });
  });

  it('refuses a server that stops offering STARTTLS when the connection requires TLS', async () => {
    let server = await smtp({ tls: SELF_SIGNED });
    const { id } = await connection(server.port, { require_tls: true });
    const sha256 = (await api('POST', `/email-connections/${id}/test`)).body.smtp.certificate.sha256;
    expect((await api('POST', `/email-connections/${id}/trusted-certificates`, { server: 'smtp', sha256 })).status).toBe(200);
    expect(await sendThrough(id)).toBeNull();
    await server.waitFor(1);

    // Someone on the path strips STARTTLS: the same port now answers without it.
    const port = server.port;
    await server.close();
    server = await smtp({ port });
    const downgraded = await sendThrough(id);
    expect((downgraded as Error).message).toBe(
      `127.0.0.1:${port} no longer offers a secure (TLS) connection, and this connection requires one (SMTP): nothing was sent. Someone may be removing TLS on the way; check with the mail server's administrator.`,
    );
    expect((await api('POST', `/email-connections/${id}/test`)).body.smtp).toMatchObject({ ok: false, tls: 'none', certificate: null, message: (downgraded as Error).message });
    expect(server.messages).toHaveLength(0);
    // Without the requirement, a relay on this machine without TLS is still used.
    expect((await api('PATCH', `/email-connections/${id}`, { require_tls: false })).body.require_tls).toBe(false);
    expect(await sendThrough(id)).toBeNull();
    expect(await server.waitFor(1)).toHaveLength(1);
  });

  it('says why sending through a connection made before certificates were checked waits, until an owner trusts its certificate', async () => {
    const server = await smtp({ tls: SELF_SIGNED });
    const { id } = await connection(server.port);
    await engine.db.updateTable('email_connections').set({ tls_review: 1 }).where('id', '=', id).execute();
    expect((await api('GET', `/email-connections/${id}`)).body.tls_review).toBe(true);
    const waiting = await sendThrough(id);
    expect((waiting as Error).message).toMatch(/^Sending waits: SMTP 127\.0\.0\.1:\d+ shows a certificate no known authority signed, and mail servers' certificates are now checked\. This connection was set up before; an owner can test it in Settings › Email and trust that certificate\.$/);
    const sha256 = (await api('POST', `/email-connections/${id}/test`)).body.smtp.certificate.sha256;
    const trusted = await api('POST', `/email-connections/${id}/trusted-certificates`, { server: 'smtp', sha256 });
    expect(trusted.body.tls_review).toBe(false);
    expect(await sendThrough(id)).toBeNull();
  });

  describe('IMAP (Dovecot)', () => {
    let imap: ImapServer;
    beforeAll(async () => {
      imap = await startImap({ tls: CA_SIGNED });
    });
    afterAll(async () => {
      await imap?.stop();
    });

    it('refuses a certificate signed by an authority this server does not know', async () => {
      const server = await smtp({});
      const { id } = await connection(server.port, { imap_host: imap.host, imap_port: imap.port, imap_secure: false, imap_username: imap.user, imap_password: imap.password });
      const test = (await api('POST', `/email-connections/${id}/test`)).body;
      expect(test.smtp).toMatchObject({ ok: true, tls: 'none' });
      expect(test.imap).toMatchObject({ ok: false, tls: 'untrusted', can_trust: true, certificate: { subject: 'CN=127.0.0.1', issuer: 'CN=ardesk test CA' } });
      expect(test.imap.message).toBe(`The IMAP server 127.0.0.1:${imap.port} shows a certificate no known authority signed. If it is your own server, an owner can test the connection in Settings › Email and trust that certificate.`);

      // Trusted by its fingerprint, the certificate is accepted though no known CA signed it (not self-signed: a partial chain).
      const trusted = await api('POST', `/email-connections/${id}/trusted-certificates`, { server: 'imap', sha256: test.imap.certificate.sha256 });
      expect(trusted.body).toMatchObject({ imap_trusted_certificate: { subject: 'CN=127.0.0.1', issuer: 'CN=ardesk test CA' }, smtp_trusted_certificate: null });
      const again = (await api('POST', `/email-connections/${id}/test`)).body;
      expect(again.imap).toMatchObject({ ok: true, tls: 'pinned', message: `Signed in to 127.0.0.1:${imap.port}; mailbox INBOX holds 0 messages` });
      // Another IMAP server forgets the trusted certificate: it belongs to the server it came from.
      const moved = await api('PATCH', `/email-connections/${id}`, { imap_port: server.port, imap_password: imap.password });
      expect(moved.body.imap_trusted_certificate).toBeNull();
    });
  });
});

describe('migration 0310', () => {
  it('marks the connections made before certificates were checked for review, a relay on this machine excepted', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ardesk-0310-'));
    try {
      const file = join(dir, 'old.sqlite');
      const old = openDatabase(file);
      const before = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < '0310'));
      expect((await new Migrator({ db: old.db, provider: { getMigrations: async () => before } }).migrateToLatest()).error).toBeUndefined();
      old.sqlite.prepare("INSERT INTO companies (id, name, currency, created_at, updated_at) VALUES ('c1', 'Kept Co', 'USD', 'x', 'x')").run();
      const add = old.sqlite.prepare(
        "INSERT INTO email_connections (id, company_id, name, from_email, smtp_host, smtp_port, smtp_secure, is_default, is_active, allow_shared_sending, created_at, updated_at) VALUES (?, 'c1', ?, 'ar@kept.example', ?, 587, 0, 0, 1, 1, 'x', 'x')",
      );
      for (const [id, host] of [['e1', 'smtp.kept.example'], ['e2', '127.0.0.1'], ['e3', 'LOCALHOST']]) add.run(id, host, host);
      const upTo0310 = { ...before, '0310_mail_tls_trust': migrations['0310_mail_tls_trust'] };
      expect((await new Migrator({ db: old.db, provider: { getMigrations: async () => upTo0310 } }).migrateToLatest()).error).toBeUndefined();
      expect(old.sqlite.prepare('SELECT id, tls_review, require_tls, smtp_tls_cert FROM email_connections ORDER BY id').all()).toEqual([
        { id: 'e1', tls_review: 1, require_tls: 0, smtp_tls_cert: null },
        { id: 'e2', tls_review: 0, require_tls: 0, smtp_tls_cert: null },
        { id: 'e3', tls_review: 0, require_tls: 0, smtp_tls_cert: null },
      ]);
      await old.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
