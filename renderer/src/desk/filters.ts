import type { QueryOf } from '../api/client';

/** The invoice list API's query, as the generated types describe it. */
export type InvoiceQuery = QueryOf<'/api/companies/{company_id}/invoices'>;

/**
 * The invoice desk's filter state. The URL query holds it (so a view is a bookmark), with the
 * same names and values as the invoice list API, which keeps the mapping trivial and saved views
 * readable. Pure functions: unit-tested directly.
 */

// Status and bucket values and labels come from the core's rules: one source for both sides.
import { FOLLOW_UP_WINDOWS, type FollowUpWindow } from '../../../core/invoices/filters';
import { AGING_BUCKET_LABELS, AGING_BUCKETS, type AgingBucket, STATUS_LABELS, STATUS_VALUES, type StatusValue } from '../../../core/invoices/status';

export const STATUSES = STATUS_VALUES;
export type Status = StatusValue;
export const BUCKETS = AGING_BUCKETS;
export type Bucket = AgingBucket;
export const BUCKET_LABELS = AGING_BUCKET_LABELS;
export { STATUS_LABELS };

export { FOLLOW_UP_WINDOWS, type FollowUpWindow };

/** The follow-up choices of the toolbar: one window, or overdue and today together ("due"). */
export const FOLLOW_UP_CHOICES: Array<{ value: string; label: string }> = [
  { value: '', label: 'Any follow-up' },
  { value: 'overdue,today', label: 'Follow-up due' },
  { value: 'overdue', label: 'Follow-up overdue' },
  { value: 'today', label: 'Follow-up today' },
  { value: 'this_week', label: 'Follow-up this week' },
];

/**
 * Orders the user can pick (header clicks). '' is the view's own order: My work's (events
 * first, then by balance), by overdue balance when grouped by customer, else by due date.
 */
export const SORTS = ['due_date', 'balance', 'amount', 'customer_name', 'days_past_due', 'overdue_balance'] as const satisfies ReadonlyArray<NonNullable<QueryOf<'/api/companies/{company_id}/invoices'>['sort']>>;
export type SortKey = (typeof SORTS)[number];
export type Order = 'asc' | 'desc';

export interface DeskFilters {
  /** My work (attention=true): only what needs the collector today. False: every invoice. */
  work: boolean;
  status: Status[];
  aging_bucket: Bucket[];
  due_date_from: string;
  due_date_to: string;
  /** 'me' (the default: my portfolio), '' (everyone) or a team member id. */
  ar_owner: string;
  sales_owner: string;
  labels: string[];
  /** '' both, 'true' persons only, 'false' companies only. */
  is_person: '' | 'true' | 'false';
  overdue_only: boolean;
  hide_zero_balance: boolean;
  search: string;
  customer_id: string;
  follow_up: FollowUpWindow[];
  sort: SortKey | '';
  order: Order;
  group_by: '' | 'customer';
}

export const DEFAULT_FILTERS: DeskFilters = {
  work: true,
  status: [],
  aging_bucket: [],
  due_date_from: '',
  due_date_to: '',
  ar_owner: 'me',
  sales_owner: '',
  labels: [],
  is_person: '',
  overdue_only: false,
  hide_zero_balance: false,
  search: '',
  customer_id: '',
  follow_up: [],
  sort: '',
  order: 'desc',
  group_by: '',
};

/** Every invoice of one customer, whoever owns it (the customer page). */
export function customerFilters(customerId: string): DeskFilters {
  return { ...DEFAULT_FILTERS, work: false, ar_owner: '', customer_id: customerId };
}

const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function list<T extends string>(value: string | null, allowed: readonly T[]): T[] {
  if (!value) return [];
  const seen = new Set<T>();
  for (const part of value.split(',')) if ((allowed as readonly string[]).includes(part)) seen.add(part as T);
  return [...seen];
}

function uuids(value: string | null): string[] {
  return value ? [...new Set(value.split(',').filter((v) => UUID_RE.test(v)))] : [];
}

function bool(value: string | null): boolean {
  return value === 'true' || value === '1';
}

/**
 * Reads filters from a URL query. Values the API would refuse (an unknown status, a malformed
 * date) are dropped, so a hand-edited or stale bookmark still opens.
 */
export function parseFilters(search: string): DeskFilters {
  const q = new URLSearchParams(search);
  let sort = q.get('sort') ?? '';
  let order: Order | null = q.get('order') === 'asc' ? 'asc' : q.get('order') === 'desc' ? 'desc' : null;
  const suffix = /^(.*)_(asc|desc)$/.exec(sort);
  if (suffix) {
    sort = suffix[1];
    order = suffix[2] as Order;
  }
  const date = (name: string) => {
    const v = q.get(name) ?? '';
    return DATE_RE.test(v) ? v : '';
  };
  const person = q.get('is_person');
  const owner = q.get('ar_owner') ?? '';
  const groupBy = q.get('group_by') === 'customer' ? 'customer' : '';
  const known = (SORTS as readonly string[]).includes(sort) && (sort !== 'overdue_balance' || groupBy === 'customer');
  return {
    work: q.get('view') !== 'all',
    status: list(q.get('status'), STATUSES),
    aging_bucket: list(q.get('aging_bucket'), BUCKETS),
    due_date_from: date('due_date_from'),
    due_date_to: date('due_date_to'),
    ar_owner: owner === 'all' ? '' : UUID_RE.test(owner) ? owner : 'me',
    sales_owner: UUID_RE.test(q.get('sales_owner') ?? '') ? q.get('sales_owner')! : '',
    labels: uuids(q.get('labels')),
    is_person: person === 'true' || person === 'false' ? person : '',
    overdue_only: bool(q.get('overdue_only')),
    hide_zero_balance: bool(q.get('hide_zero_balance')),
    search: (q.get('search') ?? '').slice(0, 200),
    customer_id: UUID_RE.test(q.get('customer_id') ?? '') ? q.get('customer_id')! : '',
    follow_up: list(q.get('follow_up'), FOLLOW_UP_WINDOWS),
    sort: known ? (sort as SortKey) : DEFAULT_FILTERS.sort,
    order: order ?? DEFAULT_FILTERS.order,
    group_by: groupBy,
  };
}

