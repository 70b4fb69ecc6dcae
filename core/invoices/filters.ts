/**
 * The invoice list's filters: which statuses they allow, and the SQL WHERE they become.
 * Status, aging bucket and overdue_only are all questions about the status, so they reduce to one
 * set of concrete statuses; a set of open statuses is a range of due dates, which the due-date
 * indexes (and invoice_due_totals) answer without looking at each row.
 */
import { addDays } from '../dates';
import {
  type AgingBucket,
  CLOSED_STATUS,
  CONCRETE_STATUSES,
  type DueRange,
  dueRangeOfOpenStatus,
  expandStatus,
  type InvoiceStatus,
  type OpenStatus,
  PAST_DUE_STATUSES,
  type StatusValue,
  statusesOfBucket,
  statusThresholds,
} from './status';

export interface InvoiceFilters {
  status?: StatusValue[];
  agingBucket?: AgingBucket[];
  customerId?: string;
  dueDateFrom?: string;
  dueDateTo?: string;
  overdueOnly?: boolean;
  search?: string;
  arOwner?: string;
  salesOwner?: string;
  isPerson?: boolean;
  labels?: string[];
  hideZeroBalance?: boolean;
  /** Open invoices whose follow-up date falls in any of these windows. */
  followUp?: FollowUpWindow[];
  /** The worklist (My work): open and past due with a balance, or one of these invoices with an event today. */
  attention?: { eventIds: string[] };
  /** Today, for the filters relative to it (follow-up windows, the worklist); set by the list. */
  today?: string;
}

export const FOLLOW_UP_WINDOWS = ['overdue', 'today', 'this_week'] as const;
export type FollowUpWindow = (typeof FOLLOW_UP_WINDOWS)[number];

/**
 * The follow-up dates of a window: overdue is before today, today is today, this_week is today
 * through the coming Sunday (weeks start on Monday).
 */
export function followUpRange(window: FollowUpWindow, today: string): DueRange {
  switch (window) {
    case 'overdue':
      return { from: null, to: addDays(today, -1) };
    case 'today':
      return { from: today, to: today };
    case 'this_week': {
      const weekday = (new Date(`${today}T00:00:00Z`).getUTCDay() + 6) % 7;
      return { from: today, to: addDays(today, 6 - weekday) };
    }
  }
}

const OPEN_STATUSES: OpenStatus[] = ['current', ...PAST_DUE_STATUSES];
const CLOSING_OF: Partial<Record<InvoiceStatus, string>> = Object.fromEntries(Object.entries(CLOSED_STATUS).map(([reason, status]) => [status, reason]));

/**
 * The statuses the facets range over: every filter except `status` itself narrows them, so each
 * facet says what choosing that status would give.
 */
export function facetStatuses(filters: InvoiceFilters): Set<InvoiceStatus> {
  let allowed = new Set<InvoiceStatus>(CONCRETE_STATUSES);
  if (filters.agingBucket?.length) {
    const inBuckets = new Set(filters.agingBucket.flatMap(statusesOfBucket));
    allowed = new Set([...allowed].filter((s) => inBuckets.has(s)));
  }
  if (filters.overdueOnly) {
    allowed = new Set([...allowed].filter((s) => (PAST_DUE_STATUSES as readonly string[]).includes(s)));
  }
  return allowed;
}

/** The statuses the rows may have: the facet statuses narrowed by the status filter. */
export function rowStatuses(filters: InvoiceFilters): Set<InvoiceStatus> {
  const base = facetStatuses(filters);
  if (!filters.status?.length) return base;
  const chosen = new Set(filters.status.flatMap(expandStatus));
  return new Set([...base].filter((s) => chosen.has(s)));
}

/** Invoice-level filters that only invoice_due_totals' columns (due date, state, zero or not) decide. */
export function answeredByDueTotals(filters: InvoiceFilters): boolean {
  return !filters.followUp?.length && !filters.attention && !filters.customerId && !filters.search && !filters.arOwner && !filters.salesOwner && filters.isPerson === undefined && !filters.labels?.length;
}

