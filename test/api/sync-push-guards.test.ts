/**
 * What a pushed mutation may reach on the team server: only company-scoped routes of its own
 * company, judged on the path the replay will really run (dot segments resolved first), and an
 * identifier it brings that another row already has is a 409 of that mutation, not a 500.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../core/http/app';
import { newId } from '../../core/ids';
import { setSyncRole } from '../../core/sync/triggers';
import { addCompany, addUser, type App, call, loginAs } from '../support/api';
import { type TestEngine, testEngine } from '../support/engine';

describe('a pushed mutation', () => {
  let engine: TestEngine;
  let app: App;
  let token: string;
  let a: string;
  let b: string;
  let next = 0;

  beforeAll(async () => {
    engine = await testEngine();
    setSyncRole(engine.database.sqlite, 'server');
    a = await addCompany(engine, 'A');
    b = await addCompany(engine, 'B');
    await addUser(engine, 'ann', [
      [a, 'owner'],
      [b, 'owner'],
    ]);
    app = createApp(engine);
    token = await loginAs(app, 'ann');
  });
  afterAll(async () => engine.dispose());

  const clientId = newId();
  async function push(companyId: string, path: string, body: unknown, ids: string[] = []) {
    next += 1;
    const res = await call(app, 'POST', '/api/v1/sync/push', {
      token,
      body: { client_id: clientId, mutations: [{ id: next, company_id: companyId, command: 'create_label', method: 'POST', path, content_type: 'application/json', body: JSON.stringify(body), body_encoding: 'utf8', ids }] },
    });
    expect(res.status).toBe(200);
    return res.body.results[0] as { status: string; reason: string | null };
  }
  const labels = (companyId: string) => engine.db.selectFrom('labels').select('name').where('company_id', '=', companyId).execute();

  it("is refused when its path, once '..' is resolved, leads to another company or out of the company routes", async () => {
    for (const path of [`/api/companies/${b}/../${a}/labels`, `/api/companies/${b}/%2e%2e/${a}/labels`]) {
      expect(await push(b, path, { name: 'Smuggled' })).toEqual({ mutation_id: next, command: 'create_label', status: 'rejected', reason: "The operation's path is not a route of its company" });
    }
    expect(await labels(a)).toEqual([]);
    expect((await push(b, `/api/companies/${b}/../../v1/auth/tokens/`, { name: 'minted' })).status).toBe('rejected');
    expect(await engine.db.selectFrom('api_tokens').select('id').where('kind', '=', 'personal').execute()).toEqual([]);
    expect(await push(b, `/api/companies/${b}/./labels`, { name: 'Fine' })).toMatchObject({ status: 'applied' });
    expect(await labels(b)).toEqual([{ name: 'Fine' }]);
  });

  it('that brings an identifier another row has is rejected as a conflict (409), and nothing is written', async () => {
    const existing = (await call(app, 'POST', `/api/companies/${a}/labels`, { token, body: { name: 'First' } })).body.id as string;
    const outcome = await push(a, `/api/companies/${a}/labels`, { name: 'Second' }, [existing]);
    expect(outcome).toMatchObject({ status: 'rejected', reason: 'An identifier or unique value this operation brings is already used' });
    expect(await labels(a)).toEqual([{ name: 'First' }]);
  });
});
