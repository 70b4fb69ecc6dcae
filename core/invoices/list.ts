/**
 * GET .../invoices: filtered, sorted, keyset-paged invoices (or customer groups), with the count
 * and facets on the first page only.
 */
import { timestamp } from '../clock';
import { workingDate } from '../companies/as-of';
import { type AttentionEvents, attentionEvents, attentionNotes, EVENT_TIER, worklistKey } from './attention';
import type { Engine } from '../engine';
import { ValidationError } from '../errors';
import { type CursorPosition, decodeCursor, encodeCursor, queryFingerprint } from './cursor';
import { attentionCountAndFacets, countAndFacets, type Facets } from './facets';
import { type Access, addStatusClause, baseWhere, type FollowUpWindow, type InvoiceFilters, invoicesFrom, narrowAccess, rowStatuses, searchSets, type SqlPart, type Where } from './filters';
import { type CustomerGroupRow, groupPage } from './groups';
import { prepared } from '../db/statements';
import { jsonList, readSnapshot, type Sqlite } from './reader';
import { type InvoiceItem, type InvoiceRow, ITEM_COLUMNS, toItems } from './shape';
import { afterPosition, flipDir, type OrderKey, SORT_COLUMN, SORT_INDEX, type SortDir, type SortKey, sortKeyType } from './sort';
import type { AgingBucket, InvoiceStatus, StatusValue } from './status';

export const DEFAULT_LIMIT = 30;
export const MAX_LIMIT = 500;

export interface InvoiceListQuery {
  filters: InvoiceFilters;
  /** Only the worklist (My work): see attention.ts. */
  attention?: boolean;
  groupBy?: 'customer';
  groupMode?: 'children';
  sort: OrderKey;
  order: SortDir;
  /** Already at least 1; clamped to MAX_LIMIT here. */
  limit?: number;
  cursor?: string;
}

/** The active filters as the request named them, plus the company and the effective sort. */
export interface AppliedFilters {
  company_id: string;
  status?: StatusValue[];
  aging_bucket?: AgingBucket[];
  customer_id?: string;
  due_date_from?: string;
  due_date_to?: string;
  overdue_only?: boolean;
  search?: string;
  ar_owner?: string;
  sales_owner?: string;
  is_person?: boolean;
  labels?: string[];
  hide_zero_balance?: boolean;
  follow_up?: FollowUpWindow[];
  attention?: boolean;
  group_by?: 'customer';
  group_mode?: 'children';
  sort: OrderKey;
  order: SortDir;
}

export interface InvoiceListEnvelope {
  count?: number;
  facets?: Facets;
  limit: number;
  has_more: boolean;
  next_cursor: string | null;
  applied_filters: AppliedFilters;
  items: Array<InvoiceItem | CustomerGroupRow>;
}

function appliedFilters(companyId: string, q: InvoiceListQuery): AppliedFilters {
  const f = q.filters;
  const out: AppliedFilters = { company_id: companyId, sort: q.sort, order: q.order };
  if (f.status?.length) out.status = f.status;
  if (f.agingBucket?.length) out.aging_bucket = f.agingBucket;
  if (f.customerId) out.customer_id = f.customerId;
  if (f.dueDateFrom) out.due_date_from = f.dueDateFrom;
  if (f.dueDateTo) out.due_date_to = f.dueDateTo;
  if (f.overdueOnly !== undefined) out.overdue_only = f.overdueOnly;
  if (f.search?.trim()) out.search = f.search.trim();
  if (f.arOwner) out.ar_owner = f.arOwner;
  if (f.salesOwner) out.sales_owner = f.salesOwner;
  if (f.isPerson !== undefined) out.is_person = f.isPerson;
  if (f.labels?.length) out.labels = f.labels;
  if (f.hideZeroBalance !== undefined) out.hide_zero_balance = f.hideZeroBalance;
  if (f.followUp?.length) out.follow_up = f.followUp;
  if (q.attention) out.attention = true;
  if (q.groupBy) out.group_by = q.groupBy;
  if (q.groupMode) out.group_mode = q.groupMode;
  return out;
}

function checkQuery(q: InvoiceListQuery): void {
  if (q.groupMode && q.groupBy !== 'customer') {
    throw new ValidationError('group_mode=children is used with group_by=customer', { group_mode: ['requires group_by=customer'] });
  }
  if (q.groupMode === 'children' && !q.filters.customerId) {
    throw new ValidationError('group_mode=children needs the parent customer in customer_id', { customer_id: ['required with group_mode=children'] });
  }
  const grouped = q.groupBy === 'customer' && q.groupMode !== 'children';
  if (q.sort === 'attention' && (!q.attention || grouped)) {
    throw new ValidationError('sort=attention orders the worklist: it needs attention=true and no group_by', { sort: ['attention needs attention=true, without group_by=customer'] });
  }
  if (q.sort === 'overdue_balance' && !grouped) {
    throw new ValidationError('sort=overdue_balance orders customer groups', { sort: ['overdue_balance needs group_by=customer'] });
  }
  if (q.filters.dueDateFrom && q.filters.dueDateTo && q.filters.dueDateFrom > q.filters.dueDateTo) {
    throw new ValidationError('due_date_from is after due_date_to', { due_date_from: ['must be on or before due_date_to'] });
  }
}

