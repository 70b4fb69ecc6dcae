import { beforeEach, describe, expect, it } from 'vitest';
import { isEmail, normalizeCurrency, validateContacts, validateCustomerFields, validateLocations } from '../../core/customers/rules';
import { call, useApiWorkspace } from '../support/api';
import { type Ledger, ledger } from '../support/ledger-fixtures';

describe('customer rules (pure)', () => {
  it('recognises plausible email addresses only', () => {
    for (const ok of ['ap@acme.com', 'first.last+ar@sub.example.co.uk']) expect(isEmail(ok), ok).toBe(true);
    for (const bad of ['', 'acme.com', 'a@b', 'a b@c.com', 'a@b.c', 'a@b.com, c@d.com', '<a@b.com>']) expect(isEmail(bad), bad).toBe(false);
  });

  it('normalises three-letter currency codes', () => {
    expect(normalizeCurrency(' eur ')).toBe('EUR');
    expect(normalizeCurrency('EURO')).toBeNull();
    expect(normalizeCurrency('E1R')).toBeNull();
  });

  it('allows at most one billing contact, requires a name or an email, and checks kept ids', () => {
    const existing = new Set(['0192f0c4-5f3e-7c4a-9a51-1f2e3d4c5b6a']);
    expect(validateContacts([{ email: 'ap@acme.com', is_billing: true }, { name: 'Sam' }], existing)).toEqual({});
    expect(validateContacts([{ name: 'A', is_billing: true }, { name: 'B', is_billing: true }], existing).contacts).toBeDefined();
    expect(validateContacts([{ phone: '123' }], existing)['contacts.0.name']).toBeDefined();
    expect(validateContacts([{ name: 'A', email: 'nope' }], existing)['contacts.0.email']).toEqual(['Is not a valid email address']);
    expect(validateContacts([{ id: '0192f0c4-5f3e-7c4a-9a51-1f2e3d4c5b6b', name: 'A' }], existing)['contacts.0.id']).toBeDefined();
    const twice = validateContacts([{ id: [...existing][0], name: 'A' }, { id: [...existing][0], name: 'B' }], existing);
    expect(twice['contacts.1.id']).toEqual(['Appears twice']);
  });

  it('requires a location name and bounds its fields', () => {
    expect(validateLocations([{ name: 'HQ', postal_code: '12345' }], new Set())).toEqual({});
    expect(Object.keys(validateLocations([{ name: ' ', postal_code: 'x'.repeat(21) }], new Set())).sort()).toEqual(['locations.0.name', 'locations.0.postal_code']);
  });

  it('checks the customer fields, the name only when creating or given', () => {
    expect(validateCustomerFields({}, true).name).toEqual(['Is required']);
    expect(validateCustomerFields({}, false)).toEqual({});
    expect(Object.keys(validateCustomerFields({ payment_terms_days: 400, currency: 'dollars', ar_owner: 'x' }, false)).sort()).toEqual(['ar_owner', 'currency', 'payment_terms_days']);
  });
});

