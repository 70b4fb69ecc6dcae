import { afterAll, describe, expect, it } from 'vitest';
import type { Role } from '../../core/db/schema';
import { createConnection, updateConnection, needsPasswordAgain, validateConnection } from '../../core/email/connections';
import { systemActor } from '../../core/engine';
import { ForbiddenError } from '../../core/errors';
import { sendEmail } from '../../core/email/mailer';
import { call, useApiWorkspace } from '../support/api';
import { startSmtp } from '../support/smtp';

const SECRET = 'hunter2-Secret!pw';

describe('email connection rules (pure)', () => {
  it('requires name, from_email, host and port when creating and checks each', () => {
    expect(validateConnection({ name: 'AR', from_email: 'ar@acme.example', smtp_host: 'smtp.acme.example', smtp_port: 587 }, true)).toEqual({});
    expect(Object.keys(validateConnection({}, true)).sort()).toEqual(['from_email', 'name', 'smtp_host', 'smtp_port']);
    expect(validateConnection({ smtp_host: 'bad host' }, false).smtp_host).toBeDefined();
    expect(validateConnection({ smtp_host: '127.0.0.1' }, false)).toEqual({});
    expect(validateConnection({ smtp_port: 70000 }, false).smtp_port).toBeDefined();
    expect(validateConnection({ from_email: 'ar' }, false).from_email).toBeDefined();
    expect(validateConnection({ is_default: true, is_active: false }, false).is_default).toBeDefined();
  });

  it('asks for the password again only when a stored one would go to another host or account', () => {
    const current = { smtp_host: 'smtp.acme.example', smtp_port: 587, smtp_secure: 0 as const, smtp_username: 'ar', smtp_password_enc: 'sealed' };
    expect(needsPasswordAgain(current, { smtp_host: 'evil.example' })).toBe(true);
    expect(needsPasswordAgain(current, { smtp_username: 'other' })).toBe(true);
    // The same host on another port or TLS mode (465 with TLS, 587 with STARTTLS) keeps it.
    expect(needsPasswordAgain(current, { smtp_port: 465, smtp_secure: true })).toBe(false);
    expect(needsPasswordAgain(current, { smtp_port: 25 })).toBe(false);
    expect(needsPasswordAgain(current, { smtp_host: 'SMTP.ACME.EXAMPLE', smtp_port: 587, name: 'Renamed' })).toBe(false);
    expect(needsPasswordAgain(current, { smtp_host: 'evil.example', smtp_password: 'new' })).toBe(false);
    expect(needsPasswordAgain({ ...current, smtp_password_enc: null }, { smtp_host: 'evil.example' })).toBe(false);
  });

});