/**
 * From this many matching invoices on, a page walks the sort index and tests each row: at most
 * about limit x total / matches rows are visited. Below it, the page collects the matching rows
 * through the narrowest filter's index and sorts them.
 */
const WALK_FROM = 5000;

const PLANS: readonly string[] = ['sort', 'customer', 'rows', 'due', 'follow_up', 'attention'] satisfies ReadonlyArray<Access | 'attention'>;
const GROUP_PLANS = ['groups'] as const;

/**
 * The order the rows are read in. Customer groups read days past due as the oldest due date the
 * other way round; invoices have their own walk (tieredPage), since a closed invoice is 0 days
 * past due whatever its due date.
 */
function physicalOrder(sort: OrderKey, dir: SortDir, grouped: boolean): { sort: OrderKey; dir: SortDir } {
  return sort === 'days_past_due' && grouped ? { sort: 'due_date', dir: flipDir(dir) } : { sort, dir };
}

export async function listInvoices(engine: Engine, companyId: string, q: InvoiceListQuery): Promise<InvoiceListEnvelope> {
  checkQuery(q);
  // The company's as-of date when set: a stale ledger's invoices age from its last activity.
  const today = workingDate(engine, companyId);
  const now = timestamp(engine.clock);
  const limit = Math.min(q.limit ?? DEFAULT_LIMIT, MAX_LIMIT);
  const applied = appliedFilters(companyId, q);
  // The cursor belongs to the filters and sort (not the page size, which may change between pages).
  const fingerprint = queryFingerprint({ ...applied, company_id: undefined });
  const grouped = q.groupBy === 'customer' && q.groupMode !== 'children';
  const plans = grouped ? GROUP_PLANS : TIERED[q.sort] ? TIERED_PLANS : PLANS;
  const after = q.cursor ? decodeCursor(engine.secrets, companyId, fingerprint, sortKeyType(q.sort), plans, q.cursor) : null;
  const order = physicalOrder(q.sort, q.order, grouped);

  return readSnapshot(engine, (sqlite) => {
    const events = q.attention ? attentionEvents(sqlite, companyId, today, now) : null;
    const filters: InvoiceFilters = { ...q.filters, today, ...(events ? { attention: { eventIds: [...events.byInvoice.keys()] } } : {}) };
    const summary = after ? null : filters.attention ? attentionCountAndFacets(sqlite, companyId, filters, today) : countAndFacets(sqlite, companyId, filters, today);
    let items: Array<InvoiceItem | CustomerGroupRow>;
    let hasMore: boolean;
    let last: CursorPosition | null;
    let count = summary?.count;
    if (grouped) {
      const page = groupPage(sqlite, { companyId, filters, sort: order.sort as SortKey | 'overdue_balance', dir: order.dir, limit, after, today, withCount: !after });
      items = page.rows;
      hasMore = page.hasMore;
      last = page.last ? { ...page.last, plan: 'groups' } : null;
      if (page.count !== null) count = page.count;
    } else {
      const statuses = rowStatuses(filters);
      // A walk of an index tests each row; any other access drives by the narrow set's row ids.
      const whereFor = (walk: boolean, customerBound?: SqlPart) => {
        const where = baseWhere(companyId, filters, walk ? 'membership' : 'rowids', customerBound);
        addStatusClause(where, 'i', statuses, today);
        return where;
      };
      let rows: InvoiceRow[];
      // The access this page used, sealed in the cursor so the next pages keep it.
      let access = 'walk';
      if (order.sort === 'attention') {
        rows = worklistPage(sqlite, whereFor(false), events!, after, limit + 1, today);
      } else if (TIERED[order.sort]) {
        const narrow = narrowAccess(filters, statuses);
        const tierAccess = after ? (after.plan.split(':')[0] as (typeof TIER_ACCESS)[number]) : narrow && summary!.count < WALK_FROM ? narrow : 'walk';
        access = tierAccess;
        rows = tieredPage(sqlite, whereFor(tierAccess === 'walk'), order.sort, order.dir, tierAccess === 'walk' ? null : tierAccess, after, limit + 1);
      } else {
        const sort = order.sort as SortKey;
        const narrow = narrowAccess(filters, statuses);
        const plan = (after?.plan as Access | undefined) ?? (narrow && summary!.count < WALK_FROM ? narrow : 'sort');
        access = plan;
        const bound = plan === 'rows' ? pageBound(sqlite, companyId, filters, statuses, SORT_COLUMN[sort], order.dir, after, limit + 1, today) : undefined;
        const where = whereFor(plan === 'sort', bound);
        const column = `i.${SORT_COLUMN[sort]}`;
        if (after) where.add(afterPosition(column, 'i.id', order.dir), after.key, after.id);
        const columns = ITEM_COLUMNS.map((c) => `i.${c}`).join(', ');
        const orderBy = `ORDER BY ${column} ${order.dir}, i.id ${order.dir}`;
        const matching = `FROM ${invoicesFrom(plan, SORT_INDEX[sort])} WHERE ${where.text} ${orderBy} LIMIT ?`;
        // A narrow set is sorted whole: its sort carries only the keys, and only the page's rows are read whole.
        const text = plan === 'sort' ? `SELECT ${columns} ${matching}` : `SELECT ${columns} FROM invoices i WHERE i.seq IN (SELECT i.seq ${matching}) ${orderBy}`;
        rows = prepared(sqlite, text).all(...where.params, limit + 1) as InvoiceRow[];
      }
      hasMore = rows.length > limit;
      const pageRows = rows.slice(0, limit);
      items = toItems(sqlite, companyId, pageRows, today);
      if (events) (items as InvoiceItem[]).forEach((item, n) => (item.attention = attentionNotes(events, pageRows[n])));
      const lastRow = pageRows[pageRows.length - 1];
      last = lastRow ? positionOf(lastRow, order.sort, events, access) : null;
    }
    const envelope: InvoiceListEnvelope = {
      ...(summary ? { count, facets: summary.facets } : {}),
      limit,
      has_more: hasMore,
      next_cursor: hasMore && last ? encodeCursor(engine.secrets, companyId, fingerprint, last) : null,
      applied_filters: applied,
      items,
    };
    return envelope;
  });
}

