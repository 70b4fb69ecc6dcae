import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../core/http/app';
import { addCompany, addUser, type App, call, loginAs } from '../support/api';
import { type TestEngine, testEngine } from '../support/engine';

describe('GET /api/v1/companies/ (extension)', () => {
  let engine: TestEngine;
  let app: App;
  let acme: string;
  let bluebird: string;

  beforeAll(async () => {
    engine = await testEngine('2026-11-23T12:00:00.000Z');
    app = createApp(engine);
    bluebird = await addCompany(engine, 'Bluebird Catering');
    acme = await addCompany(engine, 'Acme Supply');
    await addCompany(engine, 'Cedar Foods');
    await addUser(engine, 'dana', [
      [bluebird, 'collector'],
      [acme, 'owner'],
    ]);
    await addUser(engine, 'lone', []);
  });
  afterAll(() => engine.dispose());

  it("lists the caller's companies by name with the caller's role in each, and no other company", async () => {
    const token = await loginAs(app, 'dana');
    const res = await call(app, 'GET', '/api/v1/companies/', { token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      companies: [
        { id: acme, name: 'Acme Supply', role: 'owner' },
        { id: bluebird, name: 'Bluebird Catering', role: 'collector' },
      ],
    });
    expect((await call(app, 'GET', '/api/v1/companies', { token })).body).toEqual(res.body);
  });

  it('answers an empty list to a user without companies and 401 without a token', async () => {
    const token = await loginAs(app, 'lone');
    expect((await call(app, 'GET', '/api/v1/companies/', { token })).body).toEqual({ companies: [] });
    const anonymous = await call(app, 'GET', '/api/v1/companies/');
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('content-type')).toContain('application/problem+json');
  });
});
