/**
 * group_by=customer: one row per customer with matching invoices, paged and sorted like invoices
 * (due_date sorts by the oldest due date, amount by the total amount).
 *
 * Without invoice-level filters every customer's group is all of its invoices, so pages walk
 * customer_invoice_totals (kept by triggers) and only the page's customers are aggregated for the
 * date-dependent parts (overdue and per-bucket balances). With invoice-level filters the groups
 * are aggregated from the matching invoices, at a cost that grows with how many match.
 */
import { fromMinor } from '../money';
import type { CursorPosition } from './cursor';
import { addStatusClause, baseWhere, customerSubquery, type InvoiceFilters, invoicesFrom, onlyCustomerFilters, rowStatuses, Where } from './filters';
import { prepared } from '../db/statements';
import { jsonList, type Sqlite } from './reader';
import { AGING_BUCKETS, type AgingBucket, statusThresholds } from './status';
import { afterPosition, type SortDir, type SortKey } from './sort';

type Position = Omit<CursorPosition, 'plan'>;

export interface CustomerGroupRow {
  customer: string;
  customer_name: string;
  ar_owner: string | null;
  is_person: boolean;
  /** The customer's currency, which its invoices are billed in. */
  currency: string;
  invoice_count: number;
  total_amount: number;
  balance: number;
  /** Balance of the group's open invoices past their due date. */
  overdue_balance: number;
  oldest_due_date: string;
  /** Balance of the group's open invoices per aging bucket. */
  aging_balances: Record<AgingBucket, number>;
}

interface GroupTotals {
  customer_id: string;
  customer_name: string;
  invoice_count: number;
  total_amount: number;
  balance: number;
  oldest_due_date: string;
}

interface GroupBuckets {
  overdue: number;
  current: number;
  b1_30: number;
  b31_60: number;
  b61_90: number;
  b91_over: number;
}

/** The column sorts, plus overdue_balance, which depends on today and so is summed from the invoices. */
export type GroupSort = SortKey | 'overdue_balance';

const GROUP_COLUMN: Record<SortKey, keyof GroupTotals> = {
  due_date: 'oldest_due_date',
  balance: 'balance',
  amount: 'total_amount',
  customer_name: 'customer_name',
};

/** The same sort keys over the aggregated groups (g) and the kept customer totals (t), for the filtered path. */
const GROUP_AGGREGATE: Record<GroupSort, string> = {
  overdue_balance: 'g.overdue',
  due_date: 'g.oldest_due_date',
  balance: 'g.balance',
  amount: 'g.total_amount',
  customer_name: 't.customer_name',
};

/** Open-invoice balances by how far past due, as SQL sums over alias i. */
function bucketSums(today: string): { text: string; params: string[] } {
  const t = statusThresholds(today);
  const open = 'i.closing_reason IS NULL';
  return {
    text: `sum(CASE WHEN ${open} AND i.due_date < ? THEN i.balance ELSE 0 END) AS overdue,
      sum(CASE WHEN ${open} AND i.due_date >= ? THEN i.balance ELSE 0 END) AS current,
      sum(CASE WHEN ${open} AND i.due_date >= ? AND i.due_date < ? THEN i.balance ELSE 0 END) AS b1_30,
      sum(CASE WHEN ${open} AND i.due_date >= ? AND i.due_date < ? THEN i.balance ELSE 0 END) AS b31_60,
      sum(CASE WHEN ${open} AND i.due_date >= ? AND i.due_date < ? THEN i.balance ELSE 0 END) AS b61_90,
      sum(CASE WHEN ${open} AND i.due_date < ? THEN i.balance ELSE 0 END) AS b91_over`,
    params: [t.today, t.today, t.d30, t.today, t.d60, t.d30, t.d90, t.d60, t.d90],
  };
}

/** Customer-level filters (owner, person, one customer) as a WHERE on customer ids. */
function customerWhere(companyId: string, filters: InvoiceFilters, column: string): Where {
  const where = new Where();
  if (filters.customerId) where.add(`${column} = ?`, filters.customerId);
  const customers = customerSubquery(companyId, filters);
  if (customers) where.add(`${column} IN (${customers.text})`, ...customers.params);
  return where;
}

export interface GroupPage {
  rows: CustomerGroupRow[];
  hasMore: boolean;
  last: Position | null;
  count: number | null;
}

/** One page of groups: `limit` rows after the keyset position `after` (null: the first page). */
export interface GroupQuery {
  companyId: string;
  filters: InvoiceFilters;
  sort: GroupSort;
  dir: SortDir;
  limit: number;
  after: Position | null;
  today: string;
  /** Count every matching group too (only the first page needs it). */
  withCount: boolean;
}