/** Sort columns the customer index (company_id, customer_id, due_date, closing_reason, balance, total_amount) covers. */
const CUSTOMER_INDEX_KEYS = new Set(['due_date', 'total_amount']);

/**
 * A searched page collected by row id reads every matching invoice to sort them: for a broad name
 * (thousands of invoices) that is most of the request. The matching customers' invoices that pass
 * the other filters (and lie strictly past the cursor's key) are some of the matches, so the
 * take-th key among them, read from the covering customer index, bounds the keys of the page:
 * only those customers' invoices on the page's side of it are read. Null when fewer than `take`.
 */
function pageBound(
  sqlite: Sqlite,
  companyId: string,
  filters: InvoiceFilters,
  statuses: Set<InvoiceStatus>,
  column: string,
  dir: SortDir,
  after: CursorPosition | null,
  take: number,
  today: string,
): SqlPart | undefined {
  const term = filters.search?.trim();
  if (!term || filters.labels?.length || filters.followUp?.length || filters.attention || !CUSTOMER_INDEX_KEYS.has(column)) return undefined;
  const { customers } = searchSets(companyId, term);
  const where = baseWhere(companyId, { ...filters, search: undefined });
  addStatusClause(where, 'i', statuses, today);
  where.add(`i.customer_id IN (${customers.text})`, ...customers.params);
  if (after) where.add(`i.${column} ${dir === 'desc' ? '<' : '>'} ?`, after.key);
  const row = prepared(sqlite, `SELECT i.${column} AS key FROM invoices i INDEXED BY invoices_customer WHERE ${where.text} ORDER BY i.${column} ${dir} LIMIT 1 OFFSET ?`).get(
    ...where.params,
    take - 1,
  ) as { key: string | number } | undefined;
  return row ? { text: `s.${column} ${dir === 'desc' ? '>=' : '<='} ?`, params: [row.key] } : undefined;
}

function positionOf(row: InvoiceRow, sort: OrderKey, events: AttentionEvents | null, plan: string): CursorPosition {
  if (sort === 'attention') return { key: worklistKey(events!.byInvoice.get(row.id) ?? [], row.balance), id: row.id, plan: 'attention' };
  const tiered = TIERED[sort];
  if (tiered) return { key: row[tiered.column], id: row.id, plan: `${plan}:${tierOf(row)}` };
  return { key: row[SORT_COLUMN[sort as SortKey] as keyof InvoiceRow] as string | number, id: row.id, plan };
}

/**
 * The worklist in its order: first the invoices with a pressing event (a small set, read by id),
 * then the others (past due, or with a routine event), walking the balance index from the largest
 * balance down.
 */
