import { useCallback, useEffect, useMemo, useState } from 'react';
import { ErrorBox } from '../components/ErrorBox';
import { SortHeader } from '../components/SortHeader';
import { Tabs } from '../components/Tabs';
import { useLoad } from '../components/useLoad';
import { formatDate, formatMoney } from '../desk/format';
import { companyPath, useRoute } from '../state/route';
import { api } from '../state/session';
import { CreditPanel } from './CreditPanel';
import { ImportStatement } from './ImportStatement';
import { type BankState, confidenceLevel, STATE_WORDS, STATES } from './words';
import '../components/outreach.css';
import './cash.css';

type SortColumn = 'date' | 'amount' | 'confidence';
const PAGE_SIZE = 50;

function isTyping(target: EventTarget | null): boolean {
  return target instanceof HTMLElement && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));
}

/**
 * Money in: import a bank statement, then work its credits. The tabs are the states (to review
 * first), one statement or all; the open entry is in the side panel with its id in the URL.
 * Keys: j / k next and previous, a apply the top suggestion, s split.
 */
export default function CashPage({ companyId, transactionId }: { companyId: string; transactionId: string | null }) {
  const navigate = useRoute((s) => s.navigate);
  const search = useRoute((s) => s.search);
  const [state, setState] = useState<BankState>(() => (new URLSearchParams(search).get('state') as BankState) || 'suggested');
  const [statementId, setStatementId] = useState<string>(() => new URLSearchParams(search).get('statement') ?? '');
  const [sort, setSort] = useState<{ column: SortColumn; order: 'asc' | 'desc' } | null>(null);
  const [cursors, setCursors] = useState<Array<string | null>>([null]);
  const [version, setVersion] = useState(0);
  const [applyAsked, setApplyAsked] = useState(0);
  const [splitAsked, setSplitAsked] = useState(0);
  const changed = useCallback(() => setVersion((v) => v + 1), []);
  useEffect(() => setCursors([null]), [state, statementId, sort]);

  const statements = useLoad((signal) => api.get('/api/companies/{company_id}/bank-statements', { path: { company_id: companyId }, signal }), [companyId, version]);
  const cursor = cursors[cursors.length - 1];
  const list = useLoad(
    (signal) =>
      api.get('/api/companies/{company_id}/bank-transactions', {
        path: { company_id: companyId },
        query: {
          state,
          statement_id: statementId || undefined,
          sort: sort ? (`${sort.order === 'desc' ? '-' : ''}${sort.column}` as const) : undefined,
          limit: PAGE_SIZE,
          cursor: cursor ?? undefined,
        },
        signal,
      }),
    [companyId, state, statementId, sort, cursor, version],
  );
  const counts = useLoad(
    async (signal) => {
      const entries = await Promise.all(
        STATES.map(async (s) => {
          const page = await api.get('/api/companies/{company_id}/bank-transactions', { path: { company_id: companyId }, query: { state: s, statement_id: statementId || undefined, limit: 1 }, signal });
          return [s, page.count] as const;
        }),
      );
      return Object.fromEntries(entries) as Record<BankState, number | null>;
    },
    [companyId, statementId, version],
  );

  const rows = useMemo(() => list.data?.data ?? [], [list.data]);
  const open = useCallback(
    (id: string | null) => navigate(companyPath(companyId, 'cash', id, `?state=${state}${statementId ? `&statement=${statementId}` : ''}`), { replace: true }),
    [navigate, companyId, state, statementId],
  );
  const move = useCallback(
    (delta: number) => {
      if (rows.length === 0) return;
      const at = rows.findIndex((r) => r.id === transactionId);
      const next = at === -1 ? (delta > 0 ? 0 : rows.length - 1) : Math.max(0, Math.min(rows.length - 1, at + delta));
      open(rows[next].id);
      document.querySelector<HTMLElement>(`[data-credit-row="${rows[next].id}"]`)?.scrollIntoView({ block: 'nearest' });
    },
    [rows, transactionId, open],
  );

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (isTyping(e.target) || e.metaKey || e.ctrlKey || e.altKey || document.querySelector('.modal')) return;
      if (e.key === 'j' || e.key === 'ArrowDown') move(1);
      else if (e.key === 'k' || e.key === 'ArrowUp') move(-1);
      else if (e.key === 'a' && transactionId) setApplyAsked((n) => n + 1);
      else if (e.key === 's' && transactionId) setSplitAsked((n) => n + 1);
      else if (e.key === 'Escape' && transactionId) open(null);
      else return;
      e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [move, open, transactionId]);

  const header = (column: SortColumn, words: string, numeric = false, optional = false) => (
    <SortHeader
      column={column}
      sort={sort?.column ?? ('' as SortColumn)}
      order={sort?.order ?? 'asc'}
      onSort={(c, order) => setSort({ column: c, order })}
      numeric={numeric}
      firstOrder={numeric ? 'desc' : 'asc'}
      className={optional ? 'optional' : undefined}
    >
      {words}
    </SortHeader>
  );

  return (
    <div className={transactionId ? 'outreach with-panel' : 'outreach'}>
      <div className="outreach-main">
        <header className="outreach-head">
          <h1>Cash</h1>
          <span className="muted">Bank statements in: match each credit to the invoices it pays.</span>
        </header>
        <ImportStatement
          companyId={companyId}
          onImported={(id) => {
            if (id) setStatementId(id);
            changed();
          }}
        />
        <Tabs label="Bank entries by state" tabs={STATES.map((s) => ({ key: s, label: STATE_WORDS[s], count: counts.data?.[s] ?? null }))} active={state} onChange={setState} />
        <div className="toolbar-row cash-filter" role="search">
          <label>
            Statement
            <select value={statementId} onChange={(e) => setStatementId(e.target.value)} data-testid="statement-filter">
              <option value="">All statements</option>
              {(statements.data?.data ?? []).map((s) => (
                <option key={s.id} value={s.id}>
                  {s.file_name ?? s.format} · {s.account}
                  {s.period_start && s.period_end ? ` · ${formatDate(s.period_start)} to ${formatDate(s.period_end)}` : ''}
                </option>
              ))}
            </select>
          </label>
          <span className="kbd-help">Keys: j / k next and previous, a apply the top suggestion, s split</span>
        </div>
        {list.error !== null && <ErrorBox what="the bank entries" error={list.error} onRetry={list.reload} />}
        {list.data && rows.length === 0 && (
          <p className="muted" data-testid="cash-empty">
            {statements.data && statements.data.count === 0 ? 'No bank statement imported yet: drop one above.' : `Nothing ${STATE_WORDS[state].toLowerCase()} here.`}
          </p>
        )}
        {rows.length > 0 && (
          <table className="item-list" data-testid="credits-list">
            <thead>
              <tr>
                {header('date', 'Booked')}
                {header('amount', 'Amount', true)}
                <th scope="col">Payer</th>
                <th scope="col" className="optional">
                  Remittance
                </th>
                <th scope="col">Top candidate</th>
                {header('confidence', 'Confidence', true)}
              </tr>
            </thead>
            <tbody>
              {rows.map((t) => (
                <tr key={t.id} data-credit-row={t.id} className={t.id === transactionId ? 'current' : undefined} aria-selected={t.id === transactionId} onClick={() => open(t.id)}>
                  <td>
                    <a
                      href={companyPath(companyId, 'cash', t.id)}
                      onClick={(e) => {
                        e.preventDefault();
                        e.stopPropagation();
                        open(t.id);
                      }}
                    >
                      {formatDate(t.booked_on)}
                    </a>
                  </td>
                  <td className="num">
                    {formatMoney(t.amount, t.currency)}
                    {t.flag === 'foreign_currency' && <span className="pill">other currency</span>}
                  </td>
                  <td>{t.counterparty_name ?? <span className="muted">—</span>}</td>
                  <td className="small optional remittance-cell">{t.remittance_text || t.structured_reference || <span className="muted">—</span>}</td>
                  <td className="small">
                    {t.top_candidate ? (
                      <>
                        <span className="mono invoice-cell">{t.top_candidate.invoice_number}</span> <span className="optional">{t.top_candidate.customer_name}</span>
                      </>
                    ) : t.customer_name ? (
                      t.customer_name
                    ) : (
                      <span className="muted">None</span>
                    )}
                  </td>
                  <td className="num small">
                    {t.confidence === null ? (
                      <span className="muted">—</span>
                    ) : (
                      <>
                        {/* The level in words folds away beside the open panel on a small window; the percent stays. */}
                        <span className="optional">{confidenceLevel(t.confidence)} </span>
                        {Math.round(t.confidence * 100)}%
                      </>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {list.data && (cursors.length > 1 || list.data.has_more) && (
          <div className="list-footer">
            {list.data.count !== null && <span>{list.data.count} entries</span>}
            <span className="spacer" />
            <button type="button" className="btn btn-small" disabled={cursors.length <= 1} onClick={() => setCursors((c) => c.slice(0, -1))}>
              Previous
            </button>
            <button type="button" className="btn btn-small" disabled={!list.data.has_more} onClick={() => list.data?.next_cursor && setCursors((c) => [...c, list.data!.next_cursor])}>
              Next
            </button>
          </div>
        )}
      </div>
      {transactionId && (
        <CreditPanel key={transactionId} companyId={companyId} transactionId={transactionId} applyAsked={applyAsked} splitAsked={splitAsked} onChanged={changed} onClose={() => open(null)} />
      )}
    </div>
  );
}
