import { describe, expect, it } from 'vitest';
import { customerMinWidth, keptWidth } from '../../renderer/src/desk/columns';
import { activeFilterCount, apiQuery, customerFilters, DEFAULT_FILTERS, effectiveSort, parseFilters, sortOfColumn, toggle, toSearch, STATUSES, withColumnSort } from '../../renderer/src/desk/filters';
import { billingContact, followUpState, formatDate, formatMoney, formatMonth, localToday, recipientsSummary } from '../../renderer/src/desk/format';
import { operationEffect, overpayment, paymentMethodWords, paymentOperations } from '../../renderer/src/desk/payments';
import { CursorPager, type CursorPage } from '../../renderer/src/desk/pager';

describe('desk filters in the URL', () => {
  it('round-trips every filter through the query string, keeping only what differs from the defaults', () => {
    const search =
      '?status=past_due_1_30,past_due_90p&aging_bucket=1_30&due_date_from=2026-01-01&due_date_to=2026-12-31&ar_owner=0192f0c4-5f3e-7c4a-9a51-1f2e3d4c5b6a&labels=0192f0c4-5f3e-7c4a-9a51-1f2e3d4c5b6b&is_person=false&overdue_only=true&hide_zero_balance=true&search=acme&sort=balance&order=asc&group_by=customer';
    const filters = parseFilters(search);
    expect(filters).toMatchObject({ status: ['past_due_1_30', 'past_due_90p'], aging_bucket: ['1_30'], is_person: 'false', overdue_only: true, sort: 'balance', order: 'asc', group_by: 'customer' });
    expect(parseFilters(toSearch(filters))).toEqual(filters);
    expect(toSearch(DEFAULT_FILTERS)).toBe('');
  });

  it('drops values the API would refuse, so a stale bookmark still opens', () => {
    const filters = parseFilters('?status=current,bogus&aging_bucket=999&due_date_from=yesterday&ar_owner=nobody&labels=x,0192f0c4-5f3e-7c4a-9a51-1f2e3d4c5b6a&sort=color&order=up&is_person=maybe&follow_up=someday,today');
    expect(filters.status).toEqual(['current']);
    expect(filters.aging_bucket).toEqual([]);
    expect(filters.due_date_from).toBe('');
    expect(filters.ar_owner).toBe('me');
    expect(filters.labels).toEqual(['0192f0c4-5f3e-7c4a-9a51-1f2e3d4c5b6a']);
    expect(filters.follow_up).toEqual(['today']);
    expect(filters.sort).toBe('');
    // Customer groups only: without group_by an overdue-balance sort falls back to the view's order.
    expect(parseFilters('?sort=overdue_balance').sort).toBe('');
    expect(filters.order).toBe('desc');
    expect(filters.is_person).toBe('');
  });

  it("reads the API's sort suffix form (balance_desc)", () => {
    expect(parseFilters('?sort=customer_name_asc')).toMatchObject({ sort: 'customer_name', order: 'asc' });
  });

  it('maps filters to the API query, trimming the search', () => {
    expect(apiQuery({ ...DEFAULT_FILTERS, search: '  acme ', status: ['overdue'] })).toEqual({ attention: true, ar_owner: 'me', search: 'acme', status: 'overdue' });
  });

  it('opens on My work, mine; the URL names only a departure from that (view=all, ar_owner=all)', () => {
    expect(parseFilters('')).toEqual(DEFAULT_FILTERS);
    expect(DEFAULT_FILTERS).toMatchObject({ work: true, ar_owner: 'me', sort: '' });
    const everything = parseFilters('?view=all&ar_owner=all');
    expect(everything).toMatchObject({ work: false, ar_owner: '' });
    expect(toSearch(everything)).toBe('?view=all&ar_owner=all');
    expect(apiQuery(everything)).toEqual({});
    expect(toSearch(customerFilters('0192f0c4-5f3e-7c4a-9a51-1f2e3d4c5b6a'))).toBe('?view=all&ar_owner=all&customer_id=0192f0c4-5f3e-7c4a-9a51-1f2e3d4c5b6a');
  });

  it("orders each view its own way unless a column was chosen", () => {
    expect(effectiveSort(DEFAULT_FILTERS)).toBe('attention');
    expect(effectiveSort({ ...DEFAULT_FILTERS, work: false })).toBe('due_date');
    expect(effectiveSort({ ...DEFAULT_FILTERS, group_by: 'customer' })).toBe('overdue_balance');
    expect(apiQuery({ ...DEFAULT_FILTERS, group_by: 'customer' })).toMatchObject({ group_by: 'customer', sort: 'overdue_balance' });
    expect(effectiveSort({ ...DEFAULT_FILTERS, sort: 'days_past_due' })).toBe('days_past_due');
    const late = parseFilters('?follow_up=overdue,today&sort=days_past_due');
    expect(apiQuery(late)).toMatchObject({ follow_up: 'overdue,today', sort: 'days_past_due' });
    expect(parseFilters(toSearch(late))).toEqual(late);
  });

  it('counts active filters and toggles values in canonical order', () => {
    expect(activeFilterCount({ ...DEFAULT_FILTERS, status: ['current'], due_date_to: '2026-01-01', hide_zero_balance: true })).toBe(3);
    expect(toggle(['past_due_90p'], 'current', STATUSES)).toEqual(['current', 'past_due_90p']);
    expect(toggle(['current', 'past_due_90p'], 'current', STATUSES)).toEqual(['past_due_90p']);
  });
});

