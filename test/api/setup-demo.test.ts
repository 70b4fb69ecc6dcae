import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApp } from '../../core/http/app';
import { CONCRETE_STATUSES } from '../../core/invoices/status';
import { INSIGHT_TYPE_NAMES } from '../../core/insights/payloads';
import { type App, call } from '../support/api';
import { type TestEngine, testEngine } from '../support/engine';

describe('POST /api/v1/setup/demo/', () => {
  let engine: TestEngine;
  let app: App;

  beforeEach(async () => {
    engine = await testEngine();
    app = createApp(engine);
  });
  afterEach(() => engine.dispose());

  const login = async (username: string, password: string) => {
    const res = await call(app, 'POST', '/api/v1/auth/login/', { body: { username, password } });
    expect(res.status).toBe(200);
    return res.body as { token: string; companies: Array<{ id: string; name: string }> };
  };

  it('fills an empty workspace with the demo and signs in as demo', async () => {
    expect((await call(app, 'GET', '/api/v1/setup/')).body).toEqual({ initialized: false });
    const res = await call(app, 'POST', '/api/v1/setup/demo/', { body: {} });
    expect(res.status).toBe(201);
    expect(res.body.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(res.body.companies.map((c: { name: string }) => c.name).sort()).toEqual(['Acme Industrial Supply', 'Bluebird Catering Co.']);
    expect((await call(app, 'GET', '/api/v1/setup/')).body).toEqual({ initialized: true });

    const first = res.body.companies.find((c: { name: string }) => c.name === 'Acme Industrial Supply').id;
    const invoices = await call(app, 'GET', `/api/companies/${first}/invoices?limit=5`, { token: res.body.token });
    expect(invoices.status).toBe(200);
    expect(invoices.body.count).toBeGreaterThanOrEqual(300);
    for (const status of CONCRETE_STATUSES) expect(invoices.body.facets[status], status).toBeGreaterThan(0);
  });

  it('answers without a body too, sent as JSON', async () => {
    const res = await call(app, 'POST', '/api/v1/setup/demo/', { headers: { 'content-type': 'application/json', 'content-length': '0' } });
    expect(res.status).toBe(201);
  });

  it('refuses a POST without a JSON content type: a page on another site could send that', async () => {
    const res = await call(app, 'POST', '/api/v1/setup/demo/');
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('cross_site_request');
    expect((await call(app, 'GET', '/api/v1/setup/')).body).toEqual({ initialized: false });
  });

  it('lets demo, outsider and the spec API see what the demo holds, and no more', async () => {
    await call(app, 'POST', '/api/v1/setup/demo/', { body: {} });
    const demo = await login('demo', 'demo');
    expect(demo.companies).toHaveLength(2);
    const outsider = await login('outsider', 'outsider');
    expect(outsider.companies.map((c) => c.name)).toEqual(['Bluebird Catering Co.']);
    const first = demo.companies.find((c) => c.name === 'Acme Industrial Supply')!.id;
    const second = outsider.companies[0].id;

    expect((await call(app, 'GET', `/api/companies/${first}/invoices`, { token: outsider.token })).status).toBe(403);
    const theirs = await call(app, 'GET', `/api/companies/${second}/invoices`, { token: outsider.token });
    expect(theirs.status).toBe(200);
    expect(theirs.body.count).toBe(40);

    const payments = await call(app, 'GET', `/api/companies/${first}/payments`, { token: demo.token });
    expect(payments.status).toBe(200);
    expect(new Set(payments.body.data.map((p: { payment_method: string }) => p.payment_method)).size).toBeGreaterThan(1);

    // Every type of insight, each asked by its name (the first page of all of them holds only the newest).
    for (const type of INSIGHT_TYPE_NAMES) {
      const insights = await call(app, 'GET', `/api/intelligence/insights?company_id=${first}&active_only=false&insight_type=${type}`, { token: demo.token });
      expect(insights.status).toBe(200);
      expect(insights.body.results.filter((i: { insight_type: string }) => i.insight_type === type).length, type).toBeGreaterThan(0);
    }

    const needsAction = await call(app, 'GET', `/api/companies/${first}/actions?category=needs_action`, { token: demo.token });
    expect(needsAction.status).toBe(200);
    expect(needsAction.body.count).toBeGreaterThan(0);
    const awaiting = await call(app, 'GET', `/api/companies/${first}/actions?category=awaiting_customer`, { token: demo.token });
    expect(awaiting.body.count).toBeGreaterThan(0);

    const sequences = await call(app, 'GET', `/api/companies/${first}/sequences?status=active`, { token: demo.token });
    expect(sequences.status).toBe(200);
    expect(sequences.body.data.map((s: { name: string }) => s.name)).toEqual(['Standard past-due follow-up']);
  });

  it('is refused with 409 once the workspace has a user', async () => {
    expect((await call(app, 'POST', '/api/v1/setup/demo/', { body: {} })).status).toBe(201);
    const again = await call(app, 'POST', '/api/v1/setup/demo/', { body: {} });
    expect(again.status).toBe(409);
    expect(again.headers.get('content-type')).toContain('application/problem+json');
    expect(again.body).toMatchObject({ status: 409, code: 'already_initialized' });
  });

  it('is refused after the first account was created by hand', async () => {
    const account = await call(app, 'POST', '/api/v1/setup/account/', { body: { username: 'ana', password: 'secret-pw', company_name: 'Ana Co' } });
    expect(account.status).toBe(201);
    const res = await call(app, 'POST', '/api/v1/setup/demo/', { body: {} });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('already_initialized');
    expect(engine.database.sqlite.prepare(`SELECT name FROM companies`).all()).toEqual([{ name: 'Ana Co' }]);
  });
});