/** The order the API is asked for: the explicit one, else the view's (see SORTS). */
export function effectiveSort(f: DeskFilters): SortKey | 'attention' {
  if (f.sort) return f.sort;
  if (f.group_by) return 'overdue_balance';
  return f.work ? 'attention' : 'due_date';
}

/** The invoice list API's query for these filters (no paging). */
export function apiQuery(f: DeskFilters): InvoiceQuery {
  const q: InvoiceQuery = {};
  if (f.work) q.attention = true;
  if (f.status.length) q.status = f.status.join(',');
  if (f.aging_bucket.length) q.aging_bucket = f.aging_bucket.join(',');
  if (f.due_date_from) q.due_date_from = f.due_date_from;
  if (f.due_date_to) q.due_date_to = f.due_date_to;
  if (f.ar_owner) q.ar_owner = f.ar_owner;
  if (f.sales_owner) q.sales_owner = f.sales_owner;
  if (f.labels.length) q.labels = f.labels.join(',');
  if (f.is_person) q.is_person = f.is_person === 'true';
  if (f.overdue_only) q.overdue_only = true;
  if (f.hide_zero_balance) q.hide_zero_balance = true;
  if (f.search.trim()) q.search = f.search.trim();
  if (f.customer_id) q.customer_id = f.customer_id;
  if (f.follow_up.length) q.follow_up = f.follow_up.join(',');
  const sort = effectiveSort(f);
  if (sort !== 'due_date' && !(sort === 'attention' && !f.group_by)) q.sort = sort;
  if (f.order !== DEFAULT_FILTERS.order) q.order = f.order;
  if (f.group_by) q.group_by = f.group_by;
  return q;
}

/**
 * The URL query for these filters: only what differs from the defaults, in a stable order. The
 * API's names, except the view (view=all) and the owner (ar_owner=all for everyone), whose
 * defaults (My work, my portfolio) the API does not have.
 */
export function toSearch(f: DeskFilters): string {
  const params = new URLSearchParams();
  if (!f.work) params.set('view', 'all');
  if (f.ar_owner === '') params.set('ar_owner', 'all');
  const { attention: _work, ar_owner: owner, sort: _sort, ...rest } = apiQuery(f);
  if (owner && owner !== 'me') params.set('ar_owner', String(owner));
  for (const [name, value] of Object.entries(rest)) if (name !== 'order' && name !== 'group_by') params.set(name, String(value));
  if (f.sort) params.set('sort', f.sort);
  if (rest.order) params.set('order', String(rest.order));
  if (rest.group_by) params.set('group_by', String(rest.group_by));
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** How many filters (beyond sort and grouping) are active: shown on the filter button. */
export function activeFilterCount(f: DeskFilters): number {
  let n = 0;
  if (f.status.length) n++;
  if (f.aging_bucket.length) n++;
  if (f.due_date_from || f.due_date_to) n++;
  if (f.ar_owner && f.ar_owner !== 'me') n++;
  if (f.sales_owner) n++;
  if (f.labels.length) n++;
  if (f.is_person) n++;
  if (f.overdue_only) n++;
  if (f.hide_zero_balance) n++;
  if (f.customer_id) n++;
  if (f.follow_up.length) n++;
  return n;
}

/** Toggles one value in a multi-select list, keeping the canonical order of `all`. */
export function toggle<T extends string>(selected: readonly T[], value: T, all: readonly T[]): T[] {
  const next = selected.includes(value) ? selected.filter((v) => v !== value) : [...selected, value];
  return all.filter((v) => next.includes(v));
}

/** The reverse of a grid's column-of-sort map, so the two lookups always agree. */
export function sortOfColumn(columnOfSort: Partial<Record<SortKey, string>>): Record<string, SortKey> {
  return Object.fromEntries(Object.entries(columnOfSort).map(([sort, column]) => [column, sort])) as Record<string, SortKey>;
}

/**
 * The filters after a header click sorted `column` (`order` from the grid's column state), or null
 * when the column does not sort on the server or the sort did not change.
 */
export function withColumnSort(
  current: DeskFilters,
  sortByColumn: Record<string, SortKey>,
  column: { colId: string; sort?: string | null } | undefined,
): DeskFilters | null {
  const sort = column ? sortByColumn[column.colId] : undefined;
  if (!column || !sort) return null;
  const order = column.sort as Order;
  return current.sort === sort && current.order === order ? null : { ...current, sort, order };
}
