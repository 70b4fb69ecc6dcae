import type { CellFocusedEvent, CellKeyDownEvent, ColDef, FocusGridInnerElementParams, GetRowIdParams, GridApi, GridReadyEvent, GridSizeChangedEvent, IDatasource, RowClickedEvent, RowSelectionOptions, SelectionChangedEvent, SortChangedEvent } from 'ag-grid-community';
import { AgGridReact } from 'ag-grid-react';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useConnection } from '../state/connection';
import { api } from '../state/session';
import { ErrorBox } from '../components/ErrorBox';
import { DEFAULT_COL_DEF, gridTheme } from './ag';
import { customerMinWidth, keptWidth } from './columns';
import { apiQuery, DEFAULT_FILTERS, type DeskFilters, effectiveSort, type InvoiceQuery, type Order, type SortKey, sortOfColumn, withColumnSort } from './filters';
import { formatCount, formatDate, formatMoney, formatTimestamp } from './format';
import { AttentionCell, BalanceCell, BucketCell, CustomerCell, FollowUpCell, LabelsCell, StatusCell } from './grid-cells';
import { CursorPager } from './pager';
import { useDesk } from './store';
import type { Invoice } from './types';

const BLOCK_SIZE = 100;
// Rows drawn beyond the visible ones (AG Grid's default is 10): a filter repaints every drawn row.
// Rows are not animated either: a filter replaces them all, and the transitions cost the repaint.
const ROW_BUFFER = 3;

// Grid options as constants: a new object per render would make the grid rebuild its columns.
const ROW_SELECTION: RowSelectionOptions = { mode: 'multiRow', checkboxes: true, headerCheckbox: false, enableClickSelection: false };
const SELECTION_COLUMN: ColDef = { pinned: 'left', width: 40, headerName: 'Select', headerClass: 'sr-header' };
const rowId = (p: GetRowIdParams<Invoice>) => p.data.id;

/** The column that shows each of the API's sort keys (only these columns sort); the reverse lookup is derived, so they agree. */
const COLUMN_OF_SORT: Partial<Record<SortKey, string>> = { due_date: 'due_date', balance: 'balance', amount: 'total_amount', customer_name: 'customer_name', days_past_due: 'days_past_due' };
const SORT_OF_COLUMN = sortOfColumn(COLUMN_OF_SORT);

function moneyColumn(field: keyof Invoice & string, headerName: string, sortable = false): ColDef<Invoice> {
  return {
    field,
    colId: field,
    headerName,
    sortable,
    type: 'rightAligned',
    width: 118,
    cellClass: 'num',
    valueFormatter: (p) => formatMoney(p.value as number, p.data?.currency),
  };
}

/**
 * The columns, most useful first: with the detail panel open a laptop keeps invoice, customer,
 * (why,) balance, days past due and status in view.
 */
