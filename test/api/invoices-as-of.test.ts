import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../support/api';
import { addCustomer, addInvoice, type InvoiceWorld, invoiceWorld } from '../support/invoice-fixtures';

/**
 * Issue 23: with the company's as-of date set, the desk's invoice list, an invoice's detail, the
 * header's summary and the Customers list age invoices from that date, not from today (2026-11-23);
 * cleared, from today.
 */
describe('the invoice desk as of the company date', () => {
  let w: InvoiceWorld;
  const AS_OF = '2013-09-30';
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    w = await invoiceWorld();
    const customer = await addCustomer(w.engine, w.company, { name: 'Granite State Roofing' });
    ids.customer = customer;
    ids.late = await addInvoice(w.engine, w.company, customer, { number: 'OLD-LATE', dueDate: '2013-09-20', total: 1_000 });
    ids.due = await addInvoice(w.engine, w.company, customer, { number: 'OLD-CURRENT', dueDate: '2013-10-15', total: 400 });
    ids.paid = await addInvoice(w.engine, w.company, customer, { number: 'OLD-PAID', dueDate: '2013-06-01', total: 250, paid: 250, closing: 'paid', closedDate: '2013-06-20' });
  });
  afterAll(() => w?.dispose());

  const get = (path: string) => call(w.app, 'GET', `/api/companies/${w.company}${path}`, { token: w.token });
  const setAsOf = async (date: string | null) => expect((await call(w.app, 'PATCH', `/api/companies/${w.company}/settings`, { token: w.token, body: { as_of_date: date } })).status).toBe(200);
  type Row = { invoice_number: string; days_past_due: number; status: string; aging_bucket: string };
  const rows = async (query = '') => {
    const res = await get(`/invoices?sort=due_date&order=asc${query}`);
    expect(res.status).toBe(200);
    return { body: res.body, rows: Object.fromEntries((res.body.items as Row[]).map((r) => [r.invoice_number, [r.days_past_due, r.status, r.aging_bucket]])) };
  };

  it('ages the list, the detail and the summary from the as-of date while it is set', async () => {
    await setAsOf(AS_OF);
    const list = await rows();
    expect(list.rows).toEqual({
      'OLD-PAID': [0, 'closed_paid', 'current'],
      'OLD-LATE': [10, 'past_due_1_30', '1_30'],
      'OLD-CURRENT': [0, 'current', 'current'],
    });
    expect(list.body.facets).toMatchObject({ current: 1, past_due_1_30: 1, past_due_90p: 0, overdue: 1 });
    // Filters count from the same date: the one past due is the 1-30 one.
    expect(Object.keys((await rows('&status=past_due_90p')).rows)).toEqual([]);
    expect(Object.keys((await rows('&status=current')).rows)).toEqual(['OLD-CURRENT']);

    const detail = await get(`/invoices/${ids.late}`);
    expect(detail.body).toMatchObject({ days_past_due: 10, status: 'past_due_1_30', aging_bucket: '1_30' });

    const summary = (await get('/invoices/summary')).body;
    expect(summary).toMatchObject({ as_of: AS_OF, total_open_balance: 1_400, overdue_balance: 1_000, current_balance: 400, overdue_invoice_count: 1, average_days_past_due: 10 });
    expect(summary.aging['1_30']).toEqual({ invoice_count: 1, balance: 1_000 });
    expect(summary.aging['91_over']).toEqual({ invoice_count: 0, balance: 0 });
  });

  type CustomerRow = { name: string; overdue_balance: number; risk_reason: string };
  const customerFigures = async () => {
    const list = (await get('/customers?search=Granite')).body.data as CustomerRow[];
    expect(list).toHaveLength(1);
    const detail = (await get(`/customers/${ids.customer}`)).body;
    return { overdue: list[0].overdue_balance, reason: list[0].risk_reason, balance: detail.balance };
  };

  it('counts the Customers list and a customer\'s balance past due from the as-of date', async () => {
    await setAsOf(AS_OF);
    expect(await customerFigures()).toEqual({
      overdue: 1_000,
      reason: '$1,000.00 past due, the oldest 10 days late',
      balance: { open_invoice_count: 2, open_balance: 1_400, overdue_invoice_count: 1, overdue_balance: 1_000 },
    });
    // A write answers with the same figures as a read.
    const patched = await call(w.app, 'PATCH', `/api/companies/${w.company}/customers/${ids.customer}`, { token: w.token, body: { notes: 'Ledger of 2013' } });
    expect(patched.body.balance).toMatchObject({ overdue_invoice_count: 1, overdue_balance: 1_000 });
    await setAsOf(null);
    expect(await customerFigures()).toMatchObject({ overdue: 1_400, reason: '$1,400.00 past due, the oldest 4812 days late', balance: { overdue_invoice_count: 2 } });
  });

  it('ages them from today again once cleared', async () => {
    await setAsOf(null);
    const list = await rows();
    expect(list.rows['OLD-LATE']).toEqual([4812, 'past_due_90p', '91_over']);
    expect(list.rows['OLD-CURRENT'][1]).toBe('past_due_90p');
    const summary = (await get('/invoices/summary')).body;
    expect(summary).toMatchObject({ as_of: '2026-11-23', overdue_balance: 1_400, current_balance: 0 });
    expect((await get(`/invoices/${ids.late}`)).body.days_past_due).toBe(4812);
  });
});