export function groupPage(sqlite: Sqlite, q: GroupQuery): GroupPage {
  const { companyId, limit, sort } = q;
  // The kept customer totals' balance counts closed invoices' remainders; the open balance (the
  // closed-invoice balance rule) is summed from the invoices, like the overdue balance.
  const found = onlyCustomerFilters(q.filters) && sort !== 'overdue_balance' && sort !== 'balance' ? pageFromTotals(sqlite, q, sort) : pageFromInvoices(sqlite, q);
  const hasMore = found.totals.length > limit;
  const totals = found.totals.slice(0, limit);
  const customers = customerInfo(sqlite, companyId, totals.map((t) => t.customer_id));
  const rows = totals.map((t) => {
    const b = found.buckets.get(t.customer_id) ?? { overdue: 0, current: 0, b1_30: 0, b31_60: 0, b61_90: 0, b91_over: 0 };
    const info = customers.get(t.customer_id);
    const balances = [b.current, b.b1_30, b.b31_60, b.b61_90, b.b91_over];
    return {
      customer: t.customer_id,
      customer_name: t.customer_name,
      ar_owner: info?.ar_owner ?? null,
      is_person: info?.is_person === 1,
      currency: info?.currency ?? 'USD',
      invoice_count: t.invoice_count,
      total_amount: fromMinor(t.total_amount),
      balance: fromMinor(b.current + b.overdue),
      overdue_balance: fromMinor(b.overdue),
      oldest_due_date: t.oldest_due_date,
      aging_balances: Object.fromEntries(AGING_BUCKETS.map((k, n) => [k, fromMinor(balances[n])])) as Record<AgingBucket, number>,
    };
  });
  const lastTotals = totals[totals.length - 1];
  const lastKey = (t: GroupTotals) => (sort === 'overdue_balance' ? (found.buckets.get(t.customer_id)?.overdue ?? 0) : t[GROUP_COLUMN[sort]]);
  return { rows, hasMore, last: lastTotals ? { key: lastKey(lastTotals), id: lastTotals.customer_id } : null, count: found.count };
}

interface Found {
  totals: GroupTotals[];
  buckets: Map<string, GroupBuckets>;
  count: number | null;
}

function pageFromTotals(sqlite: Sqlite, { companyId, filters, dir, limit, after, today, withCount }: GroupQuery, sort: SortKey): Found {
  const where = customerWhere(companyId, filters, 't.customer_id');
  where.clauses.unshift('t.company_id = ?');
  where.params.unshift(companyId);
  const count = withCount ? (prepared(sqlite, `SELECT count(*) FROM customer_invoice_totals t WHERE ${where.text}`).pluck().get(...where.params) as number) : null;
  const column = `t.${GROUP_COLUMN[sort]}`;
  if (after) where.add(afterPosition(column, 't.customer_id', dir), after.key, after.id);
  const totals = prepared(
    sqlite,
    `SELECT t.customer_id, t.customer_name, t.invoice_count, t.total_amount, t.balance, t.oldest_due_date
     FROM customer_invoice_totals t WHERE ${where.text} ORDER BY ${column} ${dir}, t.customer_id ${dir} LIMIT ?`,
  ).all(...where.params, limit + 1) as GroupTotals[];
  const sums = bucketSums(today);
  const buckets = new Map<string, GroupBuckets>();
  for (const b of prepared(
    sqlite,
    `SELECT i.customer_id, ${sums.text} FROM invoices i
     WHERE i.company_id = ? AND i.customer_id IN (SELECT value FROM json_each(?)) GROUP BY i.customer_id`,
  ).all(...sums.params, companyId, jsonList(totals.map((t) => t.customer_id))) as Array<GroupBuckets & { customer_id: string }>) {
    buckets.set(b.customer_id, b);
  }
  return { totals, buckets, count };
}

function pageFromInvoices(sqlite: Sqlite, { companyId, filters, sort, dir, limit, after, today, withCount }: GroupQuery): Found {
  const where = baseWhere(companyId, filters);
  addStatusClause(where, 'i', rowStatuses(filters), today);
  // A search or label set drives by row id; anything else reads the covering customer index,
  // which also hands the rows over already in customer order for the grouping.
  const from = invoicesFrom(filters.search?.trim() || filters.labels?.length ? 'rows' : 'customer', 'invoices_due');
  const count = withCount ? (prepared(sqlite, `SELECT count(DISTINCT i.customer_id) FROM ${from} WHERE ${where.text}`).pluck().get(...where.params) as number) : null;
  const key = GROUP_AGGREGATE[sort];
  const keyset = after ? `WHERE ${afterPosition(key, 'g.customer_id', dir)}` : '';
  const sums = bucketSums(today);
  const rows = prepared(
    sqlite,
    `SELECT g.*, t.customer_name FROM (
       SELECT i.customer_id, count(*) AS invoice_count, sum(i.total_amount) AS total_amount, sum(CASE WHEN i.closing_reason IS NULL THEN i.balance ELSE 0 END) AS balance,
              min(i.due_date) AS oldest_due_date, ${sums.text}
       FROM ${from} WHERE ${where.text} GROUP BY i.customer_id
     ) g JOIN customer_invoice_totals t ON t.company_id = ? AND t.customer_id = g.customer_id
     ${keyset} ORDER BY ${key} ${dir}, g.customer_id ${dir} LIMIT ?`,
  ).all(...sums.params, ...where.params, companyId, ...(after ? [after.key, after.id] : []), limit + 1) as Array<GroupTotals & GroupBuckets>;
  return { totals: rows, buckets: new Map(rows.map((r) => [r.customer_id, r])), count };
}

type CustomerInfo = { id: string; ar_owner: string | null; is_person: number; currency: string };

function customerInfo(sqlite: Sqlite, companyId: string, ids: string[]): Map<string, CustomerInfo> {
  const rows = prepared(
    sqlite,
    `SELECT c.id, t.name AS ar_owner, c.is_person, c.currency FROM customers c LEFT JOIN team_members t ON t.id = c.ar_owner_id
     WHERE c.id IN (SELECT value FROM json_each(?)) AND +c.company_id = ?`,
  ).all(jsonList(ids), companyId) as CustomerInfo[];
  return new Map(rows.map((r) => [r.id, r]));
}