describe('email connections API (extension)', () => {
  /** A collector of the test company, besides the shared demo owner and watcher viewer. */
  const COLLECTOR: Array<[string, Role]> = [['collector', 'collector']];
  const w = useApiWorkspace(COLLECTOR);
  /** Every response body seen, to prove the password never appears in any of them. */
  const seen: string[] = [];

  afterAll(async () => {
    expect(seen.length).toBeGreaterThan(20);
    for (const body of seen) expect(body).not.toContain(SECRET);
  });

  async function send(method: string, path: string, body?: unknown, as = w.tokens.demo) {
    const res = await call(w.app, method, path, { token: as, body });
    seen.push(JSON.stringify(res.body));
    return res;
  }

  const smtp = (overrides: Record<string, unknown> = {}) => ({
    name: 'AR mailbox',
    from_email: 'ar@acme.example',
    from_name: 'Acme AR',
    smtp_host: 'smtp.acme.example',
    smtp_port: 587,
    smtp_username: 'ar@acme.example',
    smtp_password: SECRET,
    ...overrides,
  });

  async function storedRow(id: string) {
    return w.engine.db.selectFrom('email_connections').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  }

  it('lets only a company owner add or change a connection in the core too, whatever calls it (a collector its own one included)', async () => {
    const as = (role: Role) => ({ actor: systemActor, companyId: w.company, role });
    const input = { name: 'AR', from_email: 'ar@acme.example', smtp_host: 'smtp.acme.example', smtp_port: 587 };
    for (const role of ['collector', 'viewer'] as const) {
      await expect(createConnection(w.engine, as(role), input)).rejects.toMatchObject({ code: 'owner_only' });
    }
    const made = await createConnection(w.engine, as('owner'), input);
    for (const role of ['collector', 'viewer'] as const) {
      const refused = updateConnection(w.engine, as(role), made.id, { name: 'Renamed' });
      await expect(refused).rejects.toBeInstanceOf(ForbiddenError);
      await expect(refused).rejects.toMatchObject({ code: 'owner_only' });
    }
    expect((await storedRow(made.id)).name).toBe('AR');
    expect((await updateConnection(w.engine, as('owner'), made.id, { name: 'Renamed' })).name).toBe('Renamed');
  });

  it('creates a connection owned by its creator, stores the password sealed, and never returns it', async () => {
    const res = await send('POST', `${w.base}/email-connections`, smtp());
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      name: 'AR mailbox',
      from_email: 'ar@acme.example',
      from_name: 'Acme AR',
      smtp_host: 'smtp.acme.example',
      smtp_port: 587,
      smtp_secure: false,
      smtp_username: 'ar@acme.example',
      has_password: true,
      is_default: true,
      is_active: true,
      allow_shared_sending: false,
      user_id: w.userIds.demo,
      imap_host: null,
      imap_port: null,
      imap_secure: true,
      imap_username: null,
      has_imap_password: false,
      imap_mailbox: 'INBOX',
      replies_checked_at: null,
      replies_error: null,
      require_tls: true,
      smtp_trusted_certificate: null,
      imap_trusted_certificate: null,
      tls_review: false,
      created_at: '2026-11-23T12:00:00.000Z',
      updated_at: '2026-11-23T12:00:00.000Z',
    });
    const row = await storedRow(res.body.id);
    expect(row.smtp_password_enc).not.toBeNull();
    expect(row.smtp_password_enc).not.toContain(SECRET);
    expect(w.engine.secrets.decrypt(row.smtp_password_enc as string)).toBe(SECRET);
    const changes = await w.engine.db.selectFrom('changes').select('data').where('entity', '=', 'email_connection').where('company_id', '=', w.company).execute();
    expect(changes.length).toBe(1);
    expect(changes[0].data).not.toContain(SECRET);
    expect(JSON.parse(changes[0].data)).toMatchObject({ has_password: true, smtp_host: 'smtp.acme.example' });
    expect(JSON.parse(changes[0].data)).not.toHaveProperty('smtp_password_enc');
    const raw = w.engine.database.sqlite.prepare('SELECT * FROM email_connections').all();
    expect(JSON.stringify(raw)).not.toContain(SECRET);

    expect((await send('GET', `${w.base}/email-connections`)).body).toEqual({ count: 1, data: [res.body] });
    expect((await send('GET', `${w.base}/email-connections/${res.body.id}`)).body).toEqual(res.body);
  });

  it('authenticates to a real SMTP server with the sealed password', async () => {
    const server = await startSmtp({ auth: { user: 'ar@acme.example', pass: SECRET } });
    try {
      const created = (await send('POST', `${w.base}/email-connections`, smtp({ smtp_host: server.host, smtp_port: server.port }))).body;
      const sent = await sendEmail(await storedRow(created.id), w.engine.secrets, {
        to: 'ap@customer.example',
        subject: 'Invoice INV-1',
        text: 'Hello',
        messageId: '<test-1@ardesk.local>',
      });
      expect(sent.accepted).toEqual(['ap@customer.example']);
      const [mail] = await server.waitFor(1);
      expect(mail.subject).toBe('Invoice INV-1');
      expect(mail.from).toBe('ar@acme.example');
    } finally {
      await server.close();
    }
  });

  it('keeps one default per company: the first active one, then whichever takes the flag', async () => {
    const first = (await send('POST', `${w.base}/email-connections`, smtp({ name: 'First' }))).body;
    const second = (await send('POST', `${w.base}/email-connections`, smtp({ name: 'Second' }))).body;
    expect(first.is_default).toBe(true);
    expect(second.is_default).toBe(false);
    const third = (await send('POST', `${w.base}/email-connections`, smtp({ name: 'Third', is_default: true }))).body;
    expect(third.is_default).toBe(true);
    const defaults = async () => (await send('GET', `${w.base}/email-connections`)).body.data.filter((c: { is_default: boolean }) => c.is_default).map((c: { name: string }) => c.name);
    expect(await defaults()).toEqual(['Third']);
    expect((await send('PATCH', `${w.base}/email-connections/${second.id}`, { is_default: true })).body.is_default).toBe(true);
    expect(await defaults()).toEqual(['Second']);
    const cleared = await w.engine.db.selectFrom('changes').select('entity_id').where('command', '=', 'update_email_connection').where('company_id', '=', w.company).execute();
    expect(cleared.map((c) => c.entity_id).sort()).toEqual([second.id, third.id].sort());

    const deactivated = await send('PATCH', `${w.base}/email-connections/${second.id}`, { is_active: false });
    expect(deactivated.body).toMatchObject({ is_active: false, is_default: false });
    expect(await defaults()).toEqual([]);
    const refused = await send('PATCH', `${w.base}/email-connections/${second.id}`, { is_default: true });
    expect(refused.status).toBe(400);
    expect(refused.body.errors.is_default).toBeDefined();
    const otherCompany = await send('POST', `/api/companies/${w.other}/email-connections`, smtp({ name: 'Theirs' }), w.tokens.rival);
    expect(otherCompany.body.is_default).toBe(true);
  });

  it('updates settings; keeps, replaces or removes the password; demands it again when the server changes', async () => {
    const created = (await send('POST', `${w.base}/email-connections`, smtp())).body;
    const before = (await storedRow(created.id)).smtp_password_enc;
    const renamed = await send('PATCH', `${w.base}/email-connections/${created.id}`, { name: 'Collections', from_name: null, allow_shared_sending: true });
    expect(renamed.body).toMatchObject({ name: 'Collections', from_name: null, allow_shared_sending: true, has_password: true });
    expect((await storedRow(created.id)).smtp_password_enc).toBe(before);

    const moved = await send('PATCH', `${w.base}/email-connections/${created.id}`, { smtp_host: 'evil.example', smtp_port: 465 });
    expect(moved.status).toBe(400);
    expect(moved.body).toMatchObject({ code: 'password_required', errors: { smtp_password: ['Is required when the host or username changes'] } });
    expect((await storedRow(created.id)).smtp_host).toBe('smtp.acme.example');

    // Another port on the same host keeps the stored password.
    const reported = await send('PATCH', `${w.base}/email-connections/${created.id}`, { smtp_port: 465, smtp_secure: true });
    expect(reported.body).toMatchObject({ smtp_port: 465, smtp_secure: true, has_password: true });
    expect((await storedRow(created.id)).smtp_password_enc).toBe(before);

    const movedWithPassword = await send('PATCH', `${w.base}/email-connections/${created.id}`, { smtp_host: 'smtp2.acme.example', smtp_port: 465, smtp_secure: true, smtp_password: `${SECRET}-2` });
    expect(movedWithPassword.body).toMatchObject({ smtp_host: 'smtp2.acme.example', smtp_port: 465, smtp_secure: true, has_password: true });
    expect(w.engine.secrets.decrypt((await storedRow(created.id)).smtp_password_enc as string)).toBe(`${SECRET}-2`);

    const removed = await send('PATCH', `${w.base}/email-connections/${created.id}`, { smtp_password: null });
    expect(removed.body.has_password).toBe(false);
    expect((await storedRow(created.id)).smtp_password_enc).toBeNull();
    expect((await send('PATCH', `${w.base}/email-connections/${created.id}`, { smtp_host: 'anywhere.example' })).status).toBe(200);
    const changes = await w.engine.db.selectFrom('changes').select('data').where('entity', '=', 'email_connection').where('company_id', '=', w.company).execute();
    for (const c of changes) {
      expect(c.data).not.toContain(SECRET);
      expect(c.data).not.toContain('smtp_password');
    }
  });

  it('defaults smtp_secure to true on port 465, and allows shared (user-less) connections', async () => {
    const res = await send('POST', `${w.base}/email-connections`, smtp({ smtp_port: 465, user_id: null, smtp_password: '' }));
    expect(res.body).toMatchObject({ smtp_secure: true, user_id: null, has_password: false });
  });

  it('lets only a company owner make or change a connection, a personal one included (issue 36)', async () => {
    const ownersBox = (await send('POST', `${w.base}/email-connections`, smtp({ name: "Owner's box" }))).body;
    const shared = (await send('POST', `${w.base}/email-connections`, smtp({ name: 'Shared', user_id: null }))).body;
    const collectors = (await send('POST', `${w.base}/email-connections`, smtp({ name: 'Collector box', user_id: w.userIds.collector }))).body;
    expect(collectors.user_id).toBe(w.userIds.collector);

    // A collector is refused before the body is read: a valid or an invalid one, on any connection, their own included.
    for (const [method, path, body] of [
      ['POST', `${w.base}/email-connections`, smtp({ name: 'Sneaky' })],
      ['POST', `${w.base}/email-connections`, { smtp_host: 'two words' }],
      ['PATCH', `${w.base}/email-connections/${shared.id}`, { smtp_host: 'mail.attacker.test' }],
      ['PATCH', `${w.base}/email-connections/${ownersBox.id}`, { name: 'Hijacked' }],
      ['PATCH', `${w.base}/email-connections/${collectors.id}`, { name: 'Mine' }],
    ] as const) {
      const refused = await send(method, path, body, w.tokens.collector);
      expect(refused.status, `${method} ${path}`).toBe(403);
      expect(refused.headers.get('content-type')).toContain('application/problem+json');
      expect(refused.body).toMatchObject({ code: 'owner_only', detail: 'Only an owner of this company can change its email connections' });
    }
    const after = (await send('GET', `${w.base}/email-connections`, undefined, w.tokens.collector)).body;
    expect(after.count).toBe(3);
    expect(after.data.map((c: { name: string; smtp_host: string }) => [c.name, c.smtp_host]).sort()).toEqual(
      [ownersBox, shared, collectors].map((c: { name: string; smtp_host: string }) => [c.name, c.smtp_host]).sort(),
    );

    expect((await send('PATCH', `${w.base}/email-connections/${shared.id}`, { name: 'Shared AR' })).status).toBe(200);
    expect((await send('PATCH', `${w.base}/email-connections/${collectors.id}`, { allow_shared_sending: true })).status).toBe(200);
    expect((await send('PATCH', `${w.base}/email-connections/${collectors.id}`, { name: 'X' }, w.tokens.watcher)).status).toBe(403);
    expect((await send('POST', `${w.base}/email-connections`, smtp(), w.tokens.watcher)).status).toBe(403);
  });

  it('answers 400 for bad bodies and 404 for unknown or foreign connections', async () => {
    const cases: Array<[unknown, string]> = [
      [smtp({ name: undefined }), 'name'],
      [smtp({ from_email: 'nope' }), 'from_email'],
      [smtp({ smtp_host: 'two words' }), 'smtp_host'],
      [smtp({ smtp_port: 0 }), 'smtp_port'],
      [smtp({ smtp_port: '587' }), 'smtp_port'],
      [smtp({ smtp_secure: 'yes' }), 'smtp_secure'],
      [smtp({ user_id: 'me' }), 'user_id'],
      [smtp({ user_id: '0192f0c4-5f3e-7c4a-9a51-1f2e3d4c5b6a' }), 'user_id'],
      [smtp({ is_default: true, is_active: false }), 'is_default'],
      [smtp({ password: SECRET }), 'non_field_errors'],
      [smtp({ imap_host: 'imap\u0000.example.com' }), 'imap_host'],
      [smtp({ imap_mailbox: 'INBOX\ud800' }), 'imap_mailbox'],
    ];
    for (const [body, field] of cases) {
      const res = await send('POST', `${w.base}/email-connections`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(Object.keys(res.body.errors), JSON.stringify(body)).toContain(field);
    }
    expect((await send('GET', `${w.base}/email-connections`)).body.count).toBe(0);

    const foreign = (await send('POST', `/api/companies/${w.other}/email-connections`, smtp(), w.tokens.rival)).body;
    for (const id of [foreign.id, '0192f0c4-5f3e-7c4a-9a51-1f2e3d4c5b6a']) {
      expect((await send('GET', `${w.base}/email-connections/${id}`)).status).toBe(404);
      expect((await send('PATCH', `${w.base}/email-connections/${id}`, { name: 'Mine' })).status).toBe(404);
    }
  });
});