describe('desk formatting', () => {
  it('formats money with two decimals and dates as calendar days in the locale', () => {
    expect(formatMoney(1234.5, 'USD', 'en-US')).toBe('$1,234.50');
    expect(formatMoney(1234.5, 'EUR', 'de-DE')).toBe('1.234,50\u00a0€');
    expect(formatMoney(null)).toBe('');
    expect(formatDate('2026-01-01', 'en-US')).toBe('Jan 1, 2026');
    expect(formatDate('2026-01-01', 'de-DE')).toBe('1. Jan. 2026');
    expect(formatMonth('2026-01', 'en-US')).toBe('Jan 2026');
    expect(formatMonth('2025-12', 'en-GB')).toBe('Dec 2025');
    expect(localToday(new Date(2026, 10, 3, 23, 59))).toBe('2026-11-03');
  });

  it('says to whom reminders go, grouped by customer', () => {
    const rows = [{ customer_name: 'Acme' }, { customer_name: 'Bolt' }, { customer_name: 'Acme' }];
    expect(recipientsSummary(rows)).toBe('Acme (2), Bolt (1)');
    expect(recipientsSummary(['a', 'b', 'c', 'd', 'e', 'f'].map((customer_name) => ({ customer_name })), 4)).toBe('a (1), b (1), c (1), d (1) and 2 more');
  });

  it('names the billing contact as the reminder picks it, never another contact with an address', () => {
    const ops = { name: 'Ops', email: 'ops@acme.test', is_billing: false };
    expect(billingContact([ops, { name: 'Ann', email: ' ann@acme.test ', is_billing: true }])).toEqual({ name: 'Ann', email: 'ann@acme.test' });
    expect(billingContact([ops, { name: 'Ann', email: null, is_billing: true }])).toEqual({ name: 'Ann', email: null });
    expect(billingContact([ops, { name: 'Ann', email: 'not an address', is_billing: true }])).toEqual({ name: 'Ann', email: null });
    expect(billingContact([ops])).toBeNull();
  });
});

