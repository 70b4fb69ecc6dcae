import { useState } from 'react';
import type { QueryOf } from '../api/client';
import { ErrorBox } from '../components/ErrorBox';
import { Pager, SortHeader } from '../components/SortHeader';
import { useDebounced } from '../components/useDebounced';
import { useLoad } from '../components/useLoad';
import { formatDate, formatMoney, formatTimestamp } from '../desk/format';
import { companyPath, useRoute } from '../state/route';
import { api, useSession } from '../state/session';
import { SendStatements, useCanSend } from '../documents/SendStatements';
import { EnrollSelected } from './EnrollSelected';
import { AssignByRule, AssignSelected } from './OwnerAssign';
import { RiskBadge } from './RiskBadge';

type Sort = NonNullable<QueryOf<'/api/companies/{company_id}/customers'>['sort']>;

export const CUSTOMER_PAGE_SIZE = 50;

/**
 * Every customer of the company with what a collector weighs: balances, oldest due date, owner,
 * last touch, risk; customers picked here can be enrolled in a sequence together.
 */
export default function CustomerList({ companyId }: { companyId: string }) {
  const navigate = useRoute((s) => s.navigate);
  const [search, setSearch] = useState('');
  const [sort, setSort] = useState<{ sort: Sort; order: 'asc' | 'desc' }>({ sort: 'balance', order: 'desc' });
  const [offset, setOffset] = useState(0);
  // Picked customers stay picked across pages and searches, for enrolling them together.
  const [picked, setPicked] = useState<Map<string, string>>(new Map());
  const canSend = useCanSend(companyId);
  const canWrite = useSession((s) => s.companies.find((c) => c.id === companyId)?.role !== 'viewer');
  const toggle = (id: string, name: string) =>
    setPicked((old) => {
      const next = new Map(old);
      if (next.has(id)) next.delete(id);
      else next.set(id, name);
      return next;
    });
  const query = useDebounced(search.trim());
  const list = useLoad(
    (signal) =>
      api.get('/api/companies/{company_id}/customers', {
        path: { company_id: companyId },
        query: { search: query || undefined, sort: sort.sort, order: sort.order, limit: CUSTOMER_PAGE_SIZE, offset },
        signal,
      }),
    [companyId, query, sort, offset],
  );
  const onSort = (column: Sort, order: 'asc' | 'desc') => {
    setSort({ sort: column, order });
    setOffset(0);
  };
  const header = (column: Sort, label: string, numeric = false, firstOrder: 'asc' | 'desc' = 'asc') => (
    <SortHeader column={column} sort={sort.sort} order={sort.order} onSort={onSort} numeric={numeric} firstOrder={firstOrder}>
      {label}
    </SortHeader>
  );

  return (
    <div className="page">
      <header className="page-header">
        <h1>Customers</h1>
        {canWrite && <AssignByRule companyId={companyId} onDone={list.reload} />}
        <input
          type="search"
          className="page-search"
          aria-label="Search customers by name"
          placeholder="Search customers"
          value={search}
          onChange={(e) => {
            setSearch(e.target.value);
            setOffset(0);
          }}
        />
      </header>
      {list.error !== null && <ErrorBox what="the customers" error={list.error} onRetry={list.reload} />}
      {!list.data && list.error === null && <p className="muted" role="status">Loading…</p>}
      {picked.size > 0 && <EnrollSelected companyId={companyId} customers={[...picked].map(([id, name]) => ({ id, name }))} onDone={() => setPicked(new Map())} />}
      {picked.size > 0 && canWrite && (
        <AssignSelected
          companyId={companyId}
          ids={[...picked.keys()]}
          onDone={() => {
            setPicked(new Map());
            list.reload();
          }}
        />
      )}
      {picked.size > 0 && canSend && <SendStatements companyId={companyId} customers={[...picked].map(([id, name]) => ({ id, name }))} label={`Send statements to ${picked.size} customer${picked.size === 1 ? '' : 's'}`} />}
      {list.data && (
        <>
          <table className="data-table" data-testid="customer-list" aria-busy={list.loading}>
            <thead>
              <tr>
                <th scope="col">
                  <span className="sr-only">Select</span>
                </th>
                {header('name', 'Customer')}
                {header('balance', 'Open balance', true, 'desc')}
                {header('overdue', 'Overdue', true, 'desc')}
                {header('oldest_due', 'Oldest due')}
                {header('ar_owner', 'AR owner')}
                <th scope="col">Last touch</th>
                <th scope="col">Risk</th>
              </tr>
            </thead>
            <tbody>
              {list.data.data.map((c) => (
                <tr key={c.id} className={picked.has(c.id) ? 'selected' : undefined}>
                  <td className="check-cell">
                    <input type="checkbox" aria-label={`Select ${c.name}`} checked={picked.has(c.id)} onChange={() => toggle(c.id, c.name)} />
                  </td>
                  <td>
                    <a
                      href={companyPath(companyId, 'customers', c.id)}
                      onClick={(e) => {
                        e.preventDefault();
                        navigate(companyPath(companyId, 'customers', c.id));
                      }}
                    >
                      {c.name}
                    </a>
                  </td>
                  <td className="num">{formatMoney(c.open_balance, c.currency)}</td>
                  <td className={c.overdue_balance > 0 ? 'num bad' : 'num'}>{formatMoney(c.overdue_balance, c.currency)}</td>
                  {/* Past due as the server counts it: from the company's as-of date while one is set. */}
                  <td className={c.overdue_balance > 0 ? 'bad' : undefined}>{c.oldest_open_due_date ? formatDate(c.oldest_open_due_date) : <span className="muted">Nothing open</span>}</td>
                  <td>{c.ar_owner?.name ?? <span className="muted">Unassigned</span>}</td>
                  <td>{c.last_touch_at ? formatTimestamp(c.last_touch_at) : <span className="muted">Never</span>}</td>
                  <td>
                    <RiskBadge risk={c.risk} reason={c.risk_reason} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {list.data.data.length === 0 && <p className="muted">{query ? `No customer matches “${query}”.` : 'No customers yet. Import a ledger from Settings.'}</p>}
          <Pager offset={offset} limit={CUSTOMER_PAGE_SIZE} count={list.data.count} onOffset={setOffset} what="customers" />
        </>
      )}
    </div>
  );
}