function invoiceColumns(companyId: string, onCustomer: (id: string) => void, sort: { sort: SortKey | ''; order: Order }, work: boolean): ColDef<Invoice>[] {
  const sorted = (colId: string) => (sort.sort && COLUMN_OF_SORT[sort.sort] === colId ? sort.order : null);
  const columns: ColDef<Invoice>[] = [
    { field: 'invoice_number', colId: 'invoice_number', headerName: 'Invoice', width: 104, pinned: 'left', cellClass: 'mono', tooltipField: 'invoice_number' },
    {
      field: 'customer_name',
      colId: 'customer_name',
      headerName: 'Customer',
      sortable: true,
      flex: 1,
      tooltipField: 'customer_name',
      cellRenderer: CustomerCell,
      cellRendererParams: { companyId, onOpen: onCustomer },
    },
    {
      field: 'open_balance',
      colId: 'balance',
      headerName: 'Balance',
      sortable: true,
      type: 'rightAligned',
      width: 112,
      cellClass: 'num',
      tooltipValueGetter: (p) => (p.data ? balanceTooltip(p.data) : undefined),
      cellRenderer: BalanceCell,
    },
    { field: 'days_past_due', colId: 'days_past_due', headerName: 'Days past due', wrapHeaderText: true, autoHeaderHeight: true, headerTooltip: 'Whole days since the due date; 0 when not yet due or closed', sortable: true, width: 92, type: 'rightAligned', cellClass: 'num', valueFormatter: (p) => (p.value ? String(p.value) : '') },
    {
      field: 'status',
      colId: 'status',
      headerName: 'Status',
      // The badge shortens inside its pill when a second marker joins it, so the column stays narrow enough for 1024 px with the panel open.
      width: 142,
      cellClass: 'status-cell',
      tooltipField: 'status_display',
      cellRenderer: StatusCell,
    },
    ...(work
      ? [
          {
            colId: 'attention',
            headerName: 'Why today',
            width: 210,
            tooltipValueGetter: (p: { data?: Invoice }) => p.data?.attention?.map((a) => a.label).join('; '),
            cellRenderer: AttentionCell,
          } satisfies ColDef<Invoice>,
        ]
      : []),
    { field: 'due_date', colId: 'due_date', headerName: 'Due', width: 124, sortable: true, valueFormatter: (p) => formatDate(p.value as string) },
    {
      field: 'next_follow_up_date',
      colId: 'next_follow_up_date',
      headerName: 'Follow-up',
      width: 122,
      cellRenderer: FollowUpCell,
    },
    {
      field: 'predicted_pay_date',
      colId: 'predicted_pay_date',
      headerName: 'Expected payment',
      wrapHeaderText: true,
      autoHeaderHeight: true,
      headerTooltip: "The pay date predicted from this customer's payment history (see Insights); empty when there is too little history",
      width: 124,
      valueFormatter: (p) => (p.value ? formatDate(p.value as string) : ''),
    },
    moneyColumn('total_amount', 'Amount', true),
    moneyColumn('paid_amount', 'Paid'),
    {
      field: 'labels',
      colId: 'labels',
      headerName: 'Labels',
      // Takes the room left over (the customer page has plenty), so a second chip is not cut off.
      flex: 1,
      minWidth: 180,
      tooltipValueGetter: (p: { data?: Invoice }) => p.data?.labels.map((l) => l.name).join(', ') || undefined,
      cellRenderer: LabelsCell,
    },
    { field: 'aging_bucket', colId: 'aging_bucket', headerName: 'Aging', width: 96, cellRenderer: BucketCell },
    { field: 'ar_owner', colId: 'ar_owner', headerName: 'AR owner', width: 140, tooltipField: 'ar_owner' },
    {
      field: 'last_touch_date',
      colId: 'last_touch_date',
      headerName: 'Last touch',
      width: 170,
      valueFormatter: (p) => (p.value ? `${formatTimestamp(p.value as string)}${p.data?.last_touched_by ? ` · ${p.data.last_touched_by}` : ''}` : ''),
      tooltipValueGetter: (p) => (p.value ? `${formatTimestamp(p.value as string)}${p.data?.last_touched_by ? ` · ${p.data.last_touched_by}` : ''}` : undefined),
    },
    { field: 'invoice_date', colId: 'invoice_date', headerName: 'Invoice date', width: 124, valueFormatter: (p) => formatDate(p.value as string) },
    { field: 'days_outstanding', colId: 'days_outstanding', headerName: 'Days outstanding', headerTooltip: 'Days since the invoice date (to the closing date once closed)', width: 110, type: 'rightAligned', cellClass: 'num' },
  ];
  // initialSort, not sort: new column definitions (the customer column's width follows the grid's) would
  // put back the sort the page opened with, clear the one chosen since, and reload every row.
  return columns.map((c) => (c.sortable ? { ...c, initialSort: sorted(c.colId!), sortingOrder: ['desc', 'asc'] } : c));
}

