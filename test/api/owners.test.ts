import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { validateOwnerAssignment } from '../../core/customers/rules';
import { createApp } from '../../core/http/app';
import { type App, apiUsers, call, twoCompanies } from '../support/api';
import { type TestEngine, testEngine } from '../support/engine';
import { type Ledger, ledger } from '../support/ledger-fixtures';

const ID = '0192f0c4-5f3e-7c4a-9a51-1f2e3d4c5b6a';

describe('owner assignment rules (pure)', () => {
  it('takes picked customers or a rule with a condition, never both or neither', () => {
    expect(validateOwnerAssignment({ ar_owner: ID, customer_ids: [ID] })).toEqual({});
    expect(validateOwnerAssignment({ ar_owner: null, rule: { country: 'US' } })).toEqual({});
    expect(validateOwnerAssignment({ ar_owner: ID, rule: { min_open_balance: 0 } })).toEqual({});
    expect(Object.keys(validateOwnerAssignment({ ar_owner: ID }))).toEqual(['customer_ids']);
    expect(Object.keys(validateOwnerAssignment({ ar_owner: ID, customer_ids: [ID], rule: { country: 'US' } }))).toEqual(['rule']);
    expect(Object.keys(validateOwnerAssignment({ ar_owner: ID, customer_ids: [] }))).toEqual(['customer_ids']);
    expect(Object.keys(validateOwnerAssignment({ ar_owner: ID, rule: { country: '  ', unassigned_only: true } }))).toEqual(['rule']);
    expect(Object.keys(validateOwnerAssignment({ ar_owner: ID, rule: { min_open_balance: 10, max_open_balance: 5 } }))).toEqual(['rule.max_open_balance']);
  });
});

describe('the first account owns its work (setup)', () => {
  let engine: TestEngine;
  let app: App;
  beforeAll(async () => {
    engine = await testEngine('2026-11-23T12:00:00.000Z');
    app = createApp(engine);
  });
  afterAll(() => engine.dispose());

  it('joins its new company’s team; Mine says nothing is assigned until customers are given to it, then totals only its customers', async () => {
    const setup = await call(app, 'POST', '/api/v1/setup/account/', { body: { username: 'maria', password: 'maria-pw', display_name: 'Maria Lopez', company_name: 'Lopez Supply' } });
    expect(setup.status).toBe(201);
    const token = setup.body.token as string;
    const base = `/api/companies/${setup.body.companies[0].id}`;
    const team = await call(app, 'GET', `${base}/team-members`, { token });
    expect(team.body.data).toEqual([expect.objectContaining({ name: 'Maria Lopez', role: 'manager', is_active: true, user_id: expect.any(String) })]);
    const me = team.body.data[0].id as string;

    const customer = async (name: string, country: string, total: number) => {
      const c = await call(app, 'POST', `${base}/customers`, { token, body: { name, locations: [{ name: 'HQ', country }] } });
      expect(c.status).toBe(201);
      const inv = await call(app, 'POST', `${base}/invoices`, { token, body: { customer: c.body.id, number: `INV-${name}`, total_amount: total, invoice_date: '2026-09-01', due_date: '2026-10-01' } });
      expect(inv.status).toBe(201);
      return c.body.id as string;
    };
    await customer('Alpha', 'US', 100);
    await customer('Bravo', 'us ', 250.5);
    await customer('Charlie', 'DE', 4000);

    const mine = await call(app, 'GET', `${base}/invoices/summary?ar_owner=me`, { token });
    expect(mine.body).toMatchObject({ customer_count: 0, total_open_balance: 0, open_invoice_count: 0 });
    const everyone = await call(app, 'GET', `${base}/invoices/summary`, { token });
    expect(everyone.body).toMatchObject({ customer_count: 3, total_open_balance: 4350.5, overdue_balance: 4350.5 });

    const assigned = await call(app, 'POST', `${base}/customers/assign-ar-owner`, { token, body: { ar_owner: me, rule: { country: 'US' } } });
    expect(assigned.status).toBe(200);
    expect(assigned.body).toEqual({ matched: 2, updated: 2 });
    const after = await call(app, 'GET', `${base}/invoices/summary?ar_owner=me`, { token });
    expect(after.body).toMatchObject({ customer_count: 2, total_open_balance: 350.5, overdue_balance: 350.5, open_invoice_count: 2, customers_with_overdue: 2 });
    expect(after.body.aging['1_30']).toEqual({ invoice_count: 0, balance: 0 });
    expect(after.body.aging['31_60']).toEqual({ invoice_count: 2, balance: 350.5 });
    const list = await call(app, 'GET', `${base}/invoices?ar_owner=me`, { token });
    expect(list.body.items.map((i: { customer_name: string }) => i.customer_name).sort()).toEqual(['Alpha', 'Bravo']);
  });
});