function worklistPage(sqlite: Sqlite, where: Where, events: AttentionEvents, after: CursorPosition | null, take: number, today: string): InvoiceRow[] {
  const columns = ITEM_COLUMNS.map((c) => `i.${c}`).join(', ');
  const pressingIds = jsonList([...events.pressing]);
  const routineIds = jsonList([...events.byInvoice.keys()].filter((id) => !events.pressing.has(id)));
  const rows: InvoiceRow[] = [];
  const inEvents = after === null || (after.key as number) >= EVENT_TIER;
  if (inEvents) {
    const keyset = after ? ` AND ${afterPosition('i.balance', 'i.id', 'desc')}` : '';
    rows.push(
      ...(prepared(
        sqlite,
        `SELECT ${columns} FROM invoices i WHERE ${where.text} AND i.id IN (SELECT value FROM json_each(?))${keyset}
         ORDER BY i.balance DESC, i.id DESC LIMIT ?`,
      ).all(...where.params, pressingIds, ...(after ? [(after.key as number) - EVENT_TIER, after.id] : []), take) as InvoiceRow[]),
    );
  }
  if (rows.length < take) {
    const keyset = after && !inEvents ? ` AND ${afterPosition('i.balance', 'i.id', 'desc')}` : '';
    rows.push(
      ...(prepared(
        sqlite,
        `SELECT ${columns} FROM invoices i INDEXED BY invoices_balance
         WHERE ${where.text} AND i.closing_reason IS NULL AND ((i.balance > 0 AND i.due_date < ?) OR i.id IN (SELECT value FROM json_each(?)))
           AND i.id NOT IN (SELECT value FROM json_each(?))${keyset}
         ORDER BY i.balance DESC, i.id DESC LIMIT ?`,
      ).all(...where.params, today, routineIds, pressingIds, ...(after && !inEvents ? [after.key, after.id] : []), take - rows.length) as InvoiceRow[]),
    );
  }
  return rows;
}

/**
 * Orders where a closed invoice counts as 0 whatever its stored value (the closed-invoice balance
 * rule): days past due and balance. Open invoices come first for desc (most days, largest open
 * balance), then the closed ones; asc is the exact reverse. Each tier is one keyset walk of an
 * index, or of the narrow filter's rows when few match; the cursor's plan names both.
 */
const TIERED: Partial<Record<OrderKey, { column: 'due_date' | 'balance'; openIndex: string; closedIndex: string; flip: boolean }>> = {
  // Most days past due is the earliest due date.
  days_past_due: { column: 'due_date', openIndex: 'invoices_open_due', closedIndex: 'invoices_due', flip: true },
  balance: { column: 'balance', openIndex: 'invoices_balance', closedIndex: 'invoices_balance', flip: false },
};
const TIERS = ['open', 'closed'] as const;
type Tier = (typeof TIERS)[number];
const TIER_ACCESS = ['walk', 'customer', 'rows', 'due', 'follow_up'] as const;
const TIERED_PLANS = TIER_ACCESS.flatMap((a) => TIERS.map((t) => `${a}:${t}`));

function tierOf(row: Pick<InvoiceRow, 'closing_reason'>): Tier {
  return row.closing_reason ? 'closed' : 'open';
}

function tieredPage(
  sqlite: Sqlite,
  where: Where,
  sort: OrderKey,
  dir: SortDir,
  access: Exclude<Access, 'sort'> | null,
  after: CursorPosition | null,
  take: number,
): InvoiceRow[] {
  const spec = TIERED[sort]!;
  const columns = ITEM_COLUMNS.map((c) => `i.${c}`).join(', ');
  const tiers: Tier[] = dir === 'desc' ? ['open', 'closed'] : ['closed', 'open'];
  const columnDir = spec.flip ? flipDir(dir) : dir;
  const afterTier = after ? (after.plan.split(':')[1] as Tier) : null;
  const rows: InvoiceRow[] = [];
  for (const tier of tiers.slice(afterTier ? tiers.indexOf(afterTier) : 0)) {
    if (rows.length >= take) break;
    const keyset = after && tier === afterTier ? ` AND ${afterPosition(`i.${spec.column}`, 'i.id', columnDir)}` : '';
    const from = access ? invoicesFrom(access, 'invoices_due') : `invoices i INDEXED BY ${tier === 'open' ? spec.openIndex : spec.closedIndex}`;
    const state = tier === 'open' ? 'i.closing_reason IS NULL' : 'i.closing_reason IS NOT NULL';
    rows.push(
      ...(prepared(sqlite, `SELECT ${columns} FROM ${from} WHERE ${where.text} AND ${state}${keyset} ORDER BY i.${spec.column} ${columnDir}, i.id ${columnDir} LIMIT ?`).all(
        ...where.params,
        ...(keyset ? [after!.key, after!.id] : []),
        take - rows.length,
      ) as InvoiceRow[]),
    );
  }
  return rows;
}
