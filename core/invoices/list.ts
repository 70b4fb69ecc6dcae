/**
 * GET .../invoices: filtered, sorted, keyset-paged invoices (or customer groups), with the count
 * and facets on the first page only.
 */
import { today as todayOf } from '../clock';
import type { Engine } from '../engine';
import { ValidationError } from '../errors';
import { type CursorPosition, decodeCursor, encodeCursor, queryFingerprint } from './cursor';
import { countAndFacets, type Facets } from './facets';
import { type Access, addStatusClause, baseWhere, type InvoiceFilters, invoicesFrom, narrowAccess, rowStatuses } from './filters';
import { type CustomerGroupRow, groupPage } from './groups';
import { prepared, readSnapshot } from './reader';
import { type InvoiceItem, type InvoiceRow, ITEM_COLUMNS, toItems } from './shape';
import { afterPosition, SORT_COLUMN, SORT_INDEX, type SortDir, type SortKey, sortKeyType } from './sort';
import type { AgingBucket, StatusValue } from './status';

export const DEFAULT_LIMIT = 30;
export const MAX_LIMIT = 500;

export interface InvoiceListQuery {
  filters: InvoiceFilters;
  groupBy?: 'customer';
  groupMode?: 'children';
  sort: SortKey;
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
  group_by?: 'customer';
  group_mode?: 'children';
  sort: SortKey;
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

const PLANS: readonly Access[] = ['sort', 'customer', 'rows', 'due'];
const GROUP_PLANS = ['groups'] as const;

export async function listInvoices(engine: Engine, companyId: string, q: InvoiceListQuery): Promise<InvoiceListEnvelope> {
  checkQuery(q);
  const today = todayOf(engine.clock);
  const limit = Math.min(q.limit ?? DEFAULT_LIMIT, MAX_LIMIT);
  const applied = appliedFilters(companyId, q);
  // The cursor belongs to the filters and sort (not the page size, which may change between pages).
  const fingerprint = queryFingerprint({ ...applied, company_id: undefined });
  const grouped = q.groupBy === 'customer' && q.groupMode !== 'children';
  const after = q.cursor ? decodeCursor(engine.secrets, companyId, fingerprint, sortKeyType(q.sort), grouped ? GROUP_PLANS : PLANS, q.cursor) : null;

  return readSnapshot(engine, (sqlite) => {
    const summary = after ? null : countAndFacets(sqlite, companyId, q.filters, today);
    let items: Array<InvoiceItem | CustomerGroupRow>;
    let hasMore: boolean;
    let last: CursorPosition | null;
    let count = summary?.count;
    if (grouped) {
      const page = groupPage(sqlite, { companyId, filters: q.filters, sort: q.sort, dir: q.order, limit, after, today, withCount: !after });
      items = page.rows;
      hasMore = page.hasMore;
      last = page.last ? { ...page.last, plan: 'groups' } : null;
      if (page.count !== null) count = page.count;
    } else {
      const statuses = rowStatuses(q.filters);
      const narrow = narrowAccess(q.filters, statuses);
      const plan = (after?.plan as Access | undefined) ?? (narrow && summary!.count < WALK_FROM ? narrow : 'sort');
      const where = baseWhere(companyId, q.filters);
      addStatusClause(where, 'i', statuses, today);
      const column = `i.${SORT_COLUMN[q.sort]}`;
      if (after) where.add(afterPosition(column, 'i.id', q.order), after.key, after.id);
      const rows = prepared(
        sqlite,
        `SELECT ${ITEM_COLUMNS.map((c) => `i.${c}`).join(', ')} FROM ${invoicesFrom(plan, SORT_INDEX[q.sort])}
         WHERE ${where.text} ORDER BY ${column} ${q.order}, i.id ${q.order} LIMIT ?`,
      ).all(...where.params, limit + 1) as InvoiceRow[];
      hasMore = rows.length > limit;
      const pageRows = rows.slice(0, limit);
      items = toItems(sqlite, companyId, pageRows, today);
      const lastRow = pageRows[pageRows.length - 1];
      last = lastRow ? { key: lastRow[SORT_COLUMN[q.sort] as keyof InvoiceRow] as string | number, id: lastRow.id, plan } : null;
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
