import type { BodyScrollEndEvent, CellKeyDownEvent, ColDef, GetRowIdParams, RowClassParams, RowClickedEvent, SortChangedEvent } from 'ag-grid-community';
import { AgGridReact } from 'ag-grid-react';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { api } from '../state/session';
import { toast } from '../state/toasts';
import { describeError, ErrorBox } from '../components/ErrorBox';
import { DEFAULT_COL_DEF, gridTheme } from './ag';
import { CustomerLink, StatusBadge } from './cells';
import { apiQuery, type InvoiceQuery, BUCKET_LABELS, BUCKETS, type Bucket, type DeskFilters, effectiveSort, type SortKey, sortOfColumn, withColumnSort } from './filters';
import { formatCount, formatDate, formatMoney } from './format';
import { useDesk } from './store';
import type { Invoice, InvoiceGroup } from './types';

const PAGE = 100;

type GroupRow = { kind: 'group'; rowId: string; group: InvoiceGroup; expanded: boolean };
type ChildRow = { kind: 'invoice'; rowId: string; invoice: Invoice };
type MoreRow = { kind: 'more'; rowId: string; customer: string };
type Row = GroupRow | ChildRow | MoreRow;

interface Children {
  items: Invoice[];
  next_cursor: string | null;
  has_more: boolean;
}

/** The column that shows each of the API's sort keys; the reverse lookup is derived, so they agree. */
const COLUMN_OF_SORT: Partial<Record<SortKey, string>> = { customer_name: 'name', due_date: 'due', amount: 'total', balance: 'balance', overdue_balance: 'overdue' };
const SORT_OF_COLUMN = sortOfColumn(COLUMN_OF_SORT);

function childQuery(query: InvoiceQuery): InvoiceQuery {
  return query.sort === 'overdue_balance' ? { ...query, sort: 'days_past_due', order: 'desc' } : query;
}

// Grid options as constants: a new function per render would make the grid redraw every row.
const rowId = (p: GetRowIdParams<Row>) => p.data.rowId;
const rowClass = (p: RowClassParams<Row>) => (p.data?.kind === 'group' ? 'group-row' : p.data?.kind === 'invoice' ? 'child-row' : 'more-row');

/** Flattens groups, their loaded children and "more" rows into the grid's row list. */
function flattenGroups(groups: InvoiceGroup[], expanded: Set<string>, children: Map<string, Children>): Row[] {
  const rows: Row[] = [];
  for (const group of groups) {
    const open = expanded.has(group.customer);
    rows.push({ kind: 'group', rowId: `g:${group.customer}`, group, expanded: open });
    if (!open) continue;
    const loaded = children.get(group.customer);
    for (const invoice of loaded?.items ?? []) rows.push({ kind: 'invoice', rowId: `i:${invoice.id}`, invoice });
    if (loaded?.has_more) rows.push({ kind: 'more', rowId: `m:${group.customer}`, customer: group.customer });
  }
  return rows;
}

/**
 * Group by customer: one parent row per customer with its totals (paged by cursor as the user
 * scrolls), expanding into that customer's invoices (group_mode=children).
 */
