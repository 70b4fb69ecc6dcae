/**
 * A mail server whose certificate a private CA signed is accepted once the operator trusts that
 * CA: `ardesk serve` started with NODE_EXTRA_CA_CERTS naming the test CA (test/fixtures/tls)
 * verifies the SMTP server's and Dovecot's certificates and signs in to both over STARTTLS,
 * TLS required. test/api/mail-tls.test.ts shows the same certificates refused without the CA.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerProcess, startServe } from '../support/cli';
import { type ImapServer, startImap } from '../support/imap';
import { type SmtpServer, startSmtp } from '../support/smtp';

const TLS = resolve(__dirname, '../fixtures/tls');
const CA_SIGNED = { cert: readFileSync(join(TLS, 'server.pem'), 'utf8'), key: readFileSync(join(TLS, 'server.key'), 'utf8') };

describe('ardesk serve with a private CA configured (NODE_EXTRA_CA_CERTS)', () => {
  let dir: string;
  let server: ServerProcess;
  let smtp: SmtpServer;
  let imap: ImapServer;
  let token: string;
  let company: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ardesk-mail-ca-'));
    [server, smtp, imap] = await Promise.all([
      startServe(['--port', '0', '--db', join(dir, 'x.sqlite')], { NODE_EXTRA_CA_CERTS: join(TLS, 'ca.pem') }),
      startSmtp({ tls: CA_SIGNED, auth: { user: 'ar', pass: 'smtp-secret' } }),
      startImap({ tls: CA_SIGNED }),
    ]);
    const account = await fetch(`${server.url}/api/v1/setup/account/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'olga', password: 'olga-password-1', company_name: 'Acme Supply' }),
    });
    expect(account.status).toBe(201);
    const body = (await account.json()) as { token: string; companies: Array<{ id: string }> };
    token = body.token;
    company = body.companies[0].id;
  });
  afterAll(async () => {
    await server?.stop();
    await smtp?.close();
    await imap?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('verifies the SMTP and IMAP certificates against the configured CA and signs in over STARTTLS', async () => {
    const post = async (path: string, body?: unknown) => {
      const res = await fetch(`${server.url}/api/companies/${company}${path}`, {
        method: 'POST',
        headers: { authorization: `Token ${token}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as any };
    };
    const made = await post('/email-connections', {
      name: 'AR',
      from_email: 'ar@acme.example',
      smtp_host: '127.0.0.1',
      smtp_port: smtp.port,
      smtp_username: 'ar',
      smtp_password: 'smtp-secret',
      require_tls: true,
      imap_host: imap.host,
      imap_port: imap.port,
      imap_secure: false,
      imap_username: imap.user,
      imap_password: imap.password,
    });
    expect(made.status).toBe(201);
    const test = await post(`/email-connections/${made.body.id}/test`);
    expect(test.status).toBe(200);
    expect(test.body.smtp).toMatchObject({ ok: true, tls: 'verified', can_trust: false, trusted_certificate: null, certificate: { subject: 'CN=127.0.0.1', issuer: 'CN=ardesk test CA' } });
    expect(test.body.smtp.message).toBe(`Connected to 127.0.0.1:${smtp.port} and signed in`);
    expect(test.body.imap).toMatchObject({ ok: true, tls: 'verified', certificate: { issuer: 'CN=ardesk test CA' } });
    expect(test.body.imap.message).toBe(`Signed in to 127.0.0.1:${imap.port}; mailbox INBOX holds 0 messages`);
  });
});
