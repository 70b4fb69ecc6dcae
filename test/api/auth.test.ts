import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hashToken } from '../../core/auth/tokens';
import { createApp } from '../../core/http/app';
import { addCompany, addUser, type App, call, loginAs } from '../support/api';
import { type TestEngine, testEngine } from '../support/engine';

describe('authentication', () => {
  let engine: TestEngine;
  let app: App;
  let first: string;
  let second: string;

  beforeEach(async () => {
    engine = await testEngine();
    app = createApp(engine);
    first = await addCompany(engine, 'Acme Supply');
    second = await addCompany(engine, 'Borealis Foods');
    await addUser(engine, 'demo', [
      [first, 'owner'],
      [second, 'collector'],
    ]);
    await addUser(engine, 'outsider', [[second, 'viewer']]);
  });
  afterEach(() => engine.dispose());

  it('logs in with username and password and lists the companies', async () => {
    const res = await call(app, 'POST', '/api/v1/auth/login/', { body: { username: 'demo', password: 'demo-pw' } });
    expect(res.status).toBe(200);
    expect(res.body.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(res.body.companies.map((c: { id: string }) => c.id).sort()).toEqual([first, second].sort());
    expect(res.body.companies.every((c: { name: string }) => typeof c.name === 'string')).toBe(true);
  });

  it('stores only a hash of the token', async () => {
    const token = await loginAs(app, 'demo');
    const rows = await engine.db.selectFrom('api_tokens').select('token_hash').execute();
    expect(rows.map((r) => r.token_hash)).toContain(hashToken(token));
    expect(JSON.stringify(rows)).not.toContain(token);
  });

  it('rejects a wrong password and an unknown user alike with 401 problem+json', async () => {
    for (const body of [{ username: 'demo', password: 'nope' }, { username: 'ghost', password: 'nope' }]) {
      const res = await call(app, 'POST', '/api/v1/auth/login/', { body });
      expect(res.status).toBe(401);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(res.body).toMatchObject({ status: 401, code: 'invalid_credentials', title: 'Unauthorized' });
    }
  });

  it('answers 400 with field errors for a login body without a password', async () => {
    const res = await call(app, 'POST', '/api/v1/auth/login/', { body: { username: 'demo' } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_error');
    expect(res.body.errors.password).toBeDefined();
  });

  it('answers 400 for malformed JSON', async () => {
    const res = await call(app, 'POST', '/api/v1/auth/login/', { body: '{"username": "demo",' });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
  });

  it('throttles repeated failures for one username with 429 and Retry-After', async () => {
    for (let i = 0; i < 5; i++) {
      expect((await call(app, 'POST', '/api/v1/auth/login/', { body: { username: 'demo', password: 'bad' } })).status).toBe(401);
    }
    const blocked = await call(app, 'POST', '/api/v1/auth/login/', { body: { username: 'demo', password: 'demo-pw' } });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    engine.clock.set('2026-11-23T12:16:00.000Z');
    expect((await call(app, 'POST', '/api/v1/auth/login/', { body: { username: 'demo', password: 'demo-pw' } })).status).toBe(200);
  });

  it('requires Authorization: Token on protected routes', async () => {
    const token = await loginAs(app, 'demo');
    expect((await call(app, 'GET', '/api/v1/auth/me/')).status).toBe(401);
    expect((await call(app, 'GET', '/api/v1/auth/me/', { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
    expect((await call(app, 'GET', '/api/v1/auth/me/', { token: 'x'.repeat(43) })).status).toBe(401);
    const me = await call(app, 'GET', '/api/v1/auth/me/', { token });
    expect(me.status).toBe(200);
    expect(me.body.user.username).toBe('demo');
    // HTTP authentication schemes are case-insensitive (RFC 9110 11.1); the key itself is not.
    expect((await call(app, 'GET', '/api/v1/auth/me/', { headers: { authorization: `token ${token}` } })).status).toBe(200);
    expect((await call(app, 'GET', '/api/v1/auth/me/', { headers: { authorization: `TOKEN ${token}` } })).status).toBe(200);
    expect((await call(app, 'GET', '/api/v1/auth/me/', { headers: { authorization: `Token ${token.toUpperCase()}` } })).status).toBe(401);
  });

  it('expires tokens after 30 days', async () => {
    const token = await loginAs(app, 'demo');
    engine.clock.set('2026-12-23T11:59:00.000Z');
    expect((await call(app, 'GET', '/api/v1/auth/me/', { token })).status).toBe(200);
    engine.clock.set('2026-12-23T12:00:01.000Z');
    expect((await call(app, 'GET', '/api/v1/auth/me/', { token })).status).toBe(401);
  });

  it('revokes the token on logout', async () => {
    const token = await loginAs(app, 'demo');
    expect((await call(app, 'POST', '/api/v1/auth/logout/', { token })).status).toBe(204);
    expect((await call(app, 'GET', '/api/v1/auth/me/', { token })).status).toBe(401);
  });

  it('rejects a Host header that is not a loopback name', async () => {
    const res = await call(app, 'POST', '/api/v1/auth/login/', { body: { username: 'demo', password: 'demo-pw' }, headers: { host: 'evil.example' } });
    expect(res.status).toBe(421);
    expect(res.body.code).toBe('host_not_allowed');
  });

  it('serves an OpenAPI 3.1 document with the login route', async () => {
    const res = await call(app, 'GET', '/api/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(res.body.paths['/api/v1/auth/login/'].post).toBeDefined();
    expect(res.body.components.securitySchemes.Token).toMatchObject({ type: 'apiKey', in: 'header' });
    // Only login is in the specification; logout and me are extensions of the same area and say so.
    expect(res.body.paths['/api/v1/auth/login/'].post).toMatchObject({ tags: ['Authentication'], operationId: 'login' });
    expect(res.body.paths['/api/v1/auth/login/'].post['x-extension']).toBeUndefined();
    expect(res.body.paths['/api/v1/auth/logout/'].post).toMatchObject({ tags: ['Authentication'], 'x-extension': true });
    expect(res.body.paths['/api/v1/auth/me/'].get).toMatchObject({ tags: ['Authentication'], 'x-extension': true, operationId: 'getCurrentUser' });
  });

  it('serves the API reference from local assets', async () => {
    const page = await app.request('/api/docs');
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('/api/docs/swagger-ui-bundle.js');
    expect(html).not.toMatch(/https?:\/\//);
    const bundle = await app.request('/api/docs/swagger-ui-bundle.js');
    expect(bundle.status).toBe(200);
  });
});

describe('requests without a body', () => {
  it('accepts Content-Type: application/json with an empty body where the body is optional', async () => {
    const engine = await testEngine();
    const app = createApp(engine);
    const company = await addCompany(engine, 'Acme');
    await addUser(engine, 'demo', [[company, 'owner']]);
    const token = await loginAs(app, 'demo');
    const res = await app.request(`/api/companies/${company}/ar-aging/snapshots`, {
      method: 'POST',
      headers: { authorization: `Token ${token}`, 'content-type': 'application/json', 'content-length': '0' },
      body: '',
    });
    expect(res.status).toBe(201);
    await engine.dispose();
  });
});
