import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApp } from '../../core/http/app';
import { normaliseViewQuery } from '../../core/views/views';
import { addCompany, addUser, type App, call, loginAs } from '../support/api';
import { type TestEngine, testEngine } from '../support/engine';

describe('saved invoice views (extension)', () => {
  let engine: TestEngine;
  let app: App;
  let first: string;
  let second: string;
  let demo: string;
  let other: string;
  const path = (company: string) => `/api/companies/${company}/saved-views`;

  beforeEach(async () => {
    engine = await testEngine();
    app = createApp(engine);
    first = await addCompany(engine, 'Acme Supply');
    second = await addCompany(engine, 'Borealis Foods');
    await addUser(engine, 'demo', [[first, 'collector']]);
    await addUser(engine, 'other', [
      [first, 'collector'],
      [second, 'viewer'],
    ]);
    demo = await loginAs(app, 'demo');
    other = await loginAs(app, 'other');
  });
  afterEach(() => engine.dispose());

  it('saves, lists by name, overwrites by name regardless of case, and deletes', async () => {
    const created = await call(app, 'POST', path(first), { token: demo, body: { name: 'Late big ones', query: '?status=past_due_90p&sort=balance_desc' } });
    expect(created.status).toBe(201);
    expect(created.body.query).toBe('status=past_due_90p&sort=balance_desc');
    await call(app, 'POST', path(first), { token: demo, body: { name: 'Acme only', query: 'search=acme' } });
    const replaced = await call(app, 'POST', path(first), { token: demo, body: { name: 'late BIG ones', query: 'status=past_due_61_90' } });
    expect(replaced.status).toBe(200);
    expect(replaced.body.id).toBe(created.body.id);
    const list = await call(app, 'GET', path(first), { token: demo });
    expect(list.status).toBe(200);
    expect(list.body.count).toBe(2);
    expect(list.body.data.map((v: { name: string; query: string }) => [v.name, v.query])).toEqual([
      ['Acme only', 'search=acme'],
      ['late BIG ones', 'status=past_due_61_90'],
    ]);
    expect((await call(app, 'DELETE', `${path(first)}/${created.body.id}`, { token: demo })).status).toBe(204);
    expect((await call(app, 'GET', path(first), { token: demo })).body.count).toBe(1);
  });

  it("keeps each user's views to themselves: another user's view is invisible and a 404 to delete", async () => {
    const mine = await call(app, 'POST', path(first), { token: demo, body: { name: 'Mine', query: '' } });
    expect((await call(app, 'GET', path(first), { token: other })).body.count).toBe(0);
    expect((await call(app, 'DELETE', `${path(first)}/${mine.body.id}`, { token: other })).status).toBe(404);
    expect((await call(app, 'DELETE', `${path(first)}/not-a-uuid`, { token: demo })).status).toBe(404);
  });

  it('refuses non-members and invalid names with problem+json; a viewer keeps views of their own', async () => {
    expect((await call(app, 'GET', path(second), { token: demo })).status).toBe(403);
    const viewers = await call(app, 'POST', path(second), { token: other, body: { name: 'x', query: '' } });
    expect(viewers.status).toBe(201);
    expect((await call(app, 'DELETE', `${path(second)}/${viewers.body.id}`, { token: other })).status).toBe(204);
    const blank = await call(app, 'POST', path(first), { token: demo, body: { name: '   ', query: '' } });
    expect(blank.status).toBe(400);
    expect(blank.headers.get('content-type')).toContain('application/problem+json');
    expect(blank.body.errors.name).toBeDefined();
    expect((await call(app, 'POST', path(first), { token: demo, body: { query: '' } })).status).toBe(400);
  });

  it('normalises a query string', () => {
    expect(normaliseViewQuery('?a=1&b=x%20y')).toBe('a=1&b=x+y');
    expect(normaliseViewQuery('')).toBe('');
  });
});