/** The balance cell's tooltip: pending money, and for a closed invoice why it owes nothing. */
export function balanceTooltip(invoice: Pick<Invoice, 'status_display' | 'balance' | 'balance_at_closing' | 'pending_amount' | 'currency'>): string {
  const parts = [`Open balance ${formatMoney(invoice.balance, invoice.currency)}`];
  if (invoice.pending_amount > 0) parts.push(`${formatMoney(invoice.pending_amount, invoice.currency)} in pending payments, not counted yet`);
  const left = invoice.balance_at_closing;
  if (left) parts.push(`${invoice.status_display}: ${formatMoney(Math.abs(left), invoice.currency)} ${left > 0 ? 'left unpaid at closing' : 'paid beyond the total'}, not owed`);
  return parts.join(' · ');
}

/** Tab leaves the grid (one stop, like a list box); arrows move between headers and cells, as AG Grid intends. */
const leaveGrid = () => false as const;

interface Props {
  companyId: string;
  filters: DeskFilters;
  onFilters: (next: DeskFilters, replace?: boolean) => void;
  onOpen: (invoiceId: string) => void;
  onCustomer: (customerId: string) => void;
  /** Fixed filters of an embedding page (the customer page): no facets, no sorting in the URL. */
  embedded?: boolean;
  gridRef?: React.RefObject<GridApi<Invoice> | null>;
  /** The invoice open in the detail panel: its row is marked. */
  openId?: string | null;
}

/**
 * The invoice list: AG Grid's infinite row model over the cursor API. Sorting is by header click
 * (the API's four sort keys); the datasource keeps one pager per sort so changing back is cheap.
 */
