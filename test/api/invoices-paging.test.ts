import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call } from '../support/api';
import { newId } from '../../core/ids';
import { addCustomer, addInvoice, addTeamMember, type InvoiceWorld, invoiceWorld, pastDue, TODAY } from '../support/invoice-fixtures';

describe('invoice list paging', () => {
  let w: InvoiceWorld;
  let base: string;
  let customer: string;

  beforeEach(async () => {
    w = await invoiceWorld();
    base = `/api/companies/${w.company}/invoices`;
    customer = await addCustomer(w.engine, w.company, { name: 'Globex' });
  });
  afterEach(() => w.dispose());

  const get = (query: string) => call(w.app, 'GET', `${base}?${query}`, { token: w.token });

  it('defaults to 30 rows, caps the page size at 500 and echoes the size used', async () => {
    for (let i = 0; i < 32; i++) await addInvoice(w.engine, w.company, customer, { number: `N-${i}`, dueDate: pastDue(i % 7) });
    const first = await get('');
    expect(first.body).toMatchObject({ limit: 30, has_more: true, count: 32 });
    expect(first.body.items).toHaveLength(30);
    const capped = await get('limit=100000');
    expect(capped.status).toBe(200);
    expect(capped.body).toMatchObject({ limit: 500, has_more: false });
    expect(capped.body.items).toHaveLength(32);
    expect((await get('limit=500')).body.limit).toBe(500);
    expect((await get('limit=1')).body.items).toHaveLength(1);
  });

  for (const sort of ['due_date_desc', 'balance_asc', 'customer_name_desc']) {
    it(`walks every row exactly once by ${sort} while rows are inserted between pages`, async () => {
      // Many equal keys (7 due dates, 5 amounts, 2 names): only the id keeps the order total.
      const other = await addCustomer(w.engine, w.company, { name: 'Initech' });
      const original: string[] = [];
      for (let i = 0; i < 40; i++) {
        original.push(`N-${i}`);
        await addInvoice(w.engine, w.company, i % 2 ? customer : other, { number: `N-${i}`, dueDate: pastDue(i % 7), total: 100 + (i % 5) });
      }
      const seen: string[] = [];
      let res = await get(`sort=${sort}&limit=6`);
      let inserted = 0;
      while (true) {
        seen.push(...res.body.items.map((i: { invoice_number: string }) => i.invoice_number));
        if (!res.body.next_cursor) break;
        // New rows landing before, inside and after the cursor position.
        for (const days of [-3, 3, 10]) {
          await addInvoice(w.engine, w.company, inserted % 2 ? customer : other, { number: `NEW-${inserted}`, dueDate: pastDue(days), total: 100 + (inserted % 5) });
          inserted++;
        }
        res = await get(`sort=${sort}&limit=6&cursor=${encodeURIComponent(res.body.next_cursor)}`);
        expect(res.status).toBe(200);
      }
      expect(new Set(seen).size).toBe(seen.length);
      expect(original.every((n) => seen.includes(n))).toBe(true);
      expect(inserted).toBeGreaterThan(0);
    });
  }

  it('gives the same rows whether a page walks the sort index (many matches) or collects and sorts (few)', async () => {
    // 6,000 invoices of one owner's customer (enough to walk), 300 of another's (collected).
    const alice = await addTeamMember(w.engine, w.company, 'Alice');
    const bob = await addTeamMember(w.engine, w.company, 'Bob');
    const big = await addCustomer(w.engine, w.company, { name: 'Big Co', arOwnerId: alice });
    const small = await addCustomer(w.engine, w.company, { name: 'Small Co', arOwnerId: bob });
    const sqlite = w.engine.database.sqlite;
    const insert = sqlite.prepare(
      `INSERT INTO invoices (id, company_id, customer_id, customer_name, invoice_number, invoice_date, due_date, total_amount, paid_amount, balance, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?)`,
    );
    sqlite.transaction(() => {
      for (let i = 0; i < 6300; i++) {
        const [customer, name] = i < 6000 ? [big, 'Big Co'] : [small, 'Small Co'];
        const total = 100 + (i % 37) * 10;
        insert.run(newId(), w.company, customer, name, `B-${i}`, pastDue(40 + (i % 50)), pastDue(i % 50), total, total, TODAY, TODAY);
      }
    })();
    for (const [owner, expected] of [
      [alice, 6000],
      [bob, 300],
    ] as const) {
      const query = `ar_owner=${owner}&sort=balance_desc&limit=500`;
      const rows = sqlite
        .prepare('SELECT invoice_number FROM invoices WHERE company_id = ? AND customer_id = ? ORDER BY balance DESC, id DESC')
        .pluck()
        .all(w.company, owner === alice ? big : small) as string[];
      expect(rows).toHaveLength(expected);
      const seen: string[] = [];
      let res = await get(query);
      expect(res.body.count).toBe(expected);
      seen.push(...res.body.items.map((i: { invoice_number: string }) => i.invoice_number));
      while (res.body.next_cursor) {
        res = await get(`${query}&cursor=${encodeURIComponent(res.body.next_cursor)}`);
        seen.push(...res.body.items.map((i: { invoice_number: string }) => i.invoice_number));
      }
      expect(seen).toEqual(rows);
    }
  });

  it('finds by search the invoices of the customers whose name matches and those whose number matches, each once, walking or collecting', async () => {
    // 6,000 invoices of a customer whose name matches (a broad search walks the sort index), 40
    // whose number matches under a customer whose name does not, 5 that match both ways.
    const broad = await addCustomer(w.engine, w.company, { name: 'Northwind Traders' });
    const other = await addCustomer(w.engine, w.company, { name: 'Acme' });
    const sqlite = w.engine.database.sqlite;
    const insert = sqlite.prepare(
      `INSERT INTO invoices (id, company_id, customer_id, customer_name, invoice_number, invoice_date, due_date, total_amount, paid_amount, balance, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?)`,
    );
    sqlite.transaction(() => {
      for (let i = 0; i < 6045; i++) {
        const [customer, name, number] = i < 6000 ? [broad, 'Northwind Traders', `B-${i}`] : i < 6040 ? [other, 'Acme', `NORTH-${i}`] : [broad, 'Northwind Traders', `NORTH-${i}`];
        const total = 100 + (i % 37) * 10;
        insert.run(newId(), w.company, customer, name, number, pastDue(40 + (i % 50)), pastDue(i % 50), total, total, TODAY, TODAY);
      }
    })();
    const expected = (term: string, order: string) =>
      sqlite
        .prepare(`SELECT invoice_number FROM invoices WHERE company_id = ? AND (customer_name LIKE ? OR invoice_number LIKE ?) ORDER BY ${order}`)
        .pluck()
        .all(w.company, `%${term}%`, `%${term}%`) as string[];
    for (const [term, total] of [
      ['north', 6045],
      ['NORTH-60', 45],
    ] as const) {
      for (const [sort, order] of [
        ['due_date_desc', 'due_date DESC, id DESC'],
        ['balance_desc', 'balance DESC, id DESC'],
      ]) {
        const query = `search=${encodeURIComponent(term)}&sort=${sort}&limit=500`;
        let res = await get(query);
        expect(res.body.count, `${term} ${sort}`).toBe(total);
        expect(res.body.facets.current + res.body.facets.overdue).toBe(total);
        const seen = res.body.items.map((i: { invoice_number: string }) => i.invoice_number);
        while (res.body.next_cursor) {
          res = await get(`${query}&cursor=${encodeURIComponent(res.body.next_cursor)}`);
          seen.push(...res.body.items.map((i: { invoice_number: string }) => i.invoice_number));
        }
        expect(seen, `${term} ${sort}`).toEqual(expected(term, order));
      }
    }
  });

  it('keeps its place when the row under the cursor changes or disappears', async () => {
    for (let i = 0; i < 6; i++) await addInvoice(w.engine, w.company, customer, { number: `N-${i}`, dueDate: pastDue(i) });
    const first = await get('sort=due_date_desc&limit=3');
    expect(first.body.items.map((i: { invoice_number: string }) => i.invoice_number)).toEqual(['N-0', 'N-1', 'N-2']);
    w.engine.database.sqlite.prepare('DELETE FROM invoices WHERE invoice_number = ?').run('N-2');
    const second = await get(`sort=due_date_desc&limit=3&cursor=${encodeURIComponent(first.body.next_cursor)}`);
    expect(second.body.items.map((i: { invoice_number: string }) => i.invoice_number)).toEqual(['N-3', 'N-4', 'N-5']);
  });
});
