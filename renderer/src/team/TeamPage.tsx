import { useState } from 'react';
import { ApiError, type Problem, type Schemas } from '../api/client';
import { describeError, ErrorBox } from '../components/ErrorBox';
import { useLoad } from '../components/useLoad';
import { attachmentName } from '../analytics/download';
import { formatCount, formatDate, formatMoney } from '../desk/format';
import { api, useSession } from '../state/session';
import { toast } from '../state/toasts';
import './team.css';

type Collector = Schemas['CollectorFigures'];

const pct = (n: number | null) => (n === null ? '—' : `${n}%`);

/** Saves the team view's CSV (the typed client reads JSON; a file is read as a blob). */
async function downloadCsv(companyId: string): Promise<string> {
  const { baseUrl, token } = useSession.getState();
  const res = await fetch(`${baseUrl}/api/companies/${encodeURIComponent(companyId)}/team-view/export`, { headers: token ? { authorization: `Token ${token}` } : {} });
  if (!res.ok) {
    const problem = (await res.json().catch(() => null)) as Problem | null;
    throw new ApiError(res.status, problem, problem?.detail ?? `The export failed with ${res.status}`);
  }
  const name = attachmentName(res.headers.get('content-disposition'), 'team.csv');
  const url = URL.createObjectURL(await res.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  return name;
}

/** Moving customers from one collector's book to another's (or to no one), chosen from the book. */
function MoveCustomers({ companyId, collectors, onMoved }: { companyId: string; collectors: Collector[]; onMoved: () => void }) {
  const owners = collectors.filter((c): c is Collector & { member_id: string } => c.member_id !== null);
  const [from, setFrom] = useState(owners[0]?.member_id ?? '');
  const [to, setTo] = useState('');
  const [chosen, setChosen] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const book = useLoad(
    (signal) => (from ? api.get('/api/companies/{company_id}/customers', { path: { company_id: companyId }, query: { ar_owner: from, limit: 200 }, signal }) : Promise.resolve(null)),
    [companyId, from],
  );
  const team = useLoad((signal) => api.get('/api/companies/{company_id}/team-members', { path: { company_id: companyId }, query: { is_active: true }, signal }), [companyId]);
  const customers = book.data?.data ?? [];

  async function move() {
    setBusy(true);
    try {
      await api.post('/api/companies/{company_id}/customers/assign-ar-owner', { path: { company_id: companyId }, body: { ar_owner: to || null, customer_ids: chosen } });
      const target = team.data?.data.find((m) => m.id === to)?.name ?? 'no owner';
      toast.success(`Moved ${chosen.length === 1 ? '1 customer' : `${formatCount(chosen.length)} customers`} to ${target}`);
      setChosen([]);
      book.reload();
      onMoved();
    } catch (err) {
      toast.error(`Nothing moved: ${describeError(err)}`);
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="card" aria-labelledby="move-customers">
      <h2 id="move-customers">Move customers between books</h2>
      <div className="toolbar-row">
        <label className="inline-field">
          From{' '}
          <select
            value={from}
            onChange={(e) => {
              setFrom(e.target.value);
              setChosen([]);
            }}
          >
            {owners.map((c) => (
              <option key={c.member_id} value={c.member_id}>
                {c.name}
              </option>
            ))}
          </select>
        </label>
        <label className="inline-field">
          To{' '}
          <select value={to} onChange={(e) => setTo(e.target.value)}>
            <option value="">No owner</option>
            {(team.data?.data ?? [])
              .filter((m) => m.id !== from)
              .map((m) => (
                <option key={m.id} value={m.id}>
                  {m.name}
                </option>
              ))}
          </select>
        </label>
        <button type="button" className="btn btn-primary" disabled={busy || chosen.length === 0} onClick={() => void move()}>
          {chosen.length === 0 ? 'Choose customers to move' : `Move ${chosen.length === 1 ? '1 customer' : `${formatCount(chosen.length)} customers`}`}
        </button>
      </div>
      {book.error !== null && <ErrorBox what="the customers of this book" error={book.error} onRetry={book.reload} />}
      {book.data && customers.length === 0 && <p className="muted">No customers in this book.</p>}
      {customers.length > 0 && (
        <fieldset className="book-list" data-testid="book-customers">
          <legend className="sr-only">Customers to move</legend>
          <label className="inline-field">
            <input type="checkbox" checked={chosen.length === customers.length} onChange={(e) => setChosen(e.target.checked ? customers.map((c) => c.id) : [])} /> All {formatCount(customers.length)}
          </label>
          {customers.map((c) => (
            <label key={c.id} className="inline-field">
              <input type="checkbox" checked={chosen.includes(c.id)} onChange={(e) => setChosen(e.target.checked ? [...chosen, c.id] : chosen.filter((x) => x !== c.id))} /> {c.name}
            </label>
          ))}
        </fieldset>
      )}
    </section>
  );
}

/** The manager's view of the team: each collector's book, week and results, the CSV, and moving customers between books. */
export default function TeamPage({ companyId }: { companyId: string }) {
  const [version, setVersion] = useState(0);
  const role = useSession((s) => s.companies.find((c) => c.id === companyId)?.role);
  // The server refuses the others; the page says so without asking it.
  const allowed = role === 'owner' || role === 'manager';
  const view = useLoad((signal) => (allowed ? api.get('/api/companies/{company_id}/team-view', { path: { company_id: companyId }, signal }) : Promise.resolve(null)), [companyId, version, allowed]);
  const v = view.data;
  return (
    <div className="page">
      <header className="page-header">
        <h1>Team</h1>
        {v && (
          <button type="button" className="btn" onClick={() => void downloadCsv(companyId).then((name) => toast.success(`Saved ${name}`), (err: unknown) => toast.error(`No file: ${describeError(err)}`))}>
            Export CSV
          </button>
        )}
      </header>
      {!allowed && <p className="muted">The team view is for the company's managers and owners. Ask an owner if you need it.</p>}
      {view.error !== null && <ErrorBox what="the team view" error={view.error} onRetry={view.reload} />}
      {v && (
        <>
          <section className="card" aria-labelledby="team-figures">
            <h2 id="team-figures">
              Each collector's book <span className="muted small">· the week {formatDate(v.from)} – {formatDate(v.as_of)}</span>
            </h2>
            <div className="table-scroll" role="region" aria-label="Figures per collector" tabIndex={0}>
              <table className="data-table team-table" data-testid="team-table">
                <thead>
                  <tr>
                    <th scope="col">Collector</th>
                    <th scope="col" className="num">Customers</th>
                    <th scope="col" className="num">Open</th>
                    <th scope="col" className="num">Overdue</th>
                    <th scope="col" className="num">Touches</th>
                    <th scope="col" className="num">Queue</th>
                    <th scope="col" className="num">Promises obtained / kept / broken</th>
                    <th scope="col" className="num">Cash collected</th>
                    <th scope="col" className="num">CEI</th>
                    <th scope="col" className="num">DSO</th>
                  </tr>
                </thead>
                <tbody>
                  {v.collectors.map((c) => (
                    <tr key={c.member_id ?? 'unassigned'} data-testid="team-row">
                      <th scope="row">{c.name}</th>
                      <td className="num">{formatCount(c.customers)}</td>
                      <td className="num">{formatMoney(c.open_balance, v.currency)}</td>
                      <td className="num">{formatMoney(c.overdue_balance, v.currency)}</td>
                      <td className="num">{formatCount(c.touches)}</td>
                      <td className="num">{formatCount(c.queue_backlog)}</td>
                      <td className="num" title={c.promise_kept_rate === null ? 'No promise was judged this week' : `${c.promise_kept_rate}% kept`}>
                        {formatCount(c.promises_obtained)} / {c.promises_kept} / {c.promises_broken}
                      </td>
                      <td className="num">{formatMoney(c.cash_collected, v.currency)}</td>
                      <td className="num">{pct(c.cei)}</td>
                      <td className="num">{c.dso === null ? '—' : `${c.dso} d`}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <p className="muted small">
              Balances are now. Touches, promises and cash cover the week; CEI is month to date and DSO is of each book's own sales. A digest with these figures is emailed to the managers every Monday.
            </p>
          </section>
          <MoveCustomers companyId={companyId} collectors={v.collectors} onMoved={() => setVersion((n) => n + 1)} />
        </>
      )}
    </div>
  );
}
