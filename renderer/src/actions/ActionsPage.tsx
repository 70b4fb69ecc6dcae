import { ArOwnerFilter } from '../components/ArOwnerFilter';
import { Fragment, useCallback, useEffect, useMemo, useState } from 'react';
import { describeError, ErrorBox } from '../components/ErrorBox';
import { PageFooter, Tabs } from '../components/Tabs';
import { useLoad } from '../components/useLoad';
import { SortHeader } from '../components/SortHeader';
import { formatDate, formatMoney, formatTimestamp } from '../desk/format';
import { companyPath, useRoute } from '../state/route';
import { api } from '../state/session';
import { toast } from '../state/toasts';
import { ActionPanel } from './ActionPanel';
import { RejectForm } from './RejectForm';
import { type Action, type ActionCategory, type ActionSort, ACTION_TYPES, CATEGORIES, CATEGORY_LABELS, decideBy, heldWords, listedWords, progressWords, recommendationOf, TYPE_WORDS } from './labels';

const PAGE_SIZE = 25;
/** How long bulk approve waits for the emails it queued before it reports how many went out. */
const SEND_WAIT_MS = 15_000;

type Sort = ActionSort;
interface Order {
  sort: Sort;
  order: 'asc' | 'desc';
}
/** The inbox opens on what stands to be lost, highest first; history on the newest decisions. */
const DEFAULT_ORDER: Order = { sort: 'value_at_risk', order: 'desc' };
const HISTORY_ORDER: Order = { sort: 'created', order: 'desc' };

interface Filters {
  search: string;
  actionType: string;
  arOwner: string;
  customerId: string;
  executedAfter: string;
  executedBefore: string;
}

const NO_FILTERS: Filters = { search: '', actionType: '', arOwner: '', customerId: '', executedAfter: '', executedBefore: '' };

function listQuery(category: ActionCategory, f: Filters, page: number, pageSize: number, order: Order = HISTORY_ORDER) {
  return {
    category,
    sort: order.sort,
    direction: order.order,
    search: f.search.trim() || undefined,
    action_type: f.actionType || undefined,
    ar_owner: f.arOwner || undefined,
    customer_id: f.customerId || undefined,
    // One row per decision: the alternatives are in the recommendation's panel.
    include_alternatives: category === 'needs_action' ? false : undefined,
    executed_after: category === 'history' ? f.executedAfter || undefined : undefined,
    executed_before: category === 'history' ? f.executedBefore || undefined : undefined,
    page,
    page_size: pageSize,
  };
}

function isTyping(target: EventTarget | null): boolean {
  return target instanceof HTMLElement && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));
}

/**
 * The actions inbox: the spec's categories as tabs with counts, filters, a paged list, the open
 * action in a side panel (its id in the URL), keyboard triage and bulk approve/reject.
 */
