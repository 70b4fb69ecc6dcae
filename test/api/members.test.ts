import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../core/http/app';
import { addCompany, addUser, type App, call, loginAs } from '../support/api';
import { type TestEngine, testEngine } from '../support/engine';

describe('company users and roles (owner only; extension)', () => {
  let engine: TestEngine;
  let app: App;
  let company: string;
  let other: string;
  const ids: Record<string, string> = {};
  const tokens: Record<string, string> = {};
  let base: string;

  beforeAll(async () => {
    engine = await testEngine('2026-11-23T12:00:00.000Z');
    app = createApp(engine);
    company = await addCompany(engine, 'Acme Supply');
    other = await addCompany(engine, 'Borealis Foods');
    base = `/api/companies/${company}/members`;
    for (const [username, memberships] of [
      ['olga', [[company, 'owner']]],
      ['carl', [[company, 'collector']]],
      ['vic', [[company, 'viewer']]],
      ['rita', [[other, 'owner']]],
    ] as const) {
      ids[username] = await addUser(engine, username, memberships.map(([c, r]) => [c, r]));
      tokens[username] = await loginAs(app, username);
    }
  });
  afterAll(() => engine.dispose());

  const roles = async () => (await call(app, 'GET', base, { token: tokens.olga })).body.members.map((m: { username: string; role: string }) => `${m.username}:${m.role}`);

  it('lists the members by name with their roles for an owner, and answers 403 to everyone else', async () => {
    const res = await call(app, 'GET', base, { token: tokens.olga });
    expect(res.status).toBe(200);
    expect(res.body.members).toEqual([
      { user_id: ids.carl, username: 'carl', display_name: 'carl', email: null, role: 'collector', member_since: '2026-11-23T12:00:00.000Z' },
      { user_id: ids.olga, username: 'olga', display_name: 'olga', email: null, role: 'owner', member_since: '2026-11-23T12:00:00.000Z' },
      { user_id: ids.vic, username: 'vic', display_name: 'vic', email: null, role: 'viewer', member_since: '2026-11-23T12:00:00.000Z' },
    ]);
    const collector = await call(app, 'GET', base, { token: tokens.carl });
    expect([collector.status, collector.body.code]).toEqual([403, 'owner_only']);
    expect((await call(app, 'POST', base, { token: tokens.carl, body: { username: 'rita', email: 'rita@borealis.example', role: 'viewer' } })).body.code).toBe('owner_only');
    expect((await call(app, 'PATCH', `${base}/${ids.carl}`, { token: tokens.carl, body: { role: 'owner' } })).body.code).toBe('owner_only');
    expect((await call(app, 'DELETE', `${base}/${ids.olga}`, { token: tokens.carl })).body.code).toBe('owner_only');
    expect((await call(app, 'PATCH', `${base}/${ids.vic}`, { token: tokens.vic, body: { role: 'owner' } })).status).toBe(403);
    expect((await call(app, 'GET', base, { token: tokens.rita })).status).toBe(403);
    expect(await roles()).toEqual(['carl:collector', 'olga:owner', 'vic:viewer']);
  });

  it('creates a user who can sign in to this company with the role given', async () => {
    const res = await call(app, 'POST', base, { token: tokens.olga, body: { username: 'nina', password: 'nina-pw', name: 'Nina Park', email: 'nina@acme.example', role: 'collector' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ username: 'nina', display_name: 'Nina Park', email: 'nina@acme.example', role: 'collector' });
    const login = await call(app, 'POST', '/api/v1/auth/login/', { body: { username: 'nina', password: 'nina-pw' } });
    expect(login.body.companies).toEqual([{ id: company, name: 'Acme Supply', role: 'collector' }]);
    const taken = await call(app, 'POST', base, { token: tokens.olga, body: { username: 'rita', password: 'whatever', role: 'viewer' } });
    expect([taken.status, taken.body.code]).toEqual([409, 'username_taken']);
  });

  it('adds an existing user by username and email, once', async () => {
    engine.database.sqlite.prepare("UPDATE users SET email = 'rita@borealis.example' WHERE username = 'rita'").run();
    const res = await call(app, 'POST', base, { token: tokens.olga, body: { username: 'rita', email: 'Rita@Borealis.example', role: 'viewer' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ user_id: ids.rita, role: 'viewer' });
    expect((await call(app, 'GET', '/api/v1/companies/', { token: tokens.rita })).body.companies.map((c: { name: string; role: string }) => `${c.name}:${c.role}`)).toEqual([
      'Acme Supply:viewer',
      'Borealis Foods:owner',
    ]);
    const again = await call(app, 'POST', base, { token: tokens.olga, body: { username: 'rita', email: 'rita@borealis.example', role: 'owner' } });
    expect([again.status, again.body.code]).toEqual([409, 'already_member']);
  });

  it("tells nothing of users outside the company: a username alone adds no one, and an unknown username or a wrong email get the same answer, without a profile", async () => {
    const other = await addCompany(engine, 'Elsewhere');
    await addUser(engine, 'sara', [[other, 'owner']]);
    engine.database.sqlite.prepare("UPDATE users SET email = 'sara@elsewhere.example', display_name = 'Sara Secret' WHERE username = 'sara'").run();
    const before = await roles();
    const bare = await call(app, 'POST', base, { token: tokens.olga, body: { username: 'sara', role: 'viewer' } });
    const bareUnknown = await call(app, 'POST', base, { token: tokens.olga, body: { username: 'nobody', role: 'viewer' } });
    expect(bare.status).toBe(400);
    expect(bare.body).toEqual(bareUnknown.body);
    const wrongEmail = await call(app, 'POST', base, { token: tokens.olga, body: { username: 'sara', email: 'guess@elsewhere.example', role: 'viewer' } });
    const unknown = await call(app, 'POST', base, { token: tokens.olga, body: { username: 'nobody', email: 'guess@elsewhere.example', role: 'viewer' } });
    expect([wrongEmail.status, wrongEmail.body.code]).toEqual([400, 'unknown_user']);
    expect(wrongEmail.body).toEqual(unknown.body);
    for (const res of [bare, bareUnknown, wrongEmail, unknown]) expect(JSON.stringify(res.body)).not.toMatch(/Sara Secret|sara@/);
    expect(await roles()).toEqual(before);
  });

  it('refuses bad input with a 400 that changes nothing', async () => {
    const before = await roles();
    for (const body of [
      { username: 'x', password: 'long-enough', role: 'viewer' },
      { username: 'newbie', password: 'abc', role: 'viewer' },
      { username: 'newbie', password: 'long-enough', role: 'boss' },
      { username: 'newbie', name: 'New Bie', role: 'viewer' },
      { username: 'newbie', role: 'viewer' },
      { username: 'newbie', password: 'long-enough', role: 'viewer', admin: true },
      { username: 'newbie', password: 'long-enough', role: 'viewer', email: 'not-an-email' },
    ]) {
      const res = await call(app, 'POST', base, { token: tokens.olga, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
    }
    expect((await call(app, 'PATCH', `${base}/${ids.carl}`, { token: tokens.olga, body: { role: 'admin' } })).status).toBe(400);
    expect(await roles()).toEqual(before);
  });

  it('changes roles, but never demotes or removes the last owner (409)', async () => {
    const demoted = await call(app, 'PATCH', `${base}/${ids.carl}`, { token: tokens.olga, body: { role: 'viewer' } });
    expect([demoted.status, demoted.body.role]).toEqual([200, 'viewer']);
    const last = await call(app, 'PATCH', `${base}/${ids.olga}`, { token: tokens.olga, body: { role: 'collector' } });
    expect([last.status, last.body.code]).toEqual([409, 'last_owner']);
    const removeLast = await call(app, 'DELETE', `${base}/${ids.olga}`, { token: tokens.olga });
    expect([removeLast.status, removeLast.body.code]).toEqual([409, 'last_owner']);
    expect((await call(app, 'PATCH', `${base}/${ids.carl}`, { token: tokens.olga, body: { role: 'owner' } })).status).toBe(200);
    expect((await call(app, 'PATCH', `${base}/${ids.olga}`, { token: tokens.olga, body: { role: 'collector' } })).body.role).toBe('collector');
    // Olga is no longer an owner: she can no longer manage members; Carl can.
    expect((await call(app, 'GET', base, { token: tokens.olga })).status).toBe(403);
    expect((await call(app, 'PATCH', `${base}/${ids.olga}`, { token: tokens.carl, body: { role: 'owner' } })).status).toBe(200);
  });

  it('removes a member: the user loses the company and keeps the account', async () => {
    expect((await call(app, 'DELETE', `${base}/${ids.vic}`, { token: tokens.olga })).status).toBe(204);
    expect((await call(app, 'GET', `/api/companies/${company}/labels`, { token: tokens.vic })).status).toBe(403);
    expect((await call(app, 'GET', '/api/v1/auth/me/', { token: tokens.vic })).status).toBe(200);
    expect((await call(app, 'DELETE', `${base}/${ids.vic}`, { token: tokens.olga })).status).toBe(404);
    expect((await call(app, 'PATCH', `${base}/${ids.vic}`, { token: tokens.olga, body: { role: 'owner' } })).status).toBe(404);
    expect((await call(app, 'DELETE', `${base}/not-a-uuid`, { token: tokens.olga })).status).toBe(404);
    expect(await roles()).toEqual(['carl:owner', 'nina:collector', 'olga:owner', 'rita:viewer']);
  });
});