describe('assigning AR owners (extension)', () => {
  let engine: TestEngine;
  let app: App;
  let token: string;
  let viewerToken: string;
  let otherToken: string;
  let company: string;
  let other: string;
  let base: string;
  let l: Ledger;

  beforeAll(async () => {
    const users = await apiUsers();
    ({ engine, app } = users);
    ({ demo: token, watcher: viewerToken, rival: otherToken } = users.tokens);
  });
  afterAll(() => engine.dispose());
  beforeEach(async () => {
    ({ company, other, base } = await twoCompanies(engine));
    l = ledger(engine, company);
  });

  const assign = (body: unknown, as = token) => call(app, 'POST', `${base}/customers/assign-ar-owner`, { token: as, body });
  const owners = async () =>
    Object.fromEntries((await engine.db.selectFrom('customers').select(['name', 'ar_owner_id']).where('company_id', '=', company).execute()).map((r) => [r.name, r.ar_owner_id]));

  async function book() {
    const ada = await l.teamMember('Ada AR');
    const ben = await l.teamMember('Ben AR');
    const small = await l.customer({ name: 'Small', locations: [{ name: 'HQ', country: 'Canada' }] });
    const big = await l.customer({ name: 'Big', locations: [{ name: 'HQ', country: 'canada' }] });
    const far = await l.customer({ name: 'Far', ar_owner: ben, locations: [{ name: 'HQ', country: 'Japan' }] });
    const none = await l.customer({ name: 'Nowhere' });
    await l.invoice({ customer: small, number: 'S-1', total: 90, dueDate: '2026-10-01' });
    await l.invoice({ customer: big, number: 'B-1', total: 15000, dueDate: '2026-10-01' });
    await l.invoice({ customer: big, number: 'B-2', total: 5000, dueDate: '2026-10-01', closingReason: 'written_off' });
    await l.invoice({ customer: far, number: 'F-1', total: 2000, dueDate: '2026-12-01' });
    return { ada, ben, small, big, far, none };
  }

  it('assigns picked customers in one change each, and removes an owner with null', async () => {
    const { ada, small, far } = await book();
    const res = await assign({ ar_owner: ada, customer_ids: [small, far.toUpperCase(), small] });
    expect(res.body).toEqual({ matched: 2, updated: 2 });
    expect(await owners()).toMatchObject({ Small: ada, Far: ada, Big: null, Nowhere: null });
    const changes = await engine.db.selectFrom('changes').select(['entity', 'entity_id', 'data']).where('command', '=', 'assign_ar_owner').where('company_id', '=', company).execute();
    expect(changes.map((c) => c.entity_id).sort()).toEqual([small, far].sort());
    expect(JSON.parse(changes[0].data)).toEqual({ ar_owner_id: ada });
    expect((await assign({ ar_owner: ada, customer_ids: [small] })).body).toEqual({ matched: 1, updated: 0 });
    expect((await assign({ ar_owner: null, customer_ids: [small] })).body).toEqual({ matched: 1, updated: 1 });
    expect((await owners()).Small).toBeNull();
  });

  it('assigns by rule: a country (case and spaces ignored), an open balance range that ignores closed invoices, only the unassigned', async () => {
    const { ada, ben } = await book();
    const preview = await assign({ ar_owner: ada, rule: { country: ' CANADA ' }, dry_run: true });
    expect(preview.body).toEqual({ matched: 2, updated: 2 });
    expect(await owners()).toMatchObject({ Small: null, Big: null });
    expect((await assign({ ar_owner: ada, rule: { country: 'Canada', min_open_balance: 1000 } })).body).toEqual({ matched: 1, updated: 1 });
    expect(await owners()).toMatchObject({ Small: null, Big: ada });
    // Big owes 15,000 open (its written-off 5,000 does not count), so at most 15,000 still matches it.
    expect((await assign({ ar_owner: ben, rule: { min_open_balance: 0, max_open_balance: 15000, unassigned_only: true } })).body).toEqual({ matched: 2, updated: 2 });
    expect(await owners()).toEqual({ Small: ben, Big: ada, Far: ben, Nowhere: ben });
  });

  it('refuses bad requests with a 400 in words and changes nothing', async () => {
    const { ada, small } = await book();
    const before = await owners();
    const cases: Array<[unknown, string]> = [
      [{ ar_owner: ada }, 'customer_ids'],
      [{ ar_owner: ada, customer_ids: [small], rule: { country: 'Canada' } }, 'rule'],
      [{ ar_owner: ada, rule: { unassigned_only: true } }, 'rule'],
      [{ ar_owner: ada, customer_ids: [small, ID] }, 'customer_ids'],
      [{ ar_owner: ID, customer_ids: [small] }, 'ar_owner'],
      [{ ar_owner: ada, rule: { min_open_balance: 10, max_open_balance: 1 } }, 'rule.max_open_balance'],
    ];
    for (const [body, field] of cases) {
      const res = await assign(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(JSON.stringify(res.body), JSON.stringify(body)).toContain(field);
    }
    expect((await assign({ ar_owner: 'nope', customer_ids: [small] })).status).toBe(400);
    expect((await assign({ ar_owner: ada, customer_ids: [small], extra: 1 })).status).toBe(400);
    const rivalMember = await ledger(engine, other).teamMember('Rival AR');
    const foreign = await assign({ ar_owner: rivalMember, customer_ids: [small] });
    expect(foreign.status).toBe(400);
    expect(foreign.body.errors.ar_owner).toEqual(['No such team member in this company']);
    expect((await assign({ ar_owner: ada, customer_ids: [small] }, viewerToken)).status).toBe(403);
    expect((await assign({ ar_owner: ada, customer_ids: [small] }, otherToken)).status).toBe(403);
    expect(await owners()).toEqual(before);
  });

  it('scopes the summary to an AR owner: its customers only, and nothing for a caller outside the team', async () => {
    const { ada, ben } = await book();
    const of = async (owner: string) => (await call(app, 'GET', `${base}/invoices/summary?ar_owner=${owner}`, { token })).body;
    expect(await of(ben)).toMatchObject({ customer_count: 1, total_open_balance: 2000, overdue_balance: 0, current_balance: 2000, customers_with_open_balance: 1, customers_with_overdue: 0 });
    expect(await of(ada)).toMatchObject({ customer_count: 0, total_open_balance: 0, invoice_count: 0 });
    expect(await of('me')).toMatchObject({ customer_count: 0, total_open_balance: 0 });
    const all = await call(app, 'GET', `${base}/invoices/summary`, { token });
    expect(all.body).toMatchObject({ customer_count: 4, total_open_balance: 17090, invoice_count: 4, closed_invoice_count: 1 });
    expect((await call(app, 'GET', `${base}/invoices/summary?ar_owner=someone`, { token })).status).toBe(400);
  });
});
