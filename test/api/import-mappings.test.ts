import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../core/http/app';
import { addCompany, addUser, type App, call, loginAs } from '../support/api';
import { type TestEngine, testEngine } from '../support/engine';
import { AR_HEADER, AR_MAPPING, csv, rowCount } from '../support/import-fixtures';

describe('saved import mappings (extension)', () => {
  let engine: TestEngine;
  let app: App;
  let company: string;
  let other: string;
  let owner: string;
  let viewer: string;
  let rival: string;
  let base: string;

  beforeAll(async () => {
    engine = await testEngine('2026-11-23T12:00:00.000Z');
    app = createApp(engine);
    company = await addCompany(engine, 'Acme Supply');
    other = await addCompany(engine, 'Borealis Foods');
    await addUser(engine, 'olga', [[company, 'collector']]);
    await addUser(engine, 'vic', [[company, 'viewer']]);
    await addUser(engine, 'rita', [[other, 'owner']]);
    owner = await loginAs(app, 'olga');
    viewer = await loginAs(app, 'vic');
    rival = await loginAs(app, 'rita');
    base = `/api/companies/${company}/import-mappings`;
  });
  afterAll(() => engine.dispose());

  it('saves a mapping by name and lists it for the company, ready to import with', async () => {
    const saved = await call(app, 'POST', base, { token: owner, body: { name: ' Monthly ERP export ', mapping: AR_MAPPING } });
    expect(saved.status).toBe(201);
    expect(saved.body).toEqual({ id: expect.any(String), name: 'Monthly ERP export', mapping: AR_MAPPING, created_at: '2026-11-23T12:00:00.000Z', updated_at: '2026-11-23T12:00:00.000Z' });
    await call(app, 'POST', base, { token: owner, body: { name: 'customers only', mapping: { entity: 'customers', customers: { name: 'Name' } } } });
    const listed = await call(app, 'GET', base, { token: viewer });
    expect(listed.body.count).toBe(2);
    expect(listed.body.data.map((m: { name: string }) => m.name)).toEqual(['customers only', 'Monthly ERP export']);

    // The saved mapping imports a file as the original would.
    const form = new FormData();
    form.append('file', new Blob([csv([AR_HEADER, ['C-1', 'Globex', 'US', 'ap@globex.example', 'INV-1', '11/1/2026', '12/1/2026', '120.50', 'No', '', '', '']])]), 'ar.csv');
    form.append('mapping', JSON.stringify(listed.body.data[1].mapping));
    const imported = await app.request(`/api/companies/${company}/imports`, { method: 'POST', body: form, headers: { authorization: `Token ${owner}` } });
    expect(imported.status).toBe(200);
    expect(rowCount(engine, 'invoices')).toBe(1);
  });

  it('refuses a taken name (409), a mapping the import schema rejects and a bad name (400), writing nothing', async () => {
    const taken = await call(app, 'POST', base, { token: owner, body: { name: 'MONTHLY erp EXPORT', mapping: AR_MAPPING } });
    expect([taken.status, taken.body.code]).toEqual([409, 'duplicate_name']);
    const bad = await call(app, 'POST', base, { token: owner, body: { name: 'Broken', mapping: { entity: 'ar-rows', customers: { shoe_size: 'Size' } } } });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.errors).join(' ')).toContain('mapping.customers');
    for (const body of [{ name: '', mapping: AR_MAPPING }, { name: 'x'.repeat(101), mapping: AR_MAPPING }, { name: 'No mapping' }, { name: 'Extra', mapping: AR_MAPPING, shared: true }, { name: 'Bad entity', mapping: { entity: 'orders' } }]) {
      const res = await call(app, 'POST', base, { token: owner, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
    }
    expect((await call(app, 'GET', base, { token: owner })).body.count).toBe(2);
  });

  it('lets a viewer read but not change them, and keeps them inside the company', async () => {
    const [first] = (await call(app, 'GET', base, { token: owner })).body.data;
    expect((await call(app, 'POST', base, { token: viewer, body: { name: 'Mine', mapping: AR_MAPPING } })).status).toBe(403);
    expect((await call(app, 'DELETE', `${base}/${first.id}`, { token: viewer })).status).toBe(403);
    expect((await call(app, 'GET', base, { token: rival })).status).toBe(403);
    // The other company's own list is empty, and its owner cannot reach this company's mapping by id.
    expect((await call(app, 'GET', `/api/companies/${other}/import-mappings`, { token: rival })).body).toEqual({ count: 0, data: [] });
    expect((await call(app, 'DELETE', `/api/companies/${other}/import-mappings/${first.id}`, { token: rival })).status).toBe(404);
  });

  it('deletes a mapping; deleting it again is a 404', async () => {
    const [first] = (await call(app, 'GET', base, { token: owner })).body.data;
    expect((await call(app, 'DELETE', `${base}/${first.id.toUpperCase()}`, { token: owner })).status).toBe(204);
    expect((await call(app, 'DELETE', `${base}/${first.id}`, { token: owner })).status).toBe(404);
    expect((await call(app, 'GET', base, { token: owner })).body.data.map((m: { name: string }) => m.name)).toEqual(['Monthly ERP export']);
  });
});