export default function ActionsPage({ companyId, actionId }: { companyId: string; actionId: string | null }) {
  const navigate = useRoute((s) => s.navigate);
  const search = useRoute((s) => s.search);
  const [category, setCategory] = useState<ActionCategory>(() => (new URLSearchParams(search).get('tab') as ActionCategory) || 'needs_action');
  const [filters, setFilters] = useState<Filters>(() => ({ ...NO_FILTERS, customerId: new URLSearchParams(search).get('customer') ?? '' }));
  const [typed, setTyped] = useState(filters.search);
  const [page, setPage] = useState(1);
  const [order, setOrder] = useState<Order>(DEFAULT_ORDER);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [version, setVersion] = useState(0);
  const [bulkReject, setBulkReject] = useState(false);
  const [rejectAsked, setRejectAsked] = useState(0);
  const changed = useCallback(() => setVersion((v) => v + 1), []);

  useEffect(() => {
    const t = setTimeout(() => setFilters((f) => (f.search === typed ? f : { ...f, search: typed })), 250);
    return () => clearTimeout(t);
  }, [typed]);
  useEffect(() => {
    setPage(1);
    setSelected(new Set());
  }, [category, filters, order]);
  useEffect(() => setOrder(category === 'history' ? HISTORY_ORDER : DEFAULT_ORDER), [category]);
  const sortBy = (sort: Sort, direction: 'asc' | 'desc') => setOrder({ sort, order: direction });
  // `optional`: a column folded away while the side panel is open on a laptop-sized window; 'wide': the "why", which the panel says, up to wider ones (outreach.css).
  const header = (sort: Sort, words: string, numeric = false, firstOrder: 'asc' | 'desc' = numeric ? 'desc' : 'asc', optional: boolean | 'wide' = false) => (
    <SortHeader
      column={sort}
      sort={order.sort}
      order={order.order}
      onSort={sortBy}
      numeric={numeric}
      firstOrder={firstOrder}
      className={optional === 'wide' ? 'optional-wide' : optional ? 'optional' : undefined}
    >
      {words}
    </SortHeader>
  );

  const list = useLoad(
    (signal) => api.get('/api/companies/{company_id}/actions', { path: { company_id: companyId }, query: listQuery(category, filters, page, PAGE_SIZE, order), signal }),
    [companyId, category, filters, page, version, order],
  );
  const counts = useLoad(
    async (signal) => {
      const entries = await Promise.all(
        CATEGORIES.map(async (c) => [c, (await api.get('/api/companies/{company_id}/actions', { path: { company_id: companyId }, query: listQuery(c, filters, 1, 1), signal })).count] as const),
      );
      return Object.fromEntries(entries) as Record<ActionCategory, number>;
    },
    [companyId, filters, version],
  );

  const rows = useMemo(() => list.data?.data ?? [], [list.data]);
  const open = useCallback(
    (id: string | null) => navigate(companyPath(companyId, 'actions', id, `?tab=${category}${filters.customerId ? `&customer=${filters.customerId}` : ''}`), { replace: true }),
    [navigate, companyId, category, filters.customerId],
  );
  const move = useCallback(
    (delta: number) => {
      if (rows.length === 0) return;
      const at = rows.findIndex((r) => r.id === actionId);
      const next = at === -1 ? (delta > 0 ? 0 : rows.length - 1) : Math.max(0, Math.min(rows.length - 1, at + delta));
      open(rows[next].id);
      document.querySelector<HTMLElement>(`[data-action-row="${rows[next].id}"]`)?.scrollIntoView({ block: 'nearest' });
    },
    [rows, actionId, open],
  );

  async function approve(ids: string[]) {
    const failures: string[] = [];
    const emails: string[] = [];
    for (const id of ids) {
      try {
        const approved = await api.post('/api/companies/{company_id}/actions/{action_id}/approve', { path: { company_id: companyId, action_id: id }, body: {} });
        if (approved.action_type === 'email') emails.push(id);
      } catch (err) {
        failures.push(`${rows.find((r) => r.id === id)?.customer_name ?? id}: ${describeError(err)}`);
      }
    }
    report('Approved', ids.length, failures);
    if (emails.length > 1) void reportSends(emails);
  }

  /** After a bulk approve: how many of its emails went out and why the others did not, in one message. */
  async function reportSends(ids: string[]) {
    const until = Date.now() + SEND_WAIT_MS;
    let latest: Action[] = [];
    const settled = (a: Action) => a.status !== 'processing' || a.delivery?.status === 'failed' || a.delivery?.status === 'held';
    do {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      try {
        latest = await Promise.all(ids.map((id) => api.get('/api/companies/{company_id}/actions/{action_id}', { path: { company_id: companyId, action_id: id } })));
      } catch {
        return;
      }
    } while (Date.now() < until && !latest.every(settled));
    const sent = latest.filter((a) => a.delivery?.status === 'sent').length;
    const failed = latest.filter((a) => a.status === 'processing' && (a.delivery?.status === 'failed' || a.delivery?.status === 'held'));
    const pending = latest.length - sent - failed.length;
    const parts = [`${sent} sent`];
    if (failed.length) parts.push(`${failed.length} failed: ${failed.map((a) => a.delivery?.error ?? a.customer_name).join(' ')}`);
    if (pending) parts.push(`${pending} still being sent (see In progress)`);
    (failed.length ? toast.error : toast.success)(parts.join(', '));
    changed();
  }

  async function reject(ids: string[], reason: string, comment: string) {
    const failures: string[] = [];
    for (const id of ids) {
      try {
        await api.post('/api/companies/{company_id}/actions/{action_id}/reject', { path: { company_id: companyId, action_id: id }, body: { reason, comment: comment || undefined } });
      } catch (err) {
        failures.push(`${rows.find((r) => r.id === id)?.customer_name ?? id}: ${describeError(err)}`);
      }
    }
    report('Rejected', ids.length, failures);
  }

  function report(verb: string, total: number, failures: string[]) {
    const done = total - failures.length;
    if (done > 0) toast.success(`${verb} ${done} action${done === 1 ? '' : 's'}`);
    if (failures.length) toast.error(`${failures.length} not ${verb.toLowerCase()}: ${failures.join('; ')}`);
    setSelected(new Set());
    changed();
  }

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (isTyping(e.target) || e.metaKey || e.ctrlKey || e.altKey || document.querySelector('.modal')) return;
      const current = rows.find((r) => r.id === actionId);
      if (e.key === 'j' || e.key === 'ArrowDown') move(1);
      else if (e.key === 'k' || e.key === 'ArrowUp') move(-1);
      else if (e.key === 'a' && current) void approve([current.id]);
      else if (e.key === 'r' && current) setRejectAsked((n) => n + 1);
      else if (e.key === 'x' && current)
        setSelected((s) => {
          const next = new Set(s);
          if (next.has(current.id)) next.delete(current.id);
          else next.add(current.id);
          return next;
        });
      else return;
      e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  });

  const allChecked = rows.length > 0 && rows.every((r) => selected.has(r.id));
  const when = (a: Action) => formatTimestamp(a.executed_at ?? a.updated_at);

  return (
    <div className={actionId ? 'outreach with-panel' : 'outreach'}>
      <div className="outreach-main">
        <header className="outreach-head">
          <h1>Actions</h1>
          <span className="muted">Recommended collection actions to approve, send or reject.</span>
        </header>
        <Tabs label="Action categories" tabs={CATEGORIES.map((c) => ({ key: c, label: CATEGORY_LABELS[c], count: counts.data?.[c] ?? null }))} active={category} onChange={setCategory} />
        <div className="toolbar-row" role="search">
          <label>
            <span className="sr-only">Search actions</span>
            <input type="search" placeholder="Search customer, invoice, recommendation…" value={typed} onChange={(e) => setTyped(e.target.value)} />
          </label>
          <label>
            Type
            <select value={filters.actionType} onChange={(e) => setFilters({ ...filters, actionType: e.target.value })}>
              <option value="">All</option>
              {ACTION_TYPES.map((t) => (
                <option key={t} value={t}>
                  {TYPE_WORDS[t]}
                </option>
              ))}
            </select>
          </label>
          <ArOwnerFilter companyId={companyId} value={filters.arOwner} onChange={(arOwner) => setFilters({ ...filters, arOwner })} />
          {category === 'history' && (
            <>
              <label>
                Executed from
                <input type="date" value={filters.executedAfter} onChange={(e) => setFilters({ ...filters, executedAfter: e.target.value })} />
              </label>
              <label>
                to
                <input type="date" value={filters.executedBefore} onChange={(e) => setFilters({ ...filters, executedBefore: e.target.value })} />
              </label>
            </>
          )}
          {filters.customerId && (
            <button type="button" className="btn btn-small" onClick={() => setFilters({ ...filters, customerId: '' })}>
              One customer only ✕
            </button>
          )}
        </div>
        {category !== 'history' && (
          <div className="toolbar-row" aria-label="Bulk actions">
            <span className="muted">{selected.size} selected</span>
            <button type="button" className="btn" disabled={selected.size === 0} onClick={() => void approve([...selected])}>
              Approve selected
            </button>
            <button type="button" className="btn" disabled={selected.size === 0} onClick={() => setBulkReject(true)}>
              Reject selected
            </button>
            <span className="kbd-help">Keys: j / k next and previous, a approve, r reject, x select</span>
          </div>
        )}
        {bulkReject && (
          <RejectForm
            count={selected.size}
            onCancel={() => setBulkReject(false)}
            onReject={async (reason, comment) => {
              await reject([...selected], reason, comment);
              setBulkReject(false);
            }}
          />
        )}
        {list.error !== null && <ErrorBox what="the actions" error={list.error} onRetry={list.reload} />}
        {list.data && rows.length === 0 && <p className="muted">No actions here{filters.search || filters.actionType || filters.arOwner ? ' with these filters' : ''}.</p>}
        {rows.length > 0 && (
          <table className="item-list" data-testid="actions-list">
            <thead>
              <tr>
                <th className="check-cell">
                  <input
                    type="checkbox"
                    aria-label="Select every action on this page"
                    checked={allChecked}
                    onChange={() => setSelected(allChecked ? new Set() : new Set(rows.map((r) => r.id)))}
                  />
                </th>
                {header('customer', 'Customer')}
                <th scope="col">Invoice</th>
                {header('balance', 'Open balance', true)}
                {header('days_past_due', 'Days past due', true, 'desc', true)}
                {header('recommendation', 'Recommendation')}
                {header('why', 'Why', false, 'asc', 'wide')}
                {category === 'history' ? header('created', 'Executed', false, 'desc', true) : header('decide_by', 'Decide by', false, 'asc', true)}
                <th scope="col" className="optional">
                  Status
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((a) => (
                <tr key={a.id} data-action-row={a.id} className={a.id === actionId ? 'current' : undefined} aria-selected={a.id === actionId} onClick={() => open(a.id)}>
                  <td className="check-cell" onClick={(e) => e.stopPropagation()}>
                    <input
                      type="checkbox"
                      aria-label={`Select the action for ${a.customer_name}`}
                      checked={selected.has(a.id)}
                      onChange={() =>
                        setSelected((s) => {
                          const next = new Set(s);
                          if (next.has(a.id)) next.delete(a.id);
                          else next.add(a.id);
                          return next;
                        })
                      }
                    />
                  </td>
                  <td>
                    <a
                      href={companyPath(companyId, 'actions', a.id)}
                      onClick={(e) => {
                        e.preventDefault();
                        e.stopPropagation();
                        open(a.id);
                      }}
                    >
                      {a.customer_name}
                    </a>
                  </td>
                  <InvoiceCell action={a} />
                  <td className="num">{a.balance === null ? <span className="muted">—</span> : formatMoney(a.balance, a.currency ?? undefined)}</td>
                  <td className="num optional">{a.days_past_due === null ? <span className="muted">—</span> : a.days_past_due}</td>
                  <td>
                    {recommendationOf(a)}
                    <span className="muted small"> · {TYPE_WORDS[a.action_type]}</span>
                    {a.contact_hold && (
                      <div className="small contact-held" data-testid="contact-held">
                        {heldWords(a.contact_hold)}
                      </div>
                    )}
                  </td>
                  <td className="small optional-wide">{a.trigger_event_label ?? <span className="muted">—</span>}</td>
                  <td className="small optional">{category === 'history' ? when(a) : <DecideBy action={a} />}</td>
                  <td className={(a.delivery?.status === 'failed' || a.delivery?.status === 'held') && a.status === 'processing' ? 'status-failed optional' : 'optional'}>{progressWords(a)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {list.data && list.data.count > 0 && <PageFooter page={page} pageSize={PAGE_SIZE} count={list.data.count} onPage={setPage} />}
      </div>
      {actionId && (
        <ActionPanel
          key={actionId}
          companyId={companyId}
          actionId={actionId}
          version={version}
          rejectAsked={rejectAsked}
          onChanged={changed}
          onOpen={open}
          onClose={() => open(null)}
        />
      )}
    </div>
  );
}

/** The list's "Decide by" cell: the date, marked overdue once it has passed for an open decision. */
function DecideBy({ action }: { action: Action }) {
  const by = decideBy(action, new Date());
  if (!by) return <span className="muted">—</span>;
  return (
    <>
      {formatDate(by.date)}
      {by.overdue ? (
        <>
          <br />
          <span className="status-failed" data-testid="overdue">
            Overdue
          </span>
        </>
      ) : null}
    </>
  );
}

/**
 * The invoice a row is about, or the invoices a decision on the customer lists ('INV-1 and 4
 * more'): those may wrap between words beside an open panel, an invoice number never at its hyphen.
 */
function InvoiceCell({ action }: { action: Action }) {
  if (action.invoice_number) return <td className="mono invoice-cell">{action.invoice_number}</td>;
  const listed = listedWords(action);
  if (listed === null)
    return (
      <td className="mono invoice-cell">
        <span className="muted">All open</span>
      </td>
    );
  return (
    <td className="mono invoice-cell listed">
      {listed.split(' ').map((word, i) => (
        <Fragment key={i}>
          {i > 0 && ' '}
          <span>{word}</span>
        </Fragment>
      ))}
    </td>
  );
}