describe('cursor pager behind the infinite grid', () => {
  /** A keyset list of n rows served page by page, counting the requests it answers. */
  function list(n: number) {
    const rows = Array.from({ length: n }, (_, i) => i);
    const served: Array<string | null> = [];
    const fetch = async (cursor: string | null, limit: number): Promise<CursorPage<number>> => {
      served.push(cursor);
      const start = cursor === null ? 0 : Number(cursor);
      const items = rows.slice(start, start + limit);
      const more = start + limit < n;
      return { items, has_more: more, next_cursor: more ? String(start + limit) : null, ...(cursor === null ? { count: n } : {}) };
    };
    return { fetch, served };
  }

  it('serves blocks in order with the total from the first page', async () => {
    const { fetch, served } = list(250);
    const pager = new CursorPager(fetch, 100);
    expect(await pager.block(0)).toMatchObject({ rows: Array.from({ length: 100 }, (_, i) => i), lastRow: 250 });
    const second = await pager.block(100);
    expect(second.rows[0]).toBe(100);
    const last = await pager.block(200);
    expect(last.rows).toHaveLength(50);
    expect(last.lastRow).toBe(250);
    expect(served).toEqual([null, '100', '200']);
  });

  it('walks forward to a block past the known ones, and refetches a known block with one request', async () => {
    const { fetch, served } = list(1000);
    const pager = new CursorPager(fetch, 100);
    const far = await pager.block(500);
    expect(far.rows[0]).toBe(500);
    expect(served).toEqual([null, '100', '200', '300', '400', '500']);
    served.length = 0;
    expect((await pager.block(300)).rows[0]).toBe(300);
    expect(served).toEqual(['300']);
  });

  it('serves the first block from a page asked for ahead of the grid, once', async () => {
    const { fetch, served } = list(250);
    const pager = new CursorPager(fetch, 100);
    pager.prefetchFirst();
    pager.prefetchFirst();
    expect(served).toEqual([null]);
    expect(await pager.block(0)).toMatchObject({ rows: Array.from({ length: 100 }, (_, i) => i), lastRow: 250 });
    expect(served).toEqual([null]);
    // A refresh of the first block (after a write) asks the server again.
    expect((await pager.block(0)).rows[0]).toBe(0);
    expect((await pager.block(100)).rows[0]).toBe(100);
    expect(served).toEqual([null, null, '100']);
    // One asked for ahead and not taken is forgotten, so it is never served stale later.
    pager.prefetchFirst();
    pager.discardEarly();
    await pager.block(0);
    expect(served).toEqual([null, null, '100', null, null]);
  });

  it('answers an empty block beyond the end', async () => {
    const { fetch } = list(120);
    const pager = new CursorPager(fetch, 100);
    const beyond = await pager.block(300);
    expect(beyond.rows).toEqual([]);
    expect(beyond.lastRow).toBe(120);
  });
});

describe('sorting from a grid header', () => {
  const byColumn = sortOfColumn({ due_date: 'due', balance: 'balance', amount: 'total', customer_name: 'name' });

  it('maps columns back to the API sort keys', () => {
    expect(byColumn).toEqual({ due: 'due_date', balance: 'balance', total: 'amount', name: 'customer_name' });
  });

  it('gives new filters only when a server-sorted column changes the sort', () => {
    expect(withColumnSort(DEFAULT_FILTERS, byColumn, { colId: 'balance', sort: 'asc' })).toEqual({ ...DEFAULT_FILTERS, sort: 'balance', order: 'asc' });
    expect(withColumnSort({ ...DEFAULT_FILTERS, sort: 'due_date' }, byColumn, { colId: 'due', sort: DEFAULT_FILTERS.order })).toBeNull();
    expect(withColumnSort(DEFAULT_FILTERS, byColumn, { colId: 'status', sort: 'asc' })).toBeNull();
    expect(withColumnSort(DEFAULT_FILTERS, byColumn, undefined)).toBeNull();
  });
});

