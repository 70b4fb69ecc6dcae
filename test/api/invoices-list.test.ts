import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClosingReason } from '../../core/db/schema';
import { type InvoiceStatus, openStatus, STATUS_VALUES } from '../../core/invoices/status';
import { call } from '../support/api';
import { addCustomer, addInvoice, addLabel, addTeamMember, type InvoiceWorld, invoiceWorld, pastDue } from '../support/invoice-fixtures';

/** The data set, described once: the API's answers are checked against this reference model. */
interface Spec {
  number: string;
  customer: 'globex' | 'initech' | 'jane';
  daysPastDue: number;
  total: number;
  paid?: number;
  closing?: ClosingReason;
  labels?: Array<'disputed' | 'promise'>;
}

const SPECS: Spec[] = [
  { number: 'G-1', customer: 'globex', daysPastDue: 0, total: 100 },
  { number: 'G-4', customer: 'globex', daysPastDue: 0, total: 100 },
  { number: 'G-2', customer: 'globex', daysPastDue: 1, total: 250, labels: ['disputed'] },
  { number: 'G-3', customer: 'globex', daysPastDue: 30, total: 250 },
  { number: 'I-1', customer: 'initech', daysPastDue: 31, total: 500, paid: 200 },
  { number: 'I-2', customer: 'initech', daysPastDue: 60, total: 75, labels: ['promise'] },
  { number: 'I-3', customer: 'initech', daysPastDue: 61, total: 75 },
  { number: 'J-1', customer: 'jane', daysPastDue: 90, total: 40, labels: ['disputed', 'promise'] },
  { number: 'J-2', customer: 'jane', daysPastDue: 91, total: 1000 },
  { number: 'P-1', customer: 'globex', daysPastDue: 100, total: 300, paid: 300, closing: 'paid' },
  { number: 'O-1', customer: 'initech', daysPastDue: 10, total: 50, paid: 60, closing: 'overpaid' },
  { number: 'W-1', customer: 'jane', daysPastDue: 120, total: 80, closing: 'written_off' },
  { number: 'C-1', customer: 'globex', daysPastDue: -20, total: 20, paid: 20, closing: 'credit_memo' },
];

const CUSTOMER_NAMES = { globex: 'Globex Corporation', initech: 'Initech LLC', jane: 'Jane Doe' };

function statusOf(s: Spec): InvoiceStatus {
  return s.closing ? (`closed_${s.closing}` as InvoiceStatus) : openStatus(s.daysPastDue);
}
const balanceOf = (s: Spec) => s.total - (s.paid ?? 0);
const BUCKET: Record<string, string> = { past_due_1_30: '1_30', past_due_31_60: '31_60', past_due_61_90: '61_90', past_due_90p: '91_over' };
const bucketOf = (s: Spec) => BUCKET[statusOf(s)] ?? 'current';

/** Each filter (ids as :name, resolved at run time) with the reference predicate it must match. */
const FILTERS: Record<string, (s: Spec) => boolean> = {
  'status=current': (s) => statusOf(s) === 'current',
  'status=overdue': (s) => statusOf(s).startsWith('past_due'),
  'status=closed_paid': (s) => statusOf(s) === 'closed_paid',
  'status=past_due_90p,closed_written_off': (s) => ['past_due_90p', 'closed_written_off'].includes(statusOf(s)),
  'aging_bucket=31_60': (s) => bucketOf(s) === '31_60',
  'aging_bucket=current,91_over': (s) => ['current', '91_over'].includes(bucketOf(s)),
  'customer_id=:initech': (s) => s.customer === 'initech',
  [`due_date_from=${pastDue(61)}&due_date_to=${pastDue(30)}`]: (s) => s.daysPastDue >= 30 && s.daysPastDue <= 61,
  'overdue_only=true': (s) => !s.closing && s.daysPastDue > 0 && balanceOf(s) > 0,
  'overdue_only=false': () => true,
  'search=GLOB': (s) => s.customer === 'globex',
  'search=i-1': (s) => s.number === 'I-1',
  'search=j-': (s) => s.number.startsWith('J-'),
  'search=doe': (s) => s.customer === 'jane',
  'ar_owner=:alice': (s) => s.customer !== 'initech',
  'sales_owner=:sam': (s) => s.customer === 'globex',
  'is_person=true': (s) => s.customer === 'jane',
  'is_person=false': (s) => s.customer !== 'jane',
  'labels=:disputed': (s) => !!s.labels?.includes('disputed'),
  'labels=:disputed,:promise': (s) => !!s.labels?.length,
  // The closed-invoice balance rule: a closed invoice's balance is 0 whatever was left at closing.
  'hide_zero_balance=true': (s) => !s.closing && balanceOf(s) !== 0,
};

