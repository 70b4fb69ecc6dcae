/**
 * The first page's count and facets. Facets count every status over the filtered set without its
 * own status filter; the count is then the sum of the facets the status filter keeps, so one pass
 * gives both. When only due date, state and zero-balance decide the filters, the pass runs over
 * invoice_due_totals (a few thousand rows kept by triggers) instead of the invoices themselves.
 */
import { CLOSED_STATUS, type InvoiceStatus, openStatusOfDue, STATUS_VALUES, type StatusValue, statusThresholds } from './status';
import { addStatusClause, answeredByDueTotals, baseWhere, facetStatuses, type InvoiceFilters, invoicesFrom, narrowAccess, rowStatuses, searchSets, statusCaseSql, type Where } from './filters';
import { prepared } from '../db/statements';
import type { Sqlite } from './reader';
import type { ClosingReason } from '../db/schema';

export type Facets = Record<StatusValue, number>;

export interface CountAndFacets {
  count: number;
  facets: Facets;
}

export function emptyFacets(): Facets {
  return Object.fromEntries(STATUS_VALUES.map((s) => [s, 0])) as Facets;
}

/** Per-status invoice counts of the facet set, from invoice_due_totals. */
function countsFromDueTotals(sqlite: Sqlite, companyId: string, filters: InvoiceFilters, today: string): Map<InvoiceStatus, number> {
  const allowed = facetStatuses(filters);
  const t = statusThresholds(today);
  const onlyNonzero = filters.hideZeroBalance || filters.overdueOnly;
  let text = 'SELECT due_date, state, invoice_count, nonzero_count FROM invoice_due_totals WHERE company_id = ?';
  const params: unknown[] = [companyId];
  if (filters.dueDateFrom) {
    text += ' AND due_date >= ?';
    params.push(filters.dueDateFrom);
  }
  if (filters.dueDateTo) {
    text += ' AND due_date <= ?';
    params.push(filters.dueDateTo);
  }
  const counts = new Map<InvoiceStatus, number>();
  for (const row of prepared(sqlite, text).raw().all(...params) as Array<[string, string, number, number]>) {
    const [dueDate, state, invoiceCount, nonzeroCount] = row;
    const status = state === 'open' ? openStatusOfDue(dueDate, t) : CLOSED_STATUS[state as ClosingReason];
    if (!allowed.has(status)) continue;
    // The closed-invoice balance rule: a closed invoice's balance is 0, so none is "nonzero".
    const counted = onlyNonzero ? (state === 'open' ? nonzeroCount : 0) : invoiceCount;
    counts.set(status, (counts.get(status) ?? 0) + counted);
  }
  return counts;
}

/** Per-status invoice counts of the facet set, grouped in SQL over the matching invoices. */
function countsFromInvoices(sqlite: Sqlite, companyId: string, filters: InvoiceFilters, today: string): Map<InvoiceStatus, number> {
  const term = filters.search?.trim();
  if (term) return countsOfSearch(sqlite, companyId, filters, term, today);
  const statuses = facetStatuses(filters);
  const where = baseWhere(companyId, filters);
  addStatusClause(where, 'i', statuses, today);
  // Every matching row is counted, so the narrowest set drives (a covering customer scan otherwise).
  return countsByStatus(sqlite, invoicesFrom(narrowAccess(filters, statuses) ?? 'customer', 'invoices_due'), where, today);
}

/**
 * A search's counts in two disjoint parts: every invoice of the customers whose name matches,
 * read from the covering customer index alone (a common name's first letters match thousands of
 * customers and tens of thousands of invoices: no row is read), plus the invoices whose number
 * matches and whose customer's name does not, by row id.
 */
function countsOfSearch(sqlite: Sqlite, companyId: string, filters: InvoiceFilters, term: string, today: string): Map<InvoiceStatus, number> {
  const { search: _search, ...rest } = filters;
  const statuses = facetStatuses(filters);
  const sets = searchSets(companyId, term);
  const ofCustomers = baseWhere(companyId, rest).add(`i.customer_id IN (${sets.customers.text})`, ...sets.customers.params);
  addStatusClause(ofCustomers, 'i', statuses, today);
  const byLabel = narrowAccess(rest, statuses) === 'rows';
  const counts = countsByStatus(sqlite, invoicesFrom(byLabel ? 'rows' : 'customer', 'invoices_due'), ofCustomers, today);
  const ofNumbers = baseWhere(companyId, rest).add(
    `i.seq IN (${sets.numbers.text}) AND i.customer_id NOT IN (${sets.customers.text})`,
    ...sets.numbers.params,
    ...sets.customers.params,
  );
  addStatusClause(ofNumbers, 'i', statuses, today);
  for (const [status, n] of countsByStatus(sqlite, invoicesFrom('rows', 'invoices_due'), ofNumbers, today)) counts.set(status, (counts.get(status) ?? 0) + n);
  return counts;
}

function countsByStatus(sqlite: Sqlite, from: string, where: Where, today: string): Map<InvoiceStatus, number> {
  const status = statusCaseSql('i', today);
  const rows = prepared(sqlite, `SELECT ${status.text} AS status, count(*) AS n FROM ${from} WHERE ${where.text} GROUP BY 1`)
    .raw()
    .all(...status.params, ...where.params) as Array<[InvoiceStatus, number]>;
  return new Map(rows);
}

export function countAndFacets(sqlite: Sqlite, companyId: string, filters: InvoiceFilters, today: string): CountAndFacets {
  const counts = answeredByDueTotals(filters) ? countsFromDueTotals(sqlite, companyId, filters, today) : countsFromInvoices(sqlite, companyId, filters, today);
  const facets = emptyFacets();
  for (const [status, n] of counts) {
    facets[status] += n;
    if (status.startsWith('past_due_')) facets.overdue += n;
  }
  const kept = rowStatuses(filters);
  const count = [...counts].reduce((sum, [status, n]) => (kept.has(status) ? sum + n : sum), 0);
  return { count, facets };
}

/**
 * The worklist's count and facets: the past-due invoices with a balance (the usual fast path
 * with overdue_only), plus the invoices with an event that are not among them, counted by id.
 */
export function attentionCountAndFacets(sqlite: Sqlite, companyId: string, filters: InvoiceFilters, today: string): CountAndFacets {
  const { attention, ...rest } = filters;
  const result = countAndFacets(sqlite, companyId, { ...rest, overdueOnly: true }, today);
  if (!attention?.eventIds.length) return result;
  const where = baseWhere(companyId, rest);
  addStatusClause(where, 'i', facetStatuses(rest), today);
  where.add('i.closing_reason IS NULL AND NOT (i.balance > 0 AND i.due_date < ?) AND i.id IN (SELECT value FROM json_each(?))', today, JSON.stringify(attention.eventIds));
  const status = statusCaseSql('i', today);
  const kept = rowStatuses(rest);
  for (const [s, n] of prepared(sqlite, `SELECT ${status.text} AS status, count(*) AS n FROM invoices i WHERE ${where.text} GROUP BY 1`)
    .raw()
    .all(...status.params, ...where.params) as Array<[InvoiceStatus, number]>) {
    result.facets[s] += n;
    if (s.startsWith('past_due_')) result.facets.overdue += n;
    if (kept.has(s)) result.count += n;
  }
  return result;
}