describe('follow-ups and payments in the panel', () => {
  it('says where a follow-up date stands', () => {
    expect(followUpState('2026-11-22', '2026-11-23')).toBe('overdue');
    expect(followUpState('2026-11-23', '2026-11-23')).toBe('today');
    expect(followUpState('2026-11-24', '2026-11-23')).toBe('later');
  });

  it('measures an overpayment in cents', () => {
    expect(overpayment(180, 180)).toBe(0);
    expect(overpayment(500, 180)).toBe(320);
    expect(overpayment(0.3, 0.1 + 0.2)).toBe(0);
    expect(overpayment(Number('abc'), 10)).toBe(0);
  });

  it('offers only the transitions the API allows', () => {
    expect(paymentOperations('PENDING')).toEqual(['settle', 'fail', 'void']);
    expect(paymentOperations('PAID')).toEqual(['void']);
    expect(paymentOperations('PARTIAL')).toEqual(['void']);
    expect(paymentOperations('FAILED')).toEqual([]);
    expect(paymentOperations('VOIDED')).toEqual([]);
  });

  it('says what an operation does to the invoice', () => {
    const invoice = { open_balance: 180, balance_at_closing: null, currency: 'USD', closing_reason: null };
    expect(operationEffect('settle', { amount: 40, status: 'PENDING' }, invoice)).toBe('It counts now: the open balance goes from $180.00 to $140.00.');
    expect(operationEffect('settle', { amount: 180, status: 'PENDING' }, invoice)).toBe('It counts now: the invoice is paid in full (open balance $180.00 to $0.00).');
    expect(operationEffect('settle', { amount: 200, status: 'PENDING' }, invoice)).toBe('It counts now: the invoice closes as overpaid by $20.00.');
    expect(operationEffect('fail', { amount: 40, status: 'PENDING' }, invoice)).toBe('It will not count toward the invoice: the open balance stays $180.00.');
    expect(operationEffect('void', { amount: 40, status: 'PENDING' }, invoice)).toBe('It is cancelled and never counts: the open balance stays $180.00.');
    expect(operationEffect('void', { amount: 50, status: 'PARTIAL' }, invoice)).toBe('It stops counting: the open balance goes from $180.00 to $230.00.');
    expect(operationEffect('void', { amount: 180, status: 'PAID' }, { open_balance: 0, balance_at_closing: 0, currency: 'USD', closing_reason: 'paid' })).toBe(
      'It stops counting: the open balance goes from $0.00 to $180.00 and the invoice reopens.',
    );
    expect(operationEffect('void', { amount: 50, status: 'PAID' }, { open_balance: 0, balance_at_closing: 30, currency: 'USD', closing_reason: 'written_off' })).toBe(
      'It stops counting; the invoice stays closed (written off) and owes nothing.',
    );
  });
});

describe('the customer column of the invoice grid (renderer/src/desk/columns)', () => {
  const columns = [{ colId: 'invoice_number', width: 104 }, { colId: 'customer_name' }, { colId: 'balance', width: 112 }, { colId: 'days_past_due', width: 76 }, { colId: 'status', width: 138 }, { colId: 'due_date', width: 112 }];

  it('counts the selection box and the columns kept in view, not the ones after them', () => {
    expect(keptWidth(columns, 40)).toBe(40 + 104 + 112 + 76 + 138);
  });

  it('takes what the grid has left beside them, from 100 px with the panel open on a laptop to 220 px on a wide screen', () => {
    const kept = keptWidth(columns, 40);
    expect(customerMinWidth(576, kept)).toBe(100);
    expect(customerMinWidth(kept + 16 + 150, kept)).toBe(150);
    expect(customerMinWidth(1200, kept)).toBe(220);
    expect(customerMinWidth(0, kept)).toBe(100);
  });
});

describe('payment methods in words (renderer/src/desk/payments)', () => {
  it('writes the known codes as people do, whatever their case, and any other without underscores', () => {
    expect(['ACH', 'CREDIT_CARD', 'check', 'WIRE'].map(paymentMethodWords)).toEqual(['ACH', 'Credit card', 'Check', 'Wire']);
    expect(paymentMethodWords('Direct_Debit')).toBe('Direct Debit');
  });
});