export function InvoiceGrid({ companyId, filters, onFilters, onOpen, onCustomer, embedded, gridRef, openId = null }: Props) {
  const apiRef = useRef<GridApi<Invoice> | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [empty, setEmpty] = useState(false);
  const setFirstPage = useDesk((s) => s.setFirstPage);
  const setSelection = useDesk((s) => s.setSelection);
  const version = useDesk((s) => s.version);

  // Filters without sort: a new datasource (and a reset grid) only when they change.
  const queryKey = JSON.stringify(apiQuery({ ...filters, sort: DEFAULT_FILTERS.sort, order: DEFAULT_FILTERS.order }));

  const filtersRef = useRef(filters);
  filtersRef.current = filters;
  const openRef = useRef(openId);
  const hostRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const previous = openRef.current;
    openRef.current = openId;
    const host = hostRef.current;
    if (!host || previous === openId) return;
    // The marker on the rows as drawn (rowClassRules marks rows drawn later). Not redrawRows: a
    // redrawn row takes the focus back from the panel that Enter just opened.
    for (const id of [previous, openId]) {
      if (!id) continue;
      for (const row of host.querySelectorAll(`.ag-row[row-id="${CSS.escape(id)}"]`)) row.classList.toggle('open-row', id === openId);
    }
  }, [openId]);
  const rowClassRules = useMemo(() => ({ 'open-row': (p: { data?: Invoice }) => p.data !== undefined && p.data.id === openRef.current }), []);

  const datasource = useMemo<IDatasource>(() => {
    const query = JSON.parse(queryKey) as InvoiceQuery;
    const pagers = new Map<string, CursorPager<Invoice>>();
    const pagerFor = (sort: SortKey | 'attention', order: Order) => {
      const key = `${sort}:${order}`;
      let pager = pagers.get(key);
      if (!pager) {
        pager = new CursorPager<Invoice>(async (cursor, limit) => {
          const page = await api.get('/api/companies/{company_id}/invoices', {
            path: { company_id: companyId },
            query: { ...query, sort, order, limit, ...(cursor ? { cursor } : {}) },
          });
          if (!cursor && !embedded) setFirstPage(page.count ?? null, page.facets ?? null);
          // Without group_by every item is an invoice (the union covers group rows).
          return { ...page, items: page.items as Invoice[] };
        }, BLOCK_SIZE);
        pagers.set(key, pager);
      }
      return pager;
    };
    // The first rows are asked for with the filters, not after the grid's set-up and debounce.
    const prefetched = pagerFor(effectiveSort(filtersRef.current), filtersRef.current.order);
    prefetched.prefetchFirst();
    return {
      getRows(params) {
        const model = params.sortModel[0];
        const sort = (model && SORT_OF_COLUMN[model.colId]) || effectiveSort(filtersRef.current);
        const order: Order = model ? (model.sort as Order) : filtersRef.current.order;
        const pager = pagerFor(sort, order);
        if (pager !== prefetched) prefetched.discardEarly();
        pager
          .block(params.startRow)
          .then(({ rows, lastRow }) => {
            setError(null);
            if (params.startRow === 0) setEmpty(rows.length === 0);
            params.successCallback(rows, lastRow);
          })
          .catch((err: unknown) => {
            setError(err);
            params.failCallback();
          });
      },
    };
  }, [companyId, queryKey, embedded, setFirstPage]);

  // The datasource prop hands the grid new filters; a selection made under the old ones goes.
  useEffect(() => {
    apiRef.current?.deselectAll();
  }, [datasource]);

  // After a write elsewhere (bulk action, payment): reload the loaded blocks, keep the scroll.
  const firstVersion = useRef(version);
  useEffect(() => {
    if (version !== firstVersion.current) apiRef.current?.refreshInfiniteCache();
  }, [version]);

  // The URL's sort (back button, a saved view) drives the headers.
  useEffect(() => {
    const grid = apiRef.current;
    if (!grid) return;
    const colId = filters.sort ? COLUMN_OF_SORT[filters.sort] : undefined;
    const current = grid.getColumnState().find((c) => c.sort);
    if (current?.colId === colId && (!colId || current?.sort === filters.order)) return;
    grid.applyColumnState({ state: colId ? [{ colId, sort: filters.order }] : [], defaultState: { sort: null } });
  }, [filters.sort, filters.order]);

  const allColumns = useMemo(
    () => invoiceColumns(companyId, onCustomer, { sort: filtersRef.current.sort, order: filtersRef.current.order }, filters.work),
    [companyId, onCustomer, filters.work],
  );
  const [gridWidth, setGridWidth] = useState(0);
  const onGridSizeChanged = useCallback((e: GridSizeChangedEvent<Invoice>) => setGridWidth(e.clientWidth), []);
  const customerWidth = customerMinWidth(gridWidth, keptWidth(allColumns, SELECTION_COLUMN.width ?? 0));
  const columns = useMemo(
    // On the customer page every row is that customer's.
    () => (embedded ? allColumns.filter((c) => c.colId !== 'customer_name') : allColumns.map((c) => (c.colId === 'customer_name' ? { ...c, minWidth: customerWidth } : c))),
    [allColumns, embedded, customerWidth],
  );

  const onGridReady = useCallback(
    (e: GridReadyEvent<Invoice>) => {
      apiRef.current = e.api;
      if (gridRef) gridRef.current = e.api;
    },
    [gridRef],
  );

  const onSortChanged = useCallback(
    (e: SortChangedEvent<Invoice>) => {
      const next = withColumnSort(filtersRef.current, SORT_OF_COLUMN, e.api.getColumnState().find((c) => c.sort));
      if (next) onFilters(next);
    },
    [onFilters],
  );

  const onRowClicked = useCallback(
    (e: RowClickedEvent<Invoice>) => {
      const target = e.event?.target as HTMLElement | undefined;
      if (target?.closest('.ag-selection-checkbox, .ag-checkbox-input-wrapper, a, button')) return;
      if (e.data) onOpen(e.data.id);
    },
    [onOpen],
  );

  const onCellKeyDown = useCallback(
    (e: CellKeyDownEvent<Invoice>) => {
      const key = (e.event as KeyboardEvent | undefined)?.key;
      if (key === 'Enter' && e.data) onOpen(e.data.id);
    },
    [onOpen],
  );

  // Tab back into the list lands on the row worked on (the open invoice's first), not AG Grid's last row:
  // that invoice wherever it is now (a reload can reorder the list), else the same place.
  const lastCell = useRef<{ rowIndex: number; rowId: string | undefined; colId: string } | null>(null);
  const onCellFocused = useCallback((e: CellFocusedEvent<Invoice>) => {
    if (e.rowIndex === null || e.rowPinned || !e.column) return;
    const rowId = e.api.getDisplayedRowAtIndex(e.rowIndex)?.id;
    lastCell.current = { rowIndex: e.rowIndex, rowId, colId: typeof e.column === 'string' ? e.column : e.column.getColId() };
  }, []);
  const focusGridInnerElement = useCallback((p: FocusGridInnerElementParams<Invoice>) => {
    const open = openRef.current ? p.api.getRowNode(openRef.current) : undefined;
    const last = lastCell.current?.rowId ? p.api.getRowNode(lastCell.current.rowId) : undefined;
    const rowIndex = open?.rowIndex ?? last?.rowIndex ?? lastCell.current?.rowIndex;
    if (rowIndex === null || rowIndex === undefined) return false;
    p.api.ensureIndexVisible(rowIndex);
    p.api.setFocusedCell(rowIndex, lastCell.current?.colId ?? 'due_date');
    return true;
  }, []);

  const onSelectionChanged = useCallback(
    (e: SelectionChangedEvent<Invoice>) =>
      setSelection(e.api.getSelectedRows().map((r) => ({ id: r.id, invoice_number: r.invoice_number, customer: r.customer, customer_name: r.customer_name }))),
    [setSelection],
  );

  const retry = useCallback(() => {
    setError(null);
    apiRef.current?.refreshInfiniteCache();
  }, []);

  return (
    <div className="grid-area">
      {error !== null && <ErrorBox what="invoices" error={error} onRetry={retry} />}
      {empty && error === null && (
        <p className="grid-empty">
          {filters.work && filters.ar_owner === 'me' ? 'Nothing in your worklist matches right now. ' : 'No invoices match these filters. '}
          {!embedded && filters.ar_owner === 'me' && (
            <button type="button" className="linkish" onClick={() => onFilters({ ...filters, ar_owner: '' })}>
              Show the whole company
            </button>
          )}
        </p>
      )}
      <div className="grid-host" data-testid="invoice-grid" ref={hostRef}>
        <AgGridReact<Invoice>
          theme={gridTheme}
          loadThemeGoogleFonts={false}
          columnDefs={columns}
          defaultColDef={DEFAULT_COL_DEF}
          rowModelType="infinite"
          datasource={datasource}
          cacheBlockSize={BLOCK_SIZE}
          maxBlocksInCache={100}
          maxConcurrentDatasourceRequests={1}
          infiniteInitialRowCount={1}
          blockLoadDebounceMillis={50}
          getRowId={rowId}
          rowSelection={embedded ? undefined : ROW_SELECTION}
          selectionColumnDef={SELECTION_COLUMN}
          onGridReady={onGridReady}
          onGridSizeChanged={onGridSizeChanged}
          onSortChanged={onSortChanged}
          onRowClicked={onRowClicked}
          onCellKeyDown={onCellKeyDown}
          tabToNextCell={leaveGrid}
          onCellFocused={onCellFocused}
          focusGridInnerElement={focusGridInnerElement}
          tabToNextHeader={leaveGrid}
          onSelectionChanged={onSelectionChanged}
          suppressColumnVirtualisation
          rowBuffer={ROW_BUFFER}
          animateRows={false}
          rowClass="invoice-row"
          rowClassRules={rowClassRules}
        />
      </div>
      {!embedded && <GridFooter />}
    </div>
  );
}

function GridFooter() {
  const count = useDesk((s) => s.count);
  const selected = useDesk((s) => s.selection.length);
  const stale = useConnection((s) => !s.server);
  return (
    <div className="grid-footer muted" data-testid="grid-footer">
      {count === null ? 'Loading…' : `${formatCount(count)} invoice${count === 1 ? '' : 's'}`}
      {stale && count !== null && <span className="stale-note"> (may be out of date: the server is not answering)</span>}
      {selected > 0 && ` · ${formatCount(selected)} selected`}
    </div>
  );
}