export function GroupedGrid({
  companyId,
  filters,
  onFilters,
  onOpen,
  onCustomer,
}: {
  companyId: string;
  filters: DeskFilters;
  onFilters: (f: DeskFilters) => void;
  onOpen: (id: string) => void;
  onCustomer: (id: string) => void;
}) {
  const version = useDesk((s) => s.version);
  const setFirstPage = useDesk((s) => s.setFirstPage);
  const [groups, setGroups] = useState<InvoiceGroup[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(false);
  const [expanded, setExpanded] = useState<Set<string>>(new Set());
  const [children, setChildren] = useState<Map<string, Children>>(new Map());
  // Read by the callbacks through refs, so the columns (and their cell renderers) stay the same
  // object while groups expand and load.
  const expandedRef = useRef(expanded);
  expandedRef.current = expanded;
  const childrenRef = useRef(children);
  childrenRef.current = children;
  const query = useMemo(() => apiQuery({ ...filters, group_by: 'customer' }), [filters]);
  const queryRef = useRef(query);
  queryRef.current = query;
  const filtersRef = useRef(filters);
  filtersRef.current = filters;
  const generation = useRef(0);

  const fetchGroups = useCallback(
    async (cursor: string | null) => {
      const gen = generation.current;
      setLoading(true);
      try {
        const page = await api.get('/api/companies/{company_id}/invoices', {
          path: { company_id: companyId },
          query: { ...queryRef.current, group_by: 'customer', limit: PAGE, ...(cursor ? { cursor } : {}) },
        });
        if (gen !== generation.current) return;
        const items = page.items as unknown as InvoiceGroup[];
        if (!cursor) setFirstPage(page.count ?? null, page.facets ?? null);
        setGroups((prev) => (cursor ? [...prev, ...items] : items));
        setNext(page.has_more ? page.next_cursor : null);
        setError(null);
      } catch (err) {
        if (gen === generation.current) setError(err);
      } finally {
        if (gen === generation.current) setLoading(false);
      }
    },
    [companyId, setFirstPage],
  );

  const fetchChildren = useCallback(
    async (customer: string, cursor: string | null) => {
      try {
        const page = await api.get('/api/companies/{company_id}/invoices', {
          path: { company_id: companyId },
          // A customer's invoices: the group sort when it is an invoice sort, else the most overdue first.
          query: { ...childQuery(queryRef.current), group_by: 'customer', group_mode: 'children', customer_id: customer, limit: PAGE, ...(cursor ? { cursor } : {}) },
        });
        const items = page.items as Invoice[];
        setChildren((prev) => {
          const map = new Map(prev);
          const before = cursor ? (map.get(customer)?.items ?? []) : [];
          map.set(customer, { items: [...before, ...items], next_cursor: page.next_cursor, has_more: page.has_more });
          return map;
        });
      } catch (err) {
        toast.error(`Could not load the invoices of this customer: ${describeError(err)}`);
      }
    },
    [companyId],
  );

  // New filters or sort: start over. A write elsewhere (version): reload what is open.
  const queryKey = JSON.stringify(query);
  useEffect(() => {
    generation.current++;
    setGroups([]);
    setNext(null);
    setExpanded(new Set());
    setChildren(new Map());
    void fetchGroups(null);
  }, [queryKey, fetchGroups]);

  const firstVersion = useRef(version);
  useEffect(() => {
    if (version === firstVersion.current) return;
    generation.current++;
    void fetchGroups(null);
    // Only a version change reloads; the groups open right now reload with it.
    for (const customer of expandedRef.current) void fetchChildren(customer, null);
  }, [version, fetchGroups, fetchChildren]);

  const toggle = useCallback(
    (customer: string) => {
      const open = !expandedRef.current.has(customer);
      setExpanded((prev) => {
        const nextSet = new Set(prev);
        if (open) nextSet.add(customer);
        else nextSet.delete(customer);
        return nextSet;
      });
      if (open && !childrenRef.current.has(customer)) void fetchChildren(customer, null);
    },
    [fetchChildren],
  );

  const rows = useMemo(() => flattenGroups(groups, expanded, children), [groups, expanded, children]);

  const columns = useMemo<ColDef<Row>[]>(() => {
    const sorted = (colId: string) => (COLUMN_OF_SORT[effectiveSort(filtersRef.current) as SortKey] === colId ? filtersRef.current.order : null);
    const keep = () => 0;
    const bucketColumn = (bucket: Bucket): ColDef<Row> => ({
      colId: `b_${bucket}`,
      headerName: BUCKET_LABELS[bucket],
      width: 110,
      type: 'rightAligned',
      cellClass: 'num',
      valueGetter: (p) => {
        const row = p.data;
        if (!row) return '';
        if (row.kind === 'group') return formatMoney(row.group.aging_balances[bucket], row.group.currency);
        if (row.kind === 'invoice') return row.invoice.aging_bucket === bucket && row.invoice.open_balance ? formatMoney(row.invoice.open_balance, row.invoice.currency) : '';
        return '';
      },
    });
    return [
      {
        colId: 'name',
        headerName: 'Customer / invoice',
        flex: 1,
        minWidth: 260,
        sortable: true,
        comparator: keep,
        sort: sorted('name'),
        sortingOrder: ['desc', 'asc'],
        cellRenderer: (p: { data?: Row }) => {
          const row = p.data;
          if (!row) return null;
          if (row.kind === 'group') {
            return (
              <span className="group-cell">
                <button type="button" className="expander" aria-expanded={row.expanded} aria-label={`${row.expanded ? 'Collapse' : 'Expand'} ${row.group.customer_name}`} onClick={() => toggle(row.group.customer)}>
                  {row.expanded ? '▾' : '▸'}
                </button>
                <CustomerLink className="cell-link strong" companyId={companyId} customerId={row.group.customer} name={row.group.customer_name} onOpen={onCustomer} />
              </span>
            );
          }
          if (row.kind === 'invoice') return <span className="child-cell mono">{row.invoice.invoice_number}</span>;
          return (
            <button type="button" className="linkish child-cell" onClick={() => void fetchChildren(row.customer, childrenRef.current.get(row.customer)?.next_cursor ?? null)}>
              Load more invoices…
            </button>
          );
        },
      },
      {
        colId: 'status',
        headerName: 'Status / invoices',
        width: 140,
        cellRenderer: (p: { data?: Row }) =>
          p.data?.kind === 'invoice' ? (
            <StatusBadge status={p.data.invoice.status} label={p.data.invoice.status_display} />
          ) : p.data?.kind === 'group' ? (
            <span className="muted small" data-testid="group-count">
              {formatCount(p.data.group.invoice_count)} invoice{p.data.group.invoice_count === 1 ? '' : 's'}
            </span>
          ) : null,
      },
      {
        colId: 'due',
        headerName: 'Due / oldest due',
        width: 140,
        sortable: true,
        comparator: keep,
        sort: sorted('due'),
        sortingOrder: ['desc', 'asc'],
        valueGetter: (p) => (p.data?.kind === 'group' ? formatDate(p.data.group.oldest_due_date) : p.data?.kind === 'invoice' ? formatDate(p.data.invoice.due_date) : ''),
      },
      {
        colId: 'total',
        headerName: 'Amount',
        width: 130,
        type: 'rightAligned',
        cellClass: 'num',
        sortable: true,
        comparator: keep,
        sort: sorted('total'),
        sortingOrder: ['desc', 'asc'],
        valueGetter: (p) => (p.data?.kind === 'group' ? formatMoney(p.data.group.total_amount, p.data.group.currency) : p.data?.kind === 'invoice' ? formatMoney(p.data.invoice.total_amount, p.data.invoice.currency) : ''),
      },
      {
        colId: 'balance',
        headerName: 'Balance',
        width: 130,
        type: 'rightAligned',
        cellClass: 'num strong',
        sortable: true,
        comparator: keep,
        sort: sorted('balance'),
        sortingOrder: ['desc', 'asc'],
        valueGetter: (p) => (p.data?.kind === 'group' ? formatMoney(p.data.group.balance, p.data.group.currency) : p.data?.kind === 'invoice' ? formatMoney(p.data.invoice.open_balance, p.data.invoice.currency) : ''),
      },
      {
        colId: 'overdue',
        headerName: 'Overdue',
        width: 130,
        type: 'rightAligned',
        cellClass: 'num',
        sortable: true,
        comparator: keep,
        sort: sorted('overdue'),
        sortingOrder: ['desc', 'asc'],
        valueGetter: (p) =>
          p.data?.kind === 'group' ? formatMoney(p.data.group.overdue_balance, p.data.group.currency) : p.data?.kind === 'invoice' && p.data.invoice.status.startsWith('past_due') ? formatMoney(p.data.invoice.open_balance, p.data.invoice.currency) : '',
      },
      ...BUCKETS.map(bucketColumn),
    ];
  }, [companyId, toggle, onCustomer, fetchChildren]);

  const onSortChanged = useCallback(
    (e: SortChangedEvent<Row>) => {
      const next = withColumnSort(filtersRef.current, SORT_OF_COLUMN, e.api.getColumnState().find((c) => c.sort));
      if (next) onFilters(next);
    },
    [onFilters],
  );

  const onRowClicked = useCallback(
    (e: RowClickedEvent<Row>) => {
      const target = e.event?.target as HTMLElement | undefined;
      if (target?.closest('a, button')) return;
      if (e.data?.kind === 'group') toggle(e.data.group.customer);
      else if (e.data?.kind === 'invoice') onOpen(e.data.invoice.id);
    },
    [toggle, onOpen],
  );

  const onCellKeyDown = useCallback(
    (e: CellKeyDownEvent<Row>) => {
      const key = (e.event as KeyboardEvent | undefined)?.key;
      if (!e.data) return;
      if (key === 'Enter') {
        if (e.data.kind === 'group') toggle(e.data.group.customer);
        else if (e.data.kind === 'invoice') onOpen(e.data.invoice.id);
      } else if (e.data.kind === 'group' && ((key === 'ArrowRight' && !e.data.expanded) || (key === 'ArrowLeft' && e.data.expanded))) {
        toggle(e.data.group.customer);
      }
    },
    [toggle, onOpen],
  );

  const onBodyScrollEnd = useCallback(
    (e: BodyScrollEndEvent<Row>) => {
      if (next && !loading && e.api.getLastDisplayedRowIndex() >= rows.length - 20) void fetchGroups(next);
    },
    [next, loading, rows.length, fetchGroups],
  );

  return (
    <div className="grid-area">
      {error !== null && <ErrorBox what="customer groups" error={error} onRetry={() => void fetchGroups(null)} />}
      {!loading && error === null && groups.length === 0 && <p className="grid-empty">No invoices match these filters.</p>}
      <div className="grid-host" data-testid="grouped-grid">
        <AgGridReact<Row>
          theme={gridTheme}
          loadThemeGoogleFonts={false}
          rowData={rows}
          columnDefs={columns}
          defaultColDef={DEFAULT_COL_DEF}
          getRowId={rowId}
          getRowClass={rowClass}
          onSortChanged={onSortChanged}
          onRowClicked={onRowClicked}
          onCellKeyDown={onCellKeyDown}
          onBodyScrollEnd={onBodyScrollEnd}
        />
      </div>
      <div className="grid-footer muted">
        {formatCount(groups.length)} customer{groups.length === 1 ? '' : 's'} shown{next ? ' · scroll for more' : ''}
        {next && (
          <button type="button" className="btn btn-ghost btn-small" disabled={loading} onClick={() => void fetchGroups(next)}>
            Load more
          </button>
        )}
      </div>
    </div>
  );
}