/** Filters that pick whole customers, so a customer's group totals stay those of all its invoices. */
export function onlyCustomerFilters(filters: InvoiceFilters): boolean {
  return (
    !filters.status?.length &&
    !filters.agingBucket?.length &&
    !filters.dueDateFrom &&
    !filters.dueDateTo &&
    !filters.overdueOnly &&
    !filters.search &&
    !filters.labels?.length &&
    !filters.hideZeroBalance &&
    !filters.followUp?.length &&
    !filters.attention
  );
}

function todayOf(filters: InvoiceFilters): string {
  if (!filters.today) throw new Error('date-relative invoice filters need filters.today');
  return filters.today;
}

/** Minimum characters for the trigram index; shorter terms fall back to LIKE. */
export const TRIGRAM_MIN = 3;

export class Where {
  readonly clauses: string[] = [];
  readonly params: unknown[] = [];

  add(clause: string, ...params: unknown[]): this {
    this.clauses.push(clause);
    this.params.push(...params);
    return this;
  }

  get text(): string {
    return this.clauses.length ? this.clauses.join(' AND ') : '1';
  }
}

/** Merges adjacent or overlapping inclusive due ranges (dates compare as strings). */
function mergeRanges(ranges: DueRange[]): DueRange[] {
  const sorted = [...ranges].sort((a, b) => (a.from ?? '').localeCompare(b.from ?? ''));
  const out: DueRange[] = [];
  for (const r of sorted) {
    const last = out[out.length - 1];
    if (last && (last.to === null || r.from === null || r.from <= nextDay(last.to))) {
      if (last.to !== null && (r.to === null || r.to > last.to)) last.to = r.to;
    } else {
      out.push({ ...r });
    }
  }
  return out;
}

function nextDay(date: string): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
}

function rangeSql(alias: string, r: DueRange, where: Where, column = 'due_date'): string {
  const parts: string[] = [];
  if (r.from !== null) {
    parts.push(`${alias}.${column} >= ?`);
    where.params.push(r.from);
  }
  if (r.to !== null) {
    parts.push(`${alias}.${column} <= ?`);
    where.params.push(r.to);
  }
  return parts.length ? parts.join(' AND ') : '1';
}

/** The WHERE for a set of statuses. Open-only sets also bound due_date directly, for the index. */
export function addStatusClause(where: Where, alias: string, statuses: Set<InvoiceStatus>, today: string): void {
  if (statuses.size === CONCRETE_STATUSES.length) return;
  if (statuses.size === 0) {
    where.add('0');
    return;
  }
  const open = OPEN_STATUSES.filter((s) => statuses.has(s));
  const closing = [...statuses].map((s) => CLOSING_OF[s]).filter((r): r is string => !!r);
  const ranges = mergeRanges(open.map((s) => dueRangeOfOpenStatus(s, today)));
  if (closing.length === 0) {
    where.add(`${alias}.closing_reason IS NULL`);
    if (ranges.length === 1) {
      where.clauses.push(rangeSql(alias, ranges[0], where));
    } else {
      const hull: DueRange = { from: ranges.some((r) => r.from === null) ? null : ranges[0].from, to: ranges.some((r) => r.to === null) ? null : ranges[ranges.length - 1].to };
      where.clauses.push(rangeSql(alias, hull, where));
      where.clauses.push(`(${ranges.map((r) => `(${rangeSql(alias, r, where)})`).join(' OR ')})`);
    }
    return;
  }
  const parts: string[] = [];
  if (open.length === OPEN_STATUSES.length) parts.push(`${alias}.closing_reason IS NULL`);
  else if (open.length) parts.push(`(${alias}.closing_reason IS NULL AND (${ranges.map((r) => `(${rangeSql(alias, r, where)})`).join(' OR ')}))`);
  parts.push(`${alias}.closing_reason IN (${closing.map(() => '?').join(', ')})`);
  where.params.push(...closing);
  where.clauses.push(`(${parts.join(' OR ')})`);
}

/** A trigram MATCH phrase: the term quoted, so its characters are matched as a substring. */
export function matchPhrase(term: string): string {
  return `"${term.replace(/"/g, '""')}"`;
}

