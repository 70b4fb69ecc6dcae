import { describe, expect, it } from 'vitest';
import { validateTeamMember } from '../../core/team/team';
import { call, useApiWorkspace } from '../support/api';
import { ledger } from '../support/ledger-fixtures';

describe('team member rules (pure)', () => {
  it('requires a name and a known role when creating; validates email and user id', () => {
    expect(validateTeamMember({ name: 'Ada', role: 'ar' }, true)).toEqual({});
    expect(Object.keys(validateTeamMember({}, true)).sort()).toEqual(['name', 'role']);
    expect(validateTeamMember({ role: 'boss' as never }, false).role).toBeDefined();
    expect(validateTeamMember({ email: 'ada@' }, false).email).toBeDefined();
    expect(validateTeamMember({ email: '' }, false)).toEqual({});
    expect(validateTeamMember({ user_id: 'me' }, false).user_id).toBeDefined();
  });
});

describe('team members API (extension)', () => {
  const w = useApiWorkspace();

  const send = (method: string, path: string, body?: unknown) => call(w.app, method, path, { token: w.tokens.demo, body });

  it('adds, lists (by name, filtered by role and activity), reads and updates team members', async () => {
    const ada = await send('POST', `${w.base}/team-members`, { name: 'Ada Lovelace', email: 'ada@acme.example', role: 'ar', user_id: w.userIds.demo });
    expect(ada.status).toBe(201);
    expect(ada.body).toEqual({
      id: expect.any(String),
      name: 'Ada Lovelace',
      email: 'ada@acme.example',
      role: 'ar',
      is_active: true,
      user_id: w.userIds.demo,
      created_at: '2026-11-23T12:00:00.000Z',
      updated_at: '2026-11-23T12:00:00.000Z',
    });
    await send('POST', `${w.base}/team-members`, { name: 'Sol Sales', role: 'sales' });
    const mo = (await send('POST', `${w.base}/team-members`, { name: 'Mo Manager', role: 'manager', is_active: false })).body;

    const names = async (query = '') => (await send('GET', `${w.base}/team-members${query}`)).body.data.map((m: { name: string }) => m.name);
    expect(await names()).toEqual(['Ada Lovelace', 'Mo Manager', 'Sol Sales']);
    expect(await names('?role=sales')).toEqual(['Sol Sales']);
    expect(await names('?is_active=false')).toEqual(['Mo Manager']);
    expect((await send('GET', `${w.base}/team-members`)).body.count).toBe(3);

    const updated = await send('PATCH', `${w.base}/team-members/${mo.id}`, { is_active: true, role: 'ar', email: null });
    expect(updated.body).toMatchObject({ name: 'Mo Manager', role: 'ar', is_active: true, email: null });
    expect((await send('GET', `${w.base}/team-members/${mo.id}`)).body).toEqual(updated.body);
  });

  it('links a user of this company to at most one member', async () => {
    const first = (await send('POST', `${w.base}/team-members`, { name: 'Ada', role: 'ar', user_id: w.userIds.demo })).body;
    const dup = await send('POST', `${w.base}/team-members`, { name: 'Ada again', role: 'ar', user_id: w.userIds.demo });
    expect(dup.status).toBe(409);
    expect(dup.body.code).toBe('duplicate_team_user');
    expect((await send('PATCH', `${w.base}/team-members/${first.id}`, { user_id: w.userIds.demo })).status).toBe(200);
    const outsider = await send('POST', `${w.base}/team-members`, { name: 'Rival', role: 'ar', user_id: w.userIds.rival });
    expect(outsider.status).toBe(400);
    expect(outsider.body.errors.user_id).toBeDefined();
  });

  it('answers 400 for bad bodies and query values', async () => {
    const cases: Array<[unknown, string]> = [
      [{ role: 'ar' }, 'name'],
      [{ name: 'A' }, 'role'],
      [{ name: 'A', role: 'boss' }, 'role'],
      [{ name: 'A', role: 'ar', email: 'nope' }, 'email'],
      [{ name: 'A', role: 'ar', is_active: 'yes' }, 'is_active'],
      [{ name: 'A', role: 'ar', user_id: 'me' }, 'user_id'],
    ];
    for (const [body, field] of cases) {
      const res = await send('POST', `${w.base}/team-members`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(Object.keys(res.body.errors), JSON.stringify(body)).toContain(field);
    }
    expect((await send('GET', `${w.base}/team-members?role=boss`)).status).toBe(400);
    expect((await send('GET', `${w.base}/team-members?is_active=maybe`)).status).toBe(400);
  });

  it("answers 404 for unknown or another company's members, and 403 for viewers writing", async () => {
    const foreign = await ledger(w.engine, w.other).teamMember('Theirs');
    for (const id of [foreign, '0192f0c4-5f3e-7c4a-9a51-1f2e3d4c5b6a']) {
      expect((await send('GET', `${w.base}/team-members/${id}`)).status).toBe(404);
      expect((await send('PATCH', `${w.base}/team-members/${id}`, { name: 'Mine' })).status).toBe(404);
    }
    expect((await call(w.app, 'GET', `/api/companies/${w.other}/team-members/${foreign}`, { token: w.tokens.rival })).status).toBe(200);
    expect((await call(w.app, 'GET', `${w.base}/team-members`, { token: w.tokens.watcher })).status).toBe(200);
    expect((await call(w.app, 'POST', `${w.base}/team-members`, { token: w.tokens.watcher, body: { name: 'X', role: 'ar' } })).status).toBe(403);
  });
});
