import type { GridApi } from 'ag-grid-community';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { StaleLedgerBanner } from '../analytics/StaleLedgerBanner';
import { PageBoundary } from '../components/PageBoundary';
import { companyPath, useRoute } from '../state/route';
import './ag';
import { BulkBar } from './BulkBar';
import { FilterPanel } from './FilterPanel';
import { type Bucket, type DeskFilters, parseFilters, toSearch } from './filters';
import { GroupedGrid } from './GroupedGrid';
import { InvoiceGrid } from './InvoiceGrid';
import { InvoicePanel } from './InvoicePanel';
import { KeyboardHelp } from './KeyboardHelp';
import { PortfolioHeader } from './PortfolioHeader';
import { useDesk } from './store';
import { useConnection } from '../state/connection';
import { FilterButton, FollowUpSelect, SavedViews, SearchBox, StatusChips, ViewSwitch } from './Toolbar';
import type { Invoice } from './types';

/** The collector's invoice desk: portfolio header, filters, the grid, bulk actions, detail panel. */
export default function InvoiceDesk({ companyId, invoiceId }: { companyId: string; invoiceId: string | null }) {
  const { search, navigate } = useRoute();
  const filters = useMemo(() => parseFilters(search), [search]);
  const reset = useDesk((s) => s.reset);
  const loadLookups = useDesk((s) => s.loadLookups);
  const loadViews = useDesk((s) => s.loadViews);
  const selection = useDesk((s) => s.selection);
  const setSelection = useDesk((s) => s.setSelection);
  const [filtersOpen, setFiltersOpen] = useState(false);
  const gridRef = useRef<GridApi<Invoice> | null>(null);

  useEffect(() => {
    reset(companyId);
    void loadLookups();
    void loadViews();
  }, [companyId, reset, loadLookups, loadViews]);

  // The server answers again after it was gone: everything on screen reloads by itself.
  const server = useConnection((s) => s.server);
  const reconnects = useConnection((s) => s.reconnects);
  const changed = useDesk((s) => s.changed);
  const seenReconnects = useRef(reconnects);
  useEffect(() => {
    if (reconnects === seenReconnects.current) return;
    seenReconnects.current = reconnects;
    changed();
    void loadLookups();
    void loadViews();
  }, [reconnects, changed, loadLookups, loadViews]);

  // The canonical URL: a hand-edited or stale query is rewritten to what actually applies.
  useEffect(() => {
    const canonical = toSearch(filters);
    if (canonical !== search) navigate(`${window.location.pathname}${canonical}`, { replace: true });
  }, [filters, search, navigate]);

  const onFilters = useCallback(
    (next: DeskFilters) => {
      const path = companyPath(companyId, 'invoices', invoiceId);
      navigate(`${path}${toSearch(next)}`);
    },
    [companyId, invoiceId, navigate],
  );

  const onOpen = useCallback((id: string) => navigate(companyPath(companyId, 'invoices', id, toSearch(parseFilters(window.location.search)))), [companyId, navigate]);
  const onClose = useCallback(() => {
    navigate(companyPath(companyId, 'invoices', null, toSearch(parseFilters(window.location.search))));
    // Back to the grid, on the row that was open: arrows and Enter keep working.
    requestAnimationFrame(() => {
      const grid = gridRef.current;
      if (!grid) return;
      const row = invoiceId ? grid.getRowNode(invoiceId) : undefined;
      const focused = grid.getFocusedCell();
      const rowIndex = row?.rowIndex ?? focused?.rowIndex;
      if (rowIndex === null || rowIndex === undefined) return;
      grid.ensureIndexVisible(rowIndex);
      grid.setFocusedCell(rowIndex, focused?.column ?? 'invoice_number');
    });
  }, [companyId, invoiceId, navigate]);
  const onCustomer = useCallback((id: string) => navigate(companyPath(companyId, 'customers', id)), [companyId, navigate]);
  const onBucket = useCallback((bucket: Bucket) => onFilters({ ...filters, aging_bucket: filters.aging_bucket.length === 1 && filters.aging_bucket[0] === bucket ? [] : [bucket] }), [filters, onFilters]);
  const onEveryone = useCallback(() => onFilters({ ...parseFilters(window.location.search), ar_owner: '' }), [onFilters]);
  const onSearch = useCallback((text: string) => onFilters({ ...parseFilters(window.location.search), search: text }), [onFilters]);

  return (
    <div className={invoiceId ? 'desk with-panel' : 'desk'}>
      <div className="desk-main">
        <div className="desk-head">
          <h1 className="page-title">Invoices</h1>
          <ViewSwitch filters={filters} onFilters={onFilters} />
          <KeyboardHelp />
        </div>
        <StaleLedgerBanner companyId={companyId} />
        <PortfolioHeader companyId={companyId} arOwner={filters.ar_owner} selected={filters.aging_bucket} onBucket={onBucket} onEveryone={onEveryone} />
        <div className="desk-toolbar">
          <SearchBox value={filters.search} onChange={onSearch} />
          <FilterButton filters={filters} open={filtersOpen} onToggle={() => setFiltersOpen(!filtersOpen)} />
          <FollowUpSelect filters={filters} onFilters={onFilters} />
          <label className="check toggle">
            <input type="checkbox" checked={filters.group_by === 'customer'} onChange={(e) => onFilters({ ...filters, group_by: e.target.checked ? 'customer' : '', sort: '' })} />
            Group by customer
          </label>
          {filters.sort && (filters.work || filters.group_by) && (
            <button type="button" className="btn btn-ghost btn-small" onClick={() => onFilters({ ...filters, sort: '', order: 'desc' })}>
              {filters.group_by ? 'Most overdue first' : 'Worklist order'}
            </button>
          )}
          <span className="spacer" />
          <SavedViews companyId={companyId} filters={filters} onFilters={onFilters} />
        </div>
        <StatusChips filters={filters} onFilters={onFilters} />
        {filtersOpen && (
          <div className="filter-anchor">
            <FilterPanel filters={filters} onFilters={onFilters} />
          </div>
        )}
        {selection.length > 0 && filters.group_by === '' && (
          <fieldset className="writes" disabled={!server} title={server ? undefined : 'The local server is not answering: changes are paused'}>
            <legend className="sr-only">Bulk changes</legend>
            <BulkBar
              companyId={companyId}
              onClear={() => {
                gridRef.current?.deselectAll();
                setSelection([]);
              }}
            />
          </fieldset>
        )}
        {filters.group_by === 'customer' ? (
          <GroupedGrid companyId={companyId} filters={filters} onFilters={onFilters} onOpen={onOpen} onCustomer={onCustomer} />
        ) : (
          <InvoiceGrid companyId={companyId} filters={filters} onFilters={onFilters} onOpen={onOpen} onCustomer={onCustomer} gridRef={gridRef} openId={invoiceId} />
        )}
      </div>
      {invoiceId && (
        <PageBoundary key={invoiceId} what="this invoice">
          <InvoicePanel companyId={companyId} invoiceId={invoiceId} onClose={onClose} onCustomer={onCustomer} />
        </PageBoundary>
      )}
    </div>
  );
}