export function likePattern(term: string): string {
  return `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export interface SqlPart {
  text: string;
  params: unknown[];
}

/**
 * What a search term matches: invoices by number (row ids) and customers by name (ids); a search
 * finds both the numbers and every invoice of those customers. The trigram indexes need 3
 * characters; shorter terms scan the number index and the customer names (slower, documented).
 */
export function searchSets(companyId: string, term: string): { numbers: SqlPart; customers: SqlPart } {
  if ([...term].length >= TRIGRAM_MIN) {
    return {
      numbers: { text: 'SELECT rowid FROM invoice_number_fts WHERE invoice_number_fts MATCH ?', params: [matchPhrase(term)] },
      customers: {
        text: 'SELECT c.id FROM customers c NOT INDEXED WHERE c.rowid IN (SELECT rowid FROM customer_name_fts WHERE customer_name_fts MATCH ?) AND c.company_id = ?',
        params: [matchPhrase(term), companyId],
      },
    };
  }
  return {
    numbers: { text: `SELECT n.seq FROM invoices n INDEXED BY invoices_number WHERE n.company_id = ? AND n.invoice_number LIKE ? ESCAPE '\\'`, params: [companyId, likePattern(term)] },
    customers: { text: `SELECT c.id FROM customers c INDEXED BY customers_company_name WHERE c.name LIKE ? ESCAPE '\\' AND c.company_id = ?`, params: [likePattern(term), companyId] },
  };
}

/**
 * How a search is written: as the set of row ids it matches (to drive a query by rowid), or as a
 * test of each row's customer and row id (for a walk of another index, which then never builds
 * the whole set: a broad term's set is tens of thousands of rows).
 */
export type SearchForm = 'rowids' | 'membership';

/**
 * Every filter except the status set (added by the caller: the row statuses for pages, the facet
 * statuses for facets), on the invoices alias `i`. Labels become a set of row ids, so they can
 * drive a query by rowid or be checked against a walk of another index; search as `searchForm` says.
 * `customerBound` (on the alias `s` of the customer index) narrows the row ids of the matching
 * customers' invoices to those a page can still need (see pageBound in list.ts).
 */
export function baseWhere(companyId: string, filters: InvoiceFilters, searchForm: SearchForm = 'rowids', customerBound?: SqlPart): Where {
  const where = new Where().add('i.company_id = ?', companyId);
  if (filters.customerId) where.add('i.customer_id = ?', filters.customerId);
  if (filters.dueDateFrom) where.add('i.due_date >= ?', filters.dueDateFrom);
  if (filters.dueDateTo) where.add('i.due_date <= ?', filters.dueDateTo);
  // The closed-invoice balance rule (shape.ts openBalance): a closed invoice's balance is 0.
  if (filters.overdueOnly) where.add('i.closing_reason IS NULL AND i.balance > 0');
  if (filters.hideZeroBalance) where.add('i.closing_reason IS NULL AND i.balance <> 0');
  if (filters.followUp?.length) {
    where.add('i.next_follow_up_date IS NOT NULL AND i.closing_reason IS NULL');
    const ranges = mergeRanges(filters.followUp.map((w) => followUpRange(w, todayOf(filters))));
    where.clauses.push(`(${ranges.map((r) => `(${rangeSql('i', r, where, 'next_follow_up_date')})`).join(' OR ')})`);
  }
  if (filters.attention) {
    where.add(
      `i.closing_reason IS NULL AND ((i.balance > 0 AND i.due_date < ?) OR i.id IN (SELECT value FROM json_each(?)))`,
      todayOf(filters),
      JSON.stringify(filters.attention.eventIds),
    );
  }
  const customers = customerSubquery(companyId, filters);
  if (customers) where.add(`i.customer_id IN (${customers.text})`, ...customers.params);
  if (filters.labels?.length) {
    where.add(
      `i.seq IN (SELECT x.seq FROM invoice_labels il JOIN invoices x ON x.id = il.invoice_id
        WHERE il.label_id IN (SELECT value FROM json_each(?)) AND il.company_id = ?)`,
      JSON.stringify(filters.labels),
      companyId,
    );
  }
  const term = filters.search?.trim();
  if (term) {
    const sets = searchSets(companyId, term);
    if (searchForm === 'membership') {
      where.add(`(i.customer_id IN (${sets.customers.text}) OR i.seq IN (${sets.numbers.text}))`, ...sets.customers.params, ...sets.numbers.params);
      return where;
    }
    where.add(
      `i.seq IN (${sets.numbers.text}
        UNION
        SELECT s.seq FROM invoices s INDEXED BY invoices_customer WHERE s.company_id = ?${customerBound ? ` AND ${customerBound.text}` : ''} AND s.customer_id IN (${sets.customers.text}))`,
      ...sets.numbers.params,
      companyId,
      ...(customerBound?.params ?? []),
      ...sets.customers.params,
    );
  }
  return where;
}

/**
 * How a query reaches its rows. SQLite's planner has no statistics on a freshly seeded or
 * imported database and then guesses badly at a million rows, so the list chooses itself:
 * - sort: walk the sort index in order and test each row (best when many rows match);
 * - customer: the customer index (one customer, an owner's customers, or a covering scan);
 * - rows: row ids of the search or label set;
 * - due: a due-date range of the due index.
 */
export type Access = 'sort' | 'customer' | 'rows' | 'due' | 'follow_up';

/** The narrowest index-backed set among the filters, or null when nothing narrows the rows. */
export function narrowAccess(filters: InvoiceFilters, statuses: Set<InvoiceStatus>): Exclude<Access, 'sort'> | null {
  if (filters.customerId) return 'customer';
  if (filters.search?.trim() || filters.labels?.length) return 'rows';
  if (filters.followUp?.length) return 'follow_up';
  if (customerSubquery('', filters)) return 'customer';
  const openOnly = [...statuses].every((s) => !CLOSING_OF[s]) && statuses.size < OPEN_STATUSES.length;
  if (filters.dueDateFrom || filters.dueDateTo || (openOnly && statuses.size > 0)) return 'due';
  return null;
}

/** The FROM clause that pins the access path (the sort index is named by the caller). */
export function invoicesFrom(access: Access, sortIndex: string): string {
  switch (access) {
    case 'sort':
      return `invoices i INDEXED BY ${sortIndex}`;
    case 'customer':
      return 'invoices i INDEXED BY invoices_customer';
    case 'rows':
      return 'invoices i NOT INDEXED';
    case 'due':
      return 'invoices i INDEXED BY invoices_due';
    case 'follow_up':
      return 'invoices i INDEXED BY invoices_follow_up';
  }
}

/** The owner and person filters as a subquery of customer ids, or null without them. */
export function customerSubquery(companyId: string, filters: InvoiceFilters): { text: string; params: unknown[] } | null {
  const customer = new Where();
  if (filters.arOwner) customer.add('c.ar_owner_id = ?', filters.arOwner);
  if (filters.salesOwner) customer.add('c.sales_owner_id = ?', filters.salesOwner);
  if (filters.isPerson !== undefined) customer.add('c.is_person = ?', filters.isPerson ? 1 : 0);
  if (!customer.clauses.length) return null;
  return { text: `SELECT c.id FROM customers c WHERE c.company_id = ? AND ${customer.text}`, params: [companyId, ...customer.params] };
}

/** The status of each row in SQL, for grouping facets in the database. */
export function statusCaseSql(alias: string, today: string): { text: string; params: string[] } {
  const t = statusThresholds(today);
  return {
    text: `CASE WHEN ${alias}.closing_reason IS NOT NULL THEN 'closed_' || ${alias}.closing_reason
      WHEN ${alias}.due_date >= ? THEN 'current' WHEN ${alias}.due_date >= ? THEN 'past_due_1_30'
      WHEN ${alias}.due_date >= ? THEN 'past_due_31_60' WHEN ${alias}.due_date >= ? THEN 'past_due_61_90' ELSE 'past_due_90p' END`,
    params: [t.today, t.d30, t.d60, t.d90],
  };
}
