/**
 * Issue 40, item 1: a company made from nothing over the API. The first account of an empty
 * workspace creates a second company with its details; a collector is invited with a one-time setup
 * code (stored hashed, used once), a manager sees the team's users; every collecting user is on the
 * team, so assigning AR owners by rule reaches them and their My work fills.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../core/http/app';
import { addUser, type App, call } from '../support/api';
import { type TestEngine, testEngine } from '../support/engine';
import { addCustomer, addInvoice } from '../support/invoice-fixtures';

describe('a company from nothing: create it, invite the team, assign owners by rule', () => {
  let engine: TestEngine;
  let app: App;
  let owner: string;
  let company: string;
  const setup: { code?: string; collectorId?: string } = {};

  beforeAll(async () => {
    engine = await testEngine('2026-11-23T12:00:00.000Z');
    app = createApp(engine);
    const account = { username: 'robin', password: 's3cret-pw', display_name: 'Robin Vale', company_name: 'Harbor Tools Ltd' };
    // The first company is checked as any new one: a bad currency makes no account.
    const refused = await call(app, 'POST', '/api/v1/setup/account/', { body: { ...account, currency: 'EUX' } });
    expect(refused.status).toBe(400);
    expect(Object.keys(refused.body.errors)).toEqual(['currency']);
    expect(await engine.db.selectFrom('users').select('id').execute()).toEqual([]);
    const first = await call(app, 'POST', '/api/v1/setup/account/', { body: { ...account, currency: 'usd', time_zone: 'America/Chicago', country: 'us' } });
    expect(first.status).toBe(201);
    owner = first.body.token;
    expect(await engine.db.selectFrom('companies').select(['name', 'currency', 'time_zone', 'country']).execute()).toEqual([
      { name: 'Harbor Tools Ltd', currency: 'USD', time_zone: 'America/Chicago', country: 'US' },
    ]);
  });
  afterAll(() => engine.dispose());

  const companies = async () => (await engine.db.selectFrom('companies').select('name').orderBy('name').execute()).map((c) => c.name);

  it('creates a company with its currency, time zone, country and document details; its maker is owner and on its team', async () => {
    const res = await call(app, 'POST', '/api/v1/companies/', {
      token: owner,
      body: { name: ' Nordlicht Werkzeuge GmbH ', currency: 'eur', time_zone: 'europe/berlin', country: 'de', legal_name: 'Nordlicht Werkzeuge GmbH', address: 'Hafenstr. 4, 20457 Hamburg', tax_id: 'DE123456789', locale: 'de-DE' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'Nordlicht Werkzeuge GmbH', currency: 'EUR', time_zone: 'Europe/Berlin', country: 'DE', role: 'owner' });
    company = res.body.id;
    const me = await call(app, 'GET', '/api/v1/auth/me/', { token: owner });
    expect(me.body.companies.map((c: { name: string; role: string }) => `${c.name}:${c.role}`)).toEqual(['Harbor Tools Ltd:owner', 'Nordlicht Werkzeuge GmbH:owner']);
    const details = await call(app, 'GET', `/api/companies/${company}/document-details`, { token: owner });
    expect(details.body).toMatchObject({ legal_name: 'Nordlicht Werkzeuge GmbH', address: 'Hafenstr. 4, 20457 Hamburg', tax_id: 'DE123456789', locale: 'de-DE' });
    const team = await call(app, 'GET', `/api/companies/${company}/team-members`, { token: owner });
    expect(team.body.data.map((m: { name: string; role: string; username: string; access: string }) => [m.name, m.role, m.username, m.access])).toEqual([['Robin Vale', 'manager', 'robin', 'owner']]);
  });

  it('refuses a bad currency, time zone, country or document detail field by field, and creates nothing', async () => {
    const before = await companies();
    const res = await call(app, 'POST', '/api/v1/companies/', { token: owner, body: { name: 'Typo Co', currency: 'EUX', time_zone: 'Mars/Olympus', country: 'XX', address: 'x'.repeat(501) } });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(Object.keys(res.body.errors ?? {}).sort()).toEqual(expect.arrayContaining(['address']));
    const fields = await call(app, 'POST', '/api/v1/companies/', { token: owner, body: { name: 'Typo Co', currency: 'EUX', time_zone: 'Mars/Olympus', country: 'XX' } });
    expect(fields.status).toBe(400);
    expect(Object.keys(fields.body.errors).sort()).toEqual(['country', 'currency', 'time_zone']);
    expect((await call(app, 'POST', '/api/v1/companies/', { body: { name: 'Anonymous' } })).status).toBe(401);
    expect(await companies()).toEqual(before);
  });

  it('invites a collector with a setup code shown once and stored only hashed; the code signs them in once and sets their password', async () => {
    const res = await call(app, 'POST', `/api/companies/${company}/members`, { token: owner, body: { username: 'carla', name: 'Carla Diaz', email: 'carla@nordlicht.example', role: 'collector', invite: true } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ username: 'carla', display_name: 'Carla Diaz', role: 'collector' });
    expect(res.body.setup_code).toMatch(/^[A-Z2-9]{4}-[A-Z2-9]{4}-[A-Z2-9]{4}$/);
    setup.code = res.body.setup_code;
    setup.collectorId = res.body.user_id;
    // Stored as its hash only; the member list never shows it again.
    const row = await engine.db.selectFrom('users').selectAll().where('username', '=', 'carla').executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(setup.code!.replace(/-/g, ''));
    expect(JSON.stringify(row)).not.toContain(setup.code!);
    expect(row.setup_code_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify((await call(app, 'GET', `/api/companies/${company}/members`, { token: owner })).body)).not.toContain('setup_code');
    // On the team as an AR collector, linked to the user.
    const team = (await call(app, 'GET', `/api/companies/${company}/team-members`, { token: owner })).body.data;
    expect(team.find((m: { username: string }) => m.username === 'carla')).toMatchObject({ name: 'Carla Diaz', role: 'ar', access: 'collector', is_active: true, user_id: setup.collectorId });

    const redeem = (code: string, password = 'carla-pw-1') => call(app, 'POST', '/api/v1/setup/code/', { body: { username: 'carla', setup_code: code, password } });
    const wrong = await redeem('AAAA-BBBB-CCCC');
    expect(wrong.status).toBe(401);
    expect(wrong.body.detail).toMatch(/setup code is not right or has expired/);
    const short = await redeem(setup.code!, 'x');
    expect(short.status).toBe(400);
    // Typed in lower case without dashes: the same code.
    const ok = await redeem(setup.code!.toLowerCase().replace(/-/g, ' '));
    expect(ok.status).toBe(200);
    expect(ok.body.companies).toEqual([{ id: company, name: 'Nordlicht Werkzeuge GmbH', role: 'collector' }]);
    expect((await redeem(setup.code!, 'other-pw-2')).status).toBe(401);
    expect((await call(app, 'POST', '/api/v1/auth/login/', { body: { username: 'carla', password: 'carla-pw-1' } })).status).toBe(200);
    expect((await engine.db.selectFrom('users').select(['setup_code_hash', 'setup_code_expires_at']).where('username', '=', 'carla').executeTakeFirstOrThrow())).toEqual({ setup_code_hash: null, setup_code_expires_at: null });
  });

  it('links an existing user, and a name-only team member with their email, instead of making a second one', async () => {
    const named = await call(app, 'POST', `/api/companies/${company}/team-members`, { token: owner, body: { name: 'Mats Berg', email: 'MATS@nordlicht.example', role: 'ar' } });
    expect(named.status).toBe(201);
    // mats is a user already, of the other company.
    const harbor = (await call(app, 'GET', '/api/v1/auth/me/', { token: owner })).body.companies.find((c: { name: string }) => c.name === 'Harbor Tools Ltd').id;
    expect((await call(app, 'POST', `/api/companies/${harbor}/members`, { token: owner, body: { username: 'mats', password: 'mats-pw-1', email: 'mats@nordlicht.example', role: 'collector' } })).status).toBe(201);
    const link = await call(app, 'POST', `/api/companies/${company}/members`, { token: owner, body: { username: 'mats', email: 'mats@nordlicht.example', role: 'manager' } });
    expect(link.status).toBe(201);
    expect(link.body.setup_code).toBeUndefined();
    const team = (await call(app, 'GET', `/api/companies/${company}/team-members`, { token: owner })).body.data;
    expect(team.filter((m: { name: string }) => m.name === 'Mats Berg')).toEqual([expect.objectContaining({ id: named.body.id, username: 'mats', access: 'manager', user_id: link.body.user_id })]);
    // Both invite and a password: refused, nothing made.
    const both = await call(app, 'POST', `/api/companies/${company}/members`, { token: owner, body: { username: 'nina', password: 'nina-pw-1', invite: true, role: 'viewer' } });
    expect(both.status).toBe(400);
    expect(await engine.db.selectFrom('users').select('id').where('username', '=', 'nina').executeTakeFirst()).toBeUndefined();
  });

  it('lets a manager see the users but not change them; a collector sees neither', async () => {
    const mats = (await call(app, 'POST', '/api/v1/auth/login/', { body: { username: 'mats', password: 'mats-pw-1' } })).body.token;
    const carla = (await call(app, 'POST', '/api/v1/auth/login/', { body: { username: 'carla', password: 'carla-pw-1' } })).body.token;
    const list = await call(app, 'GET', `/api/companies/${company}/members`, { token: mats });
    expect(list.status).toBe(200);
    expect(list.body.members.map((m: { username: string; role: string }) => `${m.username}:${m.role}`)).toEqual(['carla:collector', 'mats:manager', 'robin:owner']);
    expect((await call(app, 'POST', `/api/companies/${company}/members`, { token: mats, body: { username: 'zed', role: 'viewer', invite: true } })).status).toBe(403);
    expect((await call(app, 'GET', `/api/companies/${company}/members`, { token: carla })).status).toBe(403);
  });

  it('puts a user added before users and team members were one on the team, once; a viewer is refused', async () => {
    const legacy = await addUser(engine, 'olaf', [[company, 'collector']]);
    const viewer = await addUser(engine, 'vera', [[company, 'viewer']]);
    const stranger = await addUser(engine, 'stan', []);
    const team = async () => (await call(app, 'GET', `/api/companies/${company}/team-members`, { token: owner })).body.data as Array<{ id: string; username: string | null }>;
    expect((await team()).some((m) => m.username === 'olaf')).toBe(false);
    const put = (userId: string) => call(app, 'POST', `/api/companies/${company}/team-members/from-user`, { token: owner, body: { user_id: userId } });
    const first = await put(legacy);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ name: 'olaf', role: 'ar', user_id: legacy, is_active: true });
    expect((await put(legacy)).body.id).toBe(first.body.id);
    expect((await team()).filter((m) => m.username === 'olaf')).toHaveLength(1);
    const refused = await put(viewer);
    expect([refused.status, refused.body.code]).toEqual([409, 'viewer_not_on_team']);
    expect((await put(stranger)).status).toBe(404);
    expect((await team()).some((m) => m.username === 'vera' || m.username === 'stan')).toBe(false);
  });

  it("assigns AR owners by rule to the invited collector, whose My work then lists their customers' invoices", async () => {
    const carlaMember = (await call(app, 'GET', `/api/companies/${company}/team-members`, { token: owner })).body.data.find((m: { username: string }) => m.username === 'carla');
    const big = await addCustomer(engine, company, { name: 'Elbe Logistik' });
    const small = await addCustomer(engine, company, { name: 'Kiosk am Markt' });
    await addInvoice(engine, company, big, { number: 'NW-1001', dueDate: '2026-10-30', total: 4_200 });
    await addInvoice(engine, company, small, { number: 'NW-1002', dueDate: '2026-11-01', total: 80 });
    const assign = await call(app, 'POST', `/api/companies/${company}/customers/assign-ar-owner`, { token: owner, body: { ar_owner: carlaMember.id, rule: { min_open_balance: 1_000 } } });
    expect(assign.status).toBe(200);
    expect(assign.body).toMatchObject({ matched: 1, updated: 1 });
    const carla = (await call(app, 'POST', '/api/v1/auth/login/', { body: { username: 'carla', password: 'carla-pw-1' } })).body.token;
    const work = await call(app, 'GET', `/api/companies/${company}/invoices?attention=true&sort=attention&ar_owner=me`, { token: carla });
    expect(work.status).toBe(200);
    expect(work.body.items.map((i: { invoice_number: string }) => i.invoice_number)).toEqual(['NW-1001']);
  });
});