describe('customers API (extension)', () => {
  const w = useApiWorkspace();
  let l: Ledger;

  beforeEach(async () => {
    l = ledger(w.engine, w.company);
  });

  const get = (path: string) => call(w.app, 'GET', path, { token: w.tokens.demo });
  const post = (path: string, body: unknown) => call(w.app, 'POST', path, { token: w.tokens.demo, body });
  const patch = (path: string, body: unknown) => call(w.app, 'PATCH', path, { token: w.tokens.demo, body });

  it('creates a customer with owners, contacts and locations, and reads it back', async () => {
    const ar = await l.teamMember('Ada AR', 'ar');
    const sales = await l.teamMember('Sol Sales', 'sales');
    const res = await post(`${w.base}/customers`, {
      name: '  Cobalt Industries ',
      is_person: false,
      ar_owner: ar,
      sales_owner: sales,
      remote_id: 'QB-17',
      payment_terms_days: 45,
      currency: 'eur',
      notes: 'Pays on Fridays',
      contacts: [
        { name: 'Pat Payables', email: 'ap@cobalt.example', phone: '+1 555 0100', title: 'AP lead', is_billing: true },
        { email: 'cfo@cobalt.example' },
      ],
      locations: [{ name: 'HQ', address_line1: '1 Main St', city: 'Springfield', region: 'IL', postal_code: '62701', country: 'US' }],
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'Cobalt Industries',
      is_person: false,
      ar_owner: { id: ar, name: 'Ada AR' },
      sales_owner: { id: sales, name: 'Sol Sales' },
      remote_id: 'QB-17',
      payment_terms_days: 45,
      currency: 'EUR',
      notes: 'Pays on Fridays',
      balance: { open_invoice_count: 0, open_balance: 0, overdue_invoice_count: 0, overdue_balance: 0 },
    });
    expect(res.body.contacts.map((c: { name: string; is_billing: boolean }) => [c.name, c.is_billing])).toEqual([
      ['Pat Payables', true],
      ['cfo@cobalt.example', false],
    ]);
    expect(res.body.locations).toEqual([
      { id: expect.any(String), name: 'HQ', address_line1: '1 Main St', city: 'Springfield', region: 'IL', postal_code: '62701', country: 'US' },
    ]);
    expect((await get(`${w.base}/customers/${res.body.id}`)).body).toEqual(res.body);
    const changes = await w.engine.db.selectFrom('changes').select(['entity', 'op']).where('command', '=', 'create_customer').where('company_id', '=', w.company).execute();
    expect(changes).toEqual([
      { entity: 'customer', op: 'insert' },
      { entity: 'customer_contact', op: 'insert' },
      { entity: 'customer_contact', op: 'insert' },
      { entity: 'customer_location', op: 'insert' },
    ]);
  });

  it("defaults to a company account in the company's currency with 30-day terms and no owners", async () => {
    const res = await post(`${w.base}/customers`, { name: 'Plain Co' });
    expect(res.body).toMatchObject({ is_person: false, currency: 'USD', payment_terms_days: 30, ar_owner: null, sales_owner: null, remote_id: null, contacts: [], locations: [] });
  });

  it('sums open and overdue invoices into the detail balance', async () => {
    const customer = await l.customer({ name: 'Cobalt' });
    await l.invoice({ customer, number: 'I-1', total: 100, dueDate: '2026-11-01' });
    const partly = await l.invoice({ customer, number: 'I-2', total: 50, dueDate: '2026-11-22' });
    await l.payment({ invoice: partly, amount: 20 });
    await l.invoice({ customer, number: 'I-3', total: 70, dueDate: '2026-11-23' });
    const paid = await l.invoice({ customer, number: 'I-4', total: 10, dueDate: '2026-10-01' });
    await l.payment({ invoice: paid, amount: 10 });
    await l.invoice({ customer, number: 'I-5', total: 999, dueDate: '2026-10-01', closingReason: 'written_off' });
    const res = await get(`${w.base}/customers/${customer}`);
    expect(res.body.balance).toEqual({ open_invoice_count: 3, open_balance: 200, overdue_invoice_count: 2, overdue_balance: 130 });
  });

  it('lists customers by name with search, is_person, owner filters and limit/offset paging', async () => {
    const ar = await l.teamMember('Ada', 'ar');
    await l.customer({ name: 'zeta Widgets', ar_owner: ar });
    await l.customer({ name: 'Alpha Tools' });
    await l.customer({ name: 'Beta WIDGETS', is_person: true, ar_owner: ar });
    await l.customer({ name: 'Gamma 100% Co' });
    await l.customer({ name: 'Delta_Co' });
    const names = async (query: string) => {
      const res = await get(`${w.base}/customers?${query}`);
      expect(res.status, query).toBe(200);
      return { count: res.body.count, names: res.body.data.map((c: { name: string }) => c.name) };
    };
    expect(await names('')).toEqual({ count: 5, names: ['Alpha Tools', 'Beta WIDGETS', 'Delta_Co', 'Gamma 100% Co', 'zeta Widgets'] });
    expect(await names('search=widget')).toEqual({ count: 2, names: ['Beta WIDGETS', 'zeta Widgets'] });
    expect(await names('search=ta')).toEqual({ count: 3, names: ['Beta WIDGETS', 'Delta_Co', 'zeta Widgets'] });
    expect(await names('search=%25')).toEqual({ count: 1, names: ['Gamma 100% Co'] });
    expect(await names('search=_')).toEqual({ count: 1, names: ['Delta_Co'] });
    expect(await names('search=%22quoted')).toEqual({ count: 0, names: [] });
    expect(await names('is_person=true')).toEqual({ count: 1, names: ['Beta WIDGETS'] });
    expect(await names('is_person=false&search=widgets')).toEqual({ count: 1, names: ['zeta Widgets'] });
    expect(await names(`ar_owner=${ar}`)).toEqual({ count: 2, names: ['Beta WIDGETS', 'zeta Widgets'] });
    expect(await names('limit=2&offset=2')).toEqual({ count: 5, names: ['Delta_Co', 'Gamma 100% Co'] });
  });

  it('sorts and pages by balance, oldest open due date and AR owner, with each row\'s balances, last touch and risk', async () => {
    const ada = await l.teamMember('Ada', 'ar');
    const bo = await l.teamMember('Bo', 'ar');
    const small = await l.customer({ name: 'Small Co', ar_owner: bo });
    const big = await l.customer({ name: 'Big Co', ar_owner: ada });
    const none = await l.customer({ name: 'No Invoices Co' });
    await l.invoice({ customer: small, number: 'S-1', total: 10, dueDate: '2026-11-30' });
    // A written-off invoice keeps its balance but owes nothing: it must not lift Small Co above Big Co.
    await l.invoice({ customer: small, number: 'S-2', total: 999, dueDate: '2026-08-01', closingReason: 'written_off' });
    await l.invoice({ customer: big, number: 'B-1', total: 500, dueDate: '2026-09-01' });
    const part = await l.invoice({ customer: big, number: 'B-2', total: 100, dueDate: '2026-12-10' });
    await l.payment({ invoice: part, amount: 40 });
    await call(w.app, 'POST', '/api/companies/' + w.company + '/intelligence/insights', {
      token: w.tokens.demo,
      body: { target_type: 'customer', target_id: big, insight_type: 'customer_signal', payload_json: { entity: { id: big }, signal: { type: 'quiet', severity: 'high' } } },
    });
    const list = async (query: string) => {
      const res = await get(`${w.base}/customers?${query}`);
      expect(res.status, query).toBe(200);
      return res.body as { count: number; data: Array<Record<string, unknown>> };
    };
    const names = async (query: string) => (await list(query)).data.map((c) => c.name);
    expect(await names('sort=balance&order=desc')).toEqual(['Big Co', 'Small Co', 'No Invoices Co']);
    expect(await names('sort=balance')).toEqual(['No Invoices Co', 'Small Co', 'Big Co']);
    // Overdue counts open invoices past due only: Small Co's written-off 999 does not put it first.
    expect(await names('sort=overdue&order=desc')).toEqual(['Big Co', 'No Invoices Co', 'Small Co']);
    expect(await names('sort=overdue')).toEqual(['No Invoices Co', 'Small Co', 'Big Co']);
    // Without an open invoice there is no oldest due date: last in either direction.
    expect(await names('sort=oldest_due')).toEqual(['Big Co', 'Small Co', 'No Invoices Co']);
    expect(await names('sort=oldest_due&order=desc')).toEqual(['Small Co', 'Big Co', 'No Invoices Co']);
    expect(await names('sort=ar_owner&order=desc')).toEqual(['Small Co', 'Big Co', 'No Invoices Co']);
    const page = await list('sort=balance&order=desc&limit=1&offset=1');
    expect(page.count).toBe(3);
    expect(page.data.map((c) => c.name)).toEqual(['Small Co']);
    const bigRow = (await list('search=Big')).data[0];
    expect(bigRow).toMatchObject({ open_balance: 560, overdue_balance: 500, oldest_open_due_date: '2026-09-01', risk: 'high', ar_owner: { id: ada, name: 'Ada' } });
    expect((await list('search=Small')).data[0]).toMatchObject({ open_balance: 10, overdue_balance: 0, oldest_open_due_date: '2026-11-30' });
    const noneRow = (await list('search=No Invoices')).data[0];
    expect(noneRow).toMatchObject({ id: none, open_balance: 0, overdue_balance: 0, oldest_open_due_date: null, last_touch_at: null, risk: null });
    for (const query of ['sort=due', 'order=up']) expect((await get(`${w.base}/customers?${query}`)).status, query).toBe(400);
  });

  it('answers 400 for bad list parameters', async () => {
    // A NUL inside search text cannot be put in a full-text phrase: it is refused, never a 500.
    for (const query of ['is_person=maybe', 'ar_owner=bob', 'limit=0', 'offset=x', 'search=a%00b', 'search=wid%00get']) {
      const res = await get(`${w.base}/customers?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.code).toBe('validation_error');
    }
  });

  it('updates only the fields given; renaming carries to the invoices', async () => {
    const ar = await l.teamMember('Ada', 'ar');
    const created = (await post(`${w.base}/customers`, { name: 'Cobalt', ar_owner: ar, notes: 'n' })).body;
    const invoice = await l.invoice({ customer: created.id, number: 'I-1', total: 10 });
    w.engine.clock.set('2026-11-24T10:00:00.000Z');
    const res = await patch(`${w.base}/customers/${created.id}`, { name: 'Cobalt Group', ar_owner: null, payment_terms_days: 60 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'Cobalt Group', ar_owner: null, payment_terms_days: 60, notes: 'n', updated_at: '2026-11-24T10:00:00.000Z' });
    const row = await w.engine.db.selectFrom('invoices').select('customer_name').where('id', '=', invoice).executeTakeFirstOrThrow();
    expect(row.customer_name).toBe('Cobalt Group');
    w.engine.clock.set('2026-11-23T12:00:00.000Z');
  });

  it('replaces contacts and locations as whole sets, keeping the ids that are passed back', async () => {
    const created = (
      await post(`${w.base}/customers`, {
        name: 'Cobalt',
        contacts: [
          { name: 'Old Billing', email: 'old@cobalt.example', is_billing: true },
          { name: 'Leaver', email: 'gone@cobalt.example' },
        ],
        locations: [{ name: 'HQ' }, { name: 'Depot' }],
      })
    ).body;
    const [oldBilling, leaver] = created.contacts;
    const hq = created.locations.find((x: { name: string }) => x.name === 'HQ');
    const invoice = await l.invoice({ customer: created.id, number: 'I-1', total: 10 });
    await w.engine.db.updateTable('invoices').set({ customer_location_id: hq.id }).where('id', '=', invoice).execute();

    const res = await patch(`${w.base}/customers/${created.id}`, {
      contacts: [
        { id: oldBilling.id, name: 'Old Billing', email: 'old@cobalt.example', is_billing: false },
        { name: 'New Billing', email: 'new@cobalt.example', is_billing: true },
      ],
      locations: [{ id: hq.id, name: 'Head office', city: 'Springfield' }],
    });
    expect(res.status).toBe(200);
    expect(res.body.contacts.map((c: { id: string; name: string; is_billing: boolean }) => [c.name, c.is_billing])).toEqual([
      ['New Billing', true],
      ['Old Billing', false],
    ]);
    expect(res.body.contacts.find((c: { name: string }) => c.name === 'Old Billing').id).toBe(oldBilling.id);
    expect(res.body.contacts.some((c: { id: string }) => c.id === leaver.id)).toBe(false);
    expect(res.body.locations).toEqual([{ id: hq.id, name: 'Head office', address_line1: null, city: 'Springfield', region: null, postal_code: null, country: null }]);
    const row = await w.engine.db.selectFrom('invoices').select('customer_location_id').where('id', '=', invoice).executeTakeFirstOrThrow();
    expect(row.customer_location_id).toBe(hq.id);

    const cleared = await patch(`${w.base}/customers/${created.id}`, { contacts: [], locations: [] });
    expect(cleared.body).toMatchObject({ contacts: [], locations: [] });
    expect((await w.engine.db.selectFrom('invoices').select('customer_location_id').where('id', '=', invoice).executeTakeFirstOrThrow()).customer_location_id).toBeNull();
  });

  it('answers 409 for a remote_id another customer of the company has, not for another company', async () => {
    await post(`${w.base}/customers`, { name: 'First', remote_id: 'R-1' });
    const dup = await post(`${w.base}/customers`, { name: 'Second', remote_id: 'R-1' });
    expect(dup.status).toBe(409);
    expect(dup.body.code).toBe('duplicate_remote_id');
    const second = (await post(`${w.base}/customers`, { name: 'Second', remote_id: 'R-2' })).body;
    expect((await patch(`${w.base}/customers/${second.id}`, { remote_id: 'R-1' })).status).toBe(409);
    expect((await patch(`${w.base}/customers/${second.id}`, { remote_id: 'R-2' })).status).toBe(200);
    expect((await call(w.app, 'POST', `/api/companies/${w.other}/customers`, { token: w.tokens.rival, body: { name: 'Elsewhere', remote_id: 'R-1' } })).status).toBe(201);
  });

  it('answers 400 with field errors for bad bodies, and writes nothing', async () => {
    const foreignOwner = await ledger(w.engine, w.other).teamMember('Foreign', 'ar');
    const cases: Array<[unknown, string]> = [
      [{}, 'name'],
      [{ name: '' }, 'name'],
      [{ name: 'x'.repeat(201) }, 'name'],
      [{ name: 'A', is_person: 'yes' }, 'is_person'],
      [{ name: 'A', payment_terms_days: -1 }, 'payment_terms_days'],
      [{ name: 'A', payment_terms_days: 1.5 }, 'payment_terms_days'],
      [{ name: 'A', currency: 'US1' }, 'currency'],
      [{ name: 'A', ar_owner: 'nobody' }, 'ar_owner'],
      [{ name: 'A', ar_owner: foreignOwner }, 'ar_owner'],
      [{ name: 'A', sales_owner: '0192f0c4-5f3e-7c4a-9a51-1f2e3d4c5b6a' }, 'sales_owner'],
      [{ name: 'A', contacts: [{ name: 'B', email: 'not-an-email' }] }, 'contacts.0.email'],
      [{ name: 'A', contacts: [{ name: 'B', is_billing: true }, { name: 'C', is_billing: true }] }, 'contacts'],
      [{ name: 'A', contacts: [{ id: '0192f0c4-5f3e-7c4a-9a51-1f2e3d4c5b6a', name: 'B' }] }, 'contacts.0.id'],
      [{ name: 'A', contacts: [{ name: 'B', fax: '1' }] }, 'contacts.0'],
      [{ name: 'A', locations: [{ city: 'X' }] }, 'locations.0.name'],
      [{ name: 'A', colour: 'red' }, 'non_field_errors'],
    ];
    for (const [body, field] of cases) {
      const res = await post(`${w.base}/customers`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(Object.keys(res.body.errors), JSON.stringify(body)).toContain(field);
    }
    expect((await get(`${w.base}/customers`)).body.count).toBe(0);
  });

  it("answers 404 for unknown, malformed or another company's customers", async () => {
    const foreign = await ledger(w.engine, w.other).customer({ name: 'Elsewhere' });
    for (const id of ['0192f0c4-5f3e-7c4a-9a51-1f2e3d4c5b6a', 'nope', foreign]) {
      expect((await get(`${w.base}/customers/${id}`)).status).toBe(404);
      expect((await patch(`${w.base}/customers/${id}`, { name: 'Taken over' })).status).toBe(404);
    }
    expect((await call(w.app, 'GET', `/api/companies/${w.other}/customers/${foreign}`, { token: w.tokens.rival })).body.name).toBe('Elsewhere');
  });

  it('lets viewers read but not write', async () => {
    const customer = await l.customer({ name: 'Cobalt' });
    expect((await call(w.app, 'GET', `${w.base}/customers/${customer}`, { token: w.tokens.watcher })).status).toBe(200);
    expect((await call(w.app, 'POST', `${w.base}/customers`, { token: w.tokens.watcher, body: { name: 'X' } })).status).toBe(403);
    expect((await call(w.app, 'PATCH', `${w.base}/customers/${customer}`, { token: w.tokens.watcher, body: { name: 'X' } })).status).toBe(403);
  });
});
