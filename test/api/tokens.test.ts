import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../core/auth/tokens';
import { createApp } from '../../core/http/app';
import { addCompany, addUser, type App, call, loginAs } from '../support/api';
import { type TestEngine, testEngine } from '../support/engine';

describe('personal API tokens (extension)', () => {
  let engine: TestEngine;
  let app: App;
  let dana: string;
  let omar: string;
  let company: string;
  const NOW = '2026-11-23T12:00:00.000Z';

  beforeAll(async () => {
    engine = await testEngine(NOW);
    app = createApp(engine);
    company = await addCompany(engine, 'Acme Supply');
    await addUser(engine, 'dana', [[company, 'viewer']]);
    await addUser(engine, 'omar', [[company, 'owner']]);
    dana = await loginAs(app, 'dana');
    omar = await loginAs(app, 'omar');
  });
  afterAll(() => engine.dispose());

  it('makes a token shown once, stored only as its hash, that acts as its user until it expires', async () => {
    const created = await call(app, 'POST', '/api/v1/auth/tokens/', { token: dana, body: { name: 'Nightly export', expires_in_days: 30 } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      name: 'Nightly export',
      created_at: NOW,
      expires_at: '2026-12-23T12:00:00.000Z',
      last_used_at: null,
      token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    });
    const key = created.body.token;
    const row = await engine.db.selectFrom('api_tokens').selectAll().where('id', '=', created.body.id).executeTakeFirstOrThrow();
    expect(row.token_hash).toBe(hashToken(key));
    expect(JSON.stringify(row)).not.toContain(key);

    const me = await call(app, 'GET', '/api/v1/companies/', { token: key });
    expect(me.body.companies).toEqual([{ id: company, name: 'Acme Supply', role: 'viewer' }]);
    // The user's role still applies: a viewer's token cannot write.
    expect((await call(app, 'POST', `/api/companies/${company}/labels`, { token: key, body: { name: 'Hot', color: '#ff0000' } })).status).toBe(403);

    const listed = await call(app, 'GET', '/api/v1/auth/tokens/', { token: dana });
    expect(listed.body).toEqual({ tokens: [{ id: created.body.id, name: 'Nightly export', created_at: NOW, expires_at: '2026-12-23T12:00:00.000Z', last_used_at: NOW }] });
    expect(JSON.stringify(listed.body)).not.toContain(key);

    engine.clock.set('2026-12-23T12:00:00.000Z');
    try {
      expect((await call(app, 'GET', '/api/v1/auth/me/', { token: key })).status).toBe(401);
    } finally {
      engine.clock.set(NOW);
    }
  });

  it("lists only the caller's own personal tokens: not login sessions, not another user's", async () => {
    await call(app, 'POST', '/api/v1/auth/tokens', { token: omar, body: { name: 'Backup script', password: 'omar-pw' } });
    const omars = await call(app, 'GET', '/api/v1/auth/tokens', { token: omar });
    expect(omars.body.tokens.map((t: { name: string; expires_at: string }) => [t.name, t.expires_at])).toEqual([['Backup script', '2027-02-21T12:00:00.000Z']]);
    expect((await call(app, 'GET', '/api/v1/auth/tokens/', { token: dana })).body.tokens.map((t: { name: string }) => t.name)).toEqual(['Nightly export']);
  });

  it('revokes a token at once; another user cannot, and a second revoke is a 404', async () => {
    const made = (await call(app, 'POST', '/api/v1/auth/tokens/', { token: dana, body: { name: 'Temporary', expires_in_days: 1 } })).body;
    expect((await call(app, 'GET', '/api/v1/auth/me/', { token: made.token })).status).toBe(200);
    expect((await call(app, 'DELETE', `/api/v1/auth/tokens/${made.id}/`, { token: omar })).status).toBe(404);
    expect((await call(app, 'GET', '/api/v1/auth/me/', { token: made.token })).status).toBe(200);
    expect((await call(app, 'DELETE', `/api/v1/auth/tokens/${made.id.toUpperCase()}/`, { token: dana })).status).toBe(204);
    expect((await call(app, 'GET', '/api/v1/auth/me/', { token: made.token })).status).toBe(401);
    expect((await call(app, 'DELETE', `/api/v1/auth/tokens/${made.id}`, { token: dana })).status).toBe(404);
    expect((await call(app, 'GET', '/api/v1/auth/tokens/', { token: dana })).body.tokens.map((t: { name: string }) => t.name)).toEqual(['Nightly export']);
    // A login session's id is not a personal token.
    const session = await engine.db.selectFrom('api_tokens').select('id').where('kind', '=', 'session').executeTakeFirstOrThrow();
    expect((await call(app, 'DELETE', `/api/v1/auth/tokens/${session.id}/`, { token: dana })).status).toBe(404);
    expect((await call(app, 'DELETE', '/api/v1/auth/tokens/not-a-uuid/', { token: dana })).status).toBe(404);
  });

  it('needs a fresh password to mint from a personal token or to outlive the sign-in token (the launch-token escalation)', async () => {
    // A one-day sign-in, like the desktop's launch token.
    const launched = await call(createApp(engine, { tokenTtlDays: 1 }), 'POST', '/api/v1/auth/login/', { body: { username: 'dana', password: 'dana-pw' } });
    const launch = launched.body.token;
    const year = await call(app, 'POST', '/api/v1/auth/tokens/', { token: launch, body: { name: 'Forever', expires_in_days: 365 } });
    expect([year.status, year.body.code]).toEqual([403, 'password_required']);
    expect(year.headers.get('content-type')).toContain('application/problem+json');
    const wrong = await call(app, 'POST', '/api/v1/auth/tokens/', { token: launch, body: { name: 'Forever', expires_in_days: 365, password: 'guess' } });
    expect([wrong.status, wrong.body.code, wrong.body.errors]).toEqual([400, 'wrong_password', { password: ['The password is not right'] }]);
    // Within the sign-in's own life, no password is needed.
    const day = await call(app, 'POST', '/api/v1/auth/tokens/', { token: launch, body: { name: 'Today', expires_in_days: 1 } });
    expect(day.status).toBe(201);
    expect(Date.parse(day.body.expires_at)).toBeLessThanOrEqual(Date.parse(launched.body.expires_at));
    // A personal token never mints another without the password, not even a shorter one.
    const fromPersonal = await call(app, 'POST', '/api/v1/auth/tokens/', { token: day.body.token, body: { name: 'Renewed', expires_in_days: 1 } });
    expect([fromPersonal.status, fromPersonal.body.code]).toEqual([403, 'password_required']);
    const names = async () => (await call(app, 'GET', '/api/v1/auth/tokens/', { token: dana })).body.tokens.map((t: { name: string }) => t.name).sort();
    expect(await names()).toEqual(['Nightly export', 'Today']);
    // With the password, both may.
    expect((await call(app, 'POST', '/api/v1/auth/tokens/', { token: day.body.token, body: { name: 'Renewed', expires_in_days: 30, password: 'dana-pw' } })).status).toBe(201);
    expect((await call(app, 'POST', '/api/v1/auth/tokens/', { token: launch, body: { name: 'Forever', expires_in_days: 365, password: 'dana-pw' } })).status).toBe(201);
    expect(await names()).toEqual(['Forever', 'Nightly export', 'Renewed', 'Today']);
    for (const name of ['Forever', 'Renewed', 'Today']) {
      const row = await engine.db.selectFrom('api_tokens').select('id').where('name', '=', name).executeTakeFirstOrThrow();
      expect((await call(app, 'DELETE', `/api/v1/auth/tokens/${row.id}/`, { token: dana })).status).toBe(204);
    }
  });

  it('refuses a taken name (409), bad names, expiries and unknown fields (400), and callers without a token (401)', async () => {
    const taken = await call(app, 'POST', '/api/v1/auth/tokens/', { token: dana, body: { name: 'nightly EXPORT', password: 'dana-pw' } });
    expect(taken.status).toBe(409);
    expect(taken.body.code).toBe('duplicate_name');
    for (const body of [{ name: '' }, { name: '   ' }, { name: 'x'.repeat(101) }, { name: 'a', expires_in_days: 0 }, { name: 'a', expires_in_days: 366 }, { name: 'a', expires_in_days: 1.5 }, { name: 'a', scope: 'all' }, {}]) {
      const res = await call(app, 'POST', '/api/v1/auth/tokens/', { token: dana, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
    }
    expect((await call(app, 'GET', '/api/v1/auth/tokens/', { token: dana })).body.tokens).toHaveLength(1);
    expect((await call(app, 'GET', '/api/v1/auth/tokens/')).status).toBe(401);
    expect((await call(app, 'POST', '/api/v1/auth/tokens/', { body: { name: 'x' } })).status).toBe(401);
  });
});