describe('GET /invoices', () => {
  let w: InvoiceWorld;
  let base: string;
  const ids = new Map<string, string>();
  const ref: Record<string, string> = {};

  beforeAll(async () => {
    w = await invoiceWorld();
    base = `/api/companies/${w.company}/invoices`;
    ref.alice = await addTeamMember(w.engine, w.company, 'Alice Archer');
    ref.bob = await addTeamMember(w.engine, w.company, 'Bob Baker');
    ref.sam = await addTeamMember(w.engine, w.company, 'Sam Seller', 'sales');
    ref.globex = await addCustomer(w.engine, w.company, { name: CUSTOMER_NAMES.globex, arOwnerId: ref.alice, salesOwnerId: ref.sam });
    ref.initech = await addCustomer(w.engine, w.company, { name: CUSTOMER_NAMES.initech, arOwnerId: ref.bob });
    ref.jane = await addCustomer(w.engine, w.company, { name: CUSTOMER_NAMES.jane, isPerson: true, arOwnerId: ref.alice });
    ref.disputed = await addLabel(w.engine, w.company, 'Disputed', '#d33');
    ref.promise = await addLabel(w.engine, w.company, 'Promise to pay', '#3a3');
    for (const s of SPECS) {
      ids.set(
        s.number,
        await addInvoice(w.engine, w.company, ref[s.customer], {
          number: s.number,
          dueDate: pastDue(s.daysPastDue),
          total: s.total,
          paid: s.paid,
          closing: s.closing ?? null,
          labels: (s.labels ?? []).map((l) => ref[l]),
        }),
      );
    }
    // Another company's invoice, which no filter of the first company may ever show.
    const foreign = await addCustomer(w.engine, w.other, { name: 'Globex Foreign' });
    await addInvoice(w.engine, w.other, foreign, { number: 'G-9', dueDate: pastDue(5) });
  });
  afterAll(() => w.dispose());

  const get = (query: string) => call(w.app, 'GET', `${base}${query ? `?${query}` : ''}`, { token: w.token });

  const resolve = (query: string) => query.replace(/:(\w+)/g, (_, name: string) => ref[name]);

  async function expectMatches(keys: string[]) {
    const query = resolve(keys.join('&'));
    const res = await get(`${query}&limit=500`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const expected = SPECS.filter((s) => keys.every((k) => FILTERS[k](s)));
    expect(res.body.items.map((i: { invoice_number: string }) => i.invoice_number).sort(), query).toEqual(expected.map((s) => s.number).sort());
    expect(res.body.count, query).toBe(expected.length);
    const facetBase = SPECS.filter((s) => keys.filter((k) => !k.startsWith('status=')).every((k) => FILTERS[k](s)));
    const facets = Object.fromEntries(STATUS_VALUES.map((v) => [v, facetBase.filter((s) => (v === 'overdue' ? statusOf(s).startsWith('past_due') : statusOf(s) === v)).length]));
    expect(res.body.facets, query).toEqual(facets);
  }

  it('lists every invoice of the company on the first page with count, facets and the echo', async () => {
    const res = await get('');
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(SPECS.length);
    expect(res.body).toMatchObject({ limit: 30, has_more: false, next_cursor: null, applied_filters: { company_id: w.company, sort: 'due_date', order: 'desc' } });
    expect(Object.keys(res.body.facets).sort()).toEqual([...STATUS_VALUES].sort());
    expect(res.body.facets).toMatchObject({ current: 2, overdue: 7, past_due_1_30: 2, past_due_31_60: 2, past_due_61_90: 2, past_due_90p: 1, closed_paid: 1, closed_overpaid: 1, closed_written_off: 1, closed_credit_memo: 1 });
    expect(res.body.items.every((i: { invoice_number: string }) => i.invoice_number !== 'G-9')).toBe(true);
  });

  it('shapes each item as the spec list item', async () => {
    const res = await get(`search=I-1`);
    const item = res.body.items[0];
    expect(item).toEqual({
      id: ids.get('I-1'),
      customer: ref.initech,
      customer_name: 'Initech LLC',
      invoice_number: 'I-1',
      invoice_date: pastDue(61),
      due_date: pastDue(31),
      currency: 'USD',
      total_amount: 500,
      paid_amount: 200,
      balance: 300,
      open_balance: 300,
      balance_at_closing: null,
      pending_amount: 0,
      status: 'past_due_31_60',
      status_display: 'Past due 31-60',
      days_outstanding: 61,
      days_past_due: 31,
      aging_bucket: '31_60',
      ar_owner: 'Bob Baker',
      last_touch_date: null,
      last_touched_by: null,
      labels: [],
      signals: [],
      predicted_pay_date: null,
      next_follow_up_date: null,
      payment_link: null,
      created_at: '2026-11-23T12:00:00.000Z',
      updated_at: '2026-11-23T12:00:00.000Z',
    });
    const labelled = (await get('search=J-1')).body.items[0];
    expect(labelled.labels).toEqual([
      { id: ref.disputed, name: 'Disputed', color: '#d33' },
      { id: ref.promise, name: 'Promise to pay', color: '#3a3' },
    ]);
  });

  it.each(Object.keys(FILTERS))('filters by %s alone', async (key) => {
    await expectMatches([key]);
  });

  it('combines filters (every pair of different parameters)', async () => {
    const keys = Object.keys(FILTERS);
    const param = (k: string) => k.split('=')[0];
    for (let a = 0; a < keys.length; a++) {
      for (let b = a + 1; b < keys.length; b++) {
        if (param(keys[a]) === param(keys[b])) continue;
        await expectMatches([keys[a], keys[b]]);
      }
    }
  });

  it('combines three filters, status chosen among the facets of the other two', async () => {
    await expectMatches(['ar_owner=:alice', 'hide_zero_balance=true', 'status=overdue']);
    await expectMatches(['search=GLOB', 'labels=:disputed,:promise', 'aging_bucket=current,91_over']);
  });

  it('echoes the active filters, normalised', async () => {
    const res = await get(`status=overdue,overdue,current&labels=${ref.promise.toUpperCase()}&overdue_only=1&search=%20glob%20&sort=balance_asc`);
    expect(res.body.applied_filters).toEqual({
      company_id: w.company,
      status: ['overdue', 'current'],
      labels: [ref.promise],
      overdue_only: true,
      search: 'glob',
      sort: 'balance',
      order: 'asc',
    });
  });

  const SORTS: Array<[string, (s: Spec) => string | number]> = [
    ['due_date', (s) => pastDue(s.daysPastDue)],
    // The open balance: every closed invoice owes 0, so they sort together below the open ones
    // (in stored-balance order among themselves).
    ['balance', (s) => (s.closing ? 0 : 1e9) + balanceOf(s)],
    ['amount', (s) => s.total],
    ['customer_name', (s) => CUSTOMER_NAMES[s.customer]],
  ];

  for (const [key, value] of SORTS) {
    for (const dir of ['asc', 'desc'] as const) {
      it(`sorts by ${key} ${dir}, ties by id in the same direction, across pages of 2`, async () => {
        const expected = [...SPECS]
          .sort((a, b) => {
            const [x, y] = [value(a), value(b)];
            const byKey = x < y ? -1 : x > y ? 1 : 0;
            const byId = ids.get(a.number)! < ids.get(b.number)! ? -1 : 1;
            return (byKey || byId) * (dir === 'asc' ? 1 : -1);
          })
          .map((s) => s.number);
        for (const query of [`sort=${key}_${dir}`, `sort=${key}&order=${dir}`]) {
          const seen: string[] = [];
          let res = await get(`${query}&limit=2`);
          expect(res.body.count).toBe(SPECS.length);
          seen.push(...res.body.items.map((i: { invoice_number: string }) => i.invoice_number));
          while (res.body.next_cursor) {
            res = await get(`${query}&limit=2&cursor=${encodeURIComponent(res.body.next_cursor)}`);
            expect(res.status).toBe(200);
            expect(res.body.count).toBeUndefined();
            expect(res.body.facets).toBeUndefined();
            seen.push(...res.body.items.map((i: { invoice_number: string }) => i.invoice_number));
          }
          expect(seen).toEqual(expected);
        }
      });
    }
  }

  // A searched page collected by row id reads only the rows on the page's side of a bound
  // taken from the customer index (list.ts pageBound): pages of 1 put that bound and the cursor on ties.
  for (const search of ['glob', 'gl']) {
    for (const [key, value] of SORTS.filter(([k]) => k === 'due_date' || k === 'amount')) {
      for (const dir of ['asc', 'desc'] as const) {
        it(`pages search=${search} by ${key} ${dir} in order across pages of 1`, async () => {
          const expected = SPECS.filter((s) => s.customer === 'globex')
            .sort((a, b) => {
              const [x, y] = [value(a), value(b)];
              const byKey = x < y ? -1 : x > y ? 1 : 0;
              return (byKey || (ids.get(a.number)! < ids.get(b.number)! ? -1 : 1)) * (dir === 'asc' ? 1 : -1);
            })
            .map((s) => s.number);
          const query = `search=${search}&sort=${key}_${dir}&limit=1`;
          let res = await get(query);
          const seen: string[] = res.body.items.map((i: { invoice_number: string }) => i.invoice_number);
          while (res.body.next_cursor) {
            res = await get(`${query}&cursor=${encodeURIComponent(res.body.next_cursor)}`);
            seen.push(...res.body.items.map((i: { invoice_number: string }) => i.invoice_number));
          }
          expect(seen).toEqual(expected);
        });
      }
    }
  }

  it('has ties to break in the data set', () => {
    for (const [, value] of SORTS) expect(new Set(SPECS.map(value)).size).toBeLessThan(SPECS.length);
  });

  it('pages a filtered query to the end, with has_more false and a null cursor on the last page', async () => {
    const first = await get('status=overdue&limit=5');
    expect(first.body).toMatchObject({ count: 7, has_more: true, limit: 5 });
    const second = await get(`status=overdue&limit=5&cursor=${encodeURIComponent(first.body.next_cursor)}`);
    expect(second.body).toMatchObject({ has_more: false, next_cursor: null });
    expect(second.body.items).toHaveLength(2);
    expect('count' in second.body).toBe(false);
    expect('facets' in second.body).toBe(false);
  });

  it('rejects a cursor used with another query, another company, altered or malformed', async () => {
    const first = await get('sort=balance&limit=2');
    const cursor = first.body.next_cursor as string;
    for (const query of [
      `sort=amount&limit=2&cursor=${encodeURIComponent(cursor)}`,
      `sort=balance&status=overdue&limit=2&cursor=${encodeURIComponent(cursor)}`,
      `sort=balance&limit=2&cursor=${encodeURIComponent(cursor.slice(0, -3))}`,
      // One character changed (to another one: the cursor is random, and may already hold an x there).
      `sort=balance&limit=2&cursor=${encodeURIComponent(`${cursor.slice(0, 20)}${cursor[20] === 'x' ? 'y' : 'x'}${cursor.slice(21)}`)}`,
      'sort=balance&limit=2&cursor=eyJrIjoxfQ',
    ]) {
      const res = await get(query);
      expect(res.status, query).toBe(400);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(res.body.code).toBe('invalid_cursor');
    }
    const other = await call(w.app, 'GET', `/api/companies/${w.other}/invoices?sort=balance&limit=2&cursor=${encodeURIComponent(cursor)}`, { token: w.token });
    expect(other.status).toBe(400);
    // Changing only the page size keeps the cursor valid.
    expect((await get(`sort=balance&limit=3&cursor=${encodeURIComponent(cursor)}`)).status).toBe(200);
  });

  it.each([
    ['status=bogus', 'status'],
    ['status=current,closed', 'status'],
    ['aging_bucket=90_plus', 'aging_bucket'],
    ['sort=amount_up', 'sort'],
    ['sort=total_amount', 'sort'],
    ['order=down', 'order'],
    ['group_by=label', 'group_by'],
    ['group_mode=parents', 'group_mode'],
    ['due_date_from=2026-02-30', 'due_date_from'],
    ['due_date_to=23/11/2026', 'due_date_to'],
    ['customer_id=not-a-uuid', 'customer_id'],
    ['ar_owner=42', 'ar_owner'],
    ['labels=abc', 'labels'],
    ['overdue_only=yes', 'overdue_only'],
    ['is_person=maybe', 'is_person'],
    ['limit=0', 'limit'],
    ['limit=-1', 'limit'],
    ['limit=ten', 'limit'],
    ['search=a%00b', 'search'],
  ])('answers 400 problem+json for %s', async (query, field) => {
    const res = await get(query);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(res.body).toMatchObject({ status: 400, code: 'validation_error' });
    expect(res.body.errors[field]).toBeDefined();
  });

  it('answers 400 for a due date range that ends before it starts', async () => {
    const res = await get(`due_date_from=${pastDue(1)}&due_date_to=${pastDue(10)}`);
    expect(res.status).toBe(400);
    expect(res.body.errors.due_date_from).toBeDefined();
  });

  it('groups by customer: one row per customer with totals, sorted like invoices and paged', async () => {
    const res = await get('group_by=customer&sort=customer_name_asc');
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(3);
    expect(res.body.facets.overdue).toBe(7);
    const rows = res.body.items;
    expect(rows.map((r: { customer_name: string }) => r.customer_name)).toEqual(['Globex Corporation', 'Initech LLC', 'Jane Doe']);
    expect(rows[1]).toEqual({
      customer: ref.initech,
      customer_name: 'Initech LLC',
      ar_owner: 'Bob Baker',
      is_person: false,
      currency: 'USD',
      invoice_count: 4,
      total_amount: 700,
      // Open invoices only: the overpaid invoice's -10 is not owed back in this balance.
      balance: 450,
      overdue_balance: 450,
      oldest_due_date: pastDue(61),
      aging_balances: { current: 0, '1_30': 0, '31_60': 375, '61_90': 75, '91_over': 0 },
    });
    expect(rows[2]).toMatchObject({ customer_name: 'Jane Doe', is_person: true, balance: 1040, overdue_balance: 1040, aging_balances: { '61_90': 40, '91_over': 1000 } });

    const byBalance = await get('group_by=customer&sort=balance_desc&limit=1');
    const walked = [byBalance.body.items[0].customer_name];
    let cursor = byBalance.body.next_cursor;
    while (cursor) {
      const page = await get(`group_by=customer&sort=balance_desc&limit=1&cursor=${encodeURIComponent(cursor)}`);
      walked.push(page.body.items[0].customer_name);
      cursor = page.body.next_cursor;
    }
    expect(walked).toEqual(['Jane Doe', 'Globex Corporation', 'Initech LLC']);
  });

  it('groups only the matching invoices when invoice filters apply', async () => {
    const res = await get('group_by=customer&status=overdue&sort=amount_desc');
    expect(res.body.count).toBe(3);
    expect(res.body.items.map((r: { customer_name: string; invoice_count: number; total_amount: number }) => [r.customer_name, r.invoice_count, r.total_amount])).toEqual([
      ['Jane Doe', 2, 1040],
      ['Initech LLC', 3, 650],
      ['Globex Corporation', 2, 500],
    ]);
    const paged = await get('group_by=customer&status=overdue&sort=amount_desc&limit=2');
    const rest = await get(`group_by=customer&status=overdue&sort=amount_desc&limit=2&cursor=${encodeURIComponent(paged.body.next_cursor)}`);
    expect(rest.body.items.map((r: { customer_name: string }) => r.customer_name)).toEqual(['Globex Corporation']);
    const owned = await get(`group_by=customer&ar_owner=${ref.alice}&sort=due_date_asc`);
    expect(owned.body.items.map((r: { customer_name: string; oldest_due_date: string }) => [r.customer_name, r.oldest_due_date])).toEqual([
      ['Jane Doe', pastDue(120)],
      ['Globex Corporation', pastDue(100)],
    ]);
  });

  it('returns the invoice rows of one parent with group_mode=children', async () => {
    const res = await get(`group_by=customer&group_mode=children&customer_id=${ref.jane}&sort=amount_desc`);
    expect(res.status).toBe(200);
    expect(res.body.items.map((i: { invoice_number: string }) => i.invoice_number)).toEqual(['J-2', 'W-1', 'J-1']);
    expect(res.body.applied_filters).toMatchObject({ group_by: 'customer', group_mode: 'children', customer_id: ref.jane });
    expect((await get('group_by=customer&group_mode=children')).status).toBe(400);
    expect((await get(`group_mode=children&customer_id=${ref.jane}`)).status).toBe(400);
  });

  it('is company-scoped: 403 for a company the user is not in, 404 for a malformed company id', async () => {
    const outsider = await call(w.app, 'GET', `/api/companies/${w.other}/invoices`, { token: w.viewerToken });
    expect(outsider.status).toBe(403);
    expect((await call(w.app, 'GET', '/api/companies/nope/invoices', { token: w.token })).status).toBe(404);
    expect((await call(w.app, 'GET', base)).status).toBe(401);
  });
});
