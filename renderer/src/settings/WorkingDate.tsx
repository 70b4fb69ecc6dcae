import { useState } from 'react';
import { ErrorBox } from '../components/ErrorBox';
import { useLoad } from '../components/useLoad';
import { FormError, useSave } from '../components/useSave';
import { formatDate, localToday } from '../desk/format';
import { api } from '../state/session';

/**
 * Settings › Company: the one date every page and figure counts from. Today unless the company
 * works as of an earlier date (a ledger exported long ago, offered by the stale ledger notice), never
 * before the ledger's last activity; cleared here.
 */
export function WorkingDate({ companyId, canWrite }: { companyId: string; canWrite: boolean }) {
  const settings = useLoad((signal) => api.get('/api/companies/{company_id}/settings', { path: { company_id: companyId }, signal }), [companyId]);
  const freshness = useLoad((signal) => api.get('/api/companies/{company_id}/analytics/ledger-freshness', { path: { company_id: companyId }, signal }), [companyId]);
  const last = freshness.data?.last_activity_date ?? undefined;
  const save = useSave();
  const [date, setDate] = useState('');
  const asOf = settings.data?.as_of_date ?? null;
  const store = async (value: string | null, done: string) => {
    if (await save.run(() => api.patch('/api/companies/{company_id}/settings', { path: { company_id: companyId }, body: { as_of_date: value } }), done)) settings.reload();
  };
  return (
    <section className="card" aria-labelledby="working-date-title" data-testid="working-date">
      <h2 id="working-date-title">Working date</h2>
      {settings.error !== null && <ErrorBox what="the working date" error={settings.error} onRetry={settings.reload} />}
      {settings.data && (
        <>
          <p>
            {asOf
              ? `All pages and figures (the invoice list, Customers, My work, actions, analytics, the forecast and insights) count from ${formatDate(asOf)}, not from today.`
              : 'All pages and figures count from today.'}
          </p>
          <p className="muted small">
            A ledger imported from an old export reads as years past due from today: working as of its last activity dates it as it was.
            {last ? ` Not before ${formatDate(last)}, its last invoice or payment: the ledger records nothing later, so its balances are the balances on that date.` : ''}
          </p>
          {canWrite && asOf && (
            <button type="button" className="btn" disabled={save.busy} onClick={() => store(null, 'Counting from today again.')}>
              Clear: count from today
            </button>
          )}
          {canWrite && !asOf && (
            <form
              className="toolbar-row"
              onSubmit={(e) => {
                e.preventDefault();
                if (date) void store(date, `Working as of ${formatDate(date)}.`);
              }}
            >
              <label className="form-row">
                Work as of
                <input type="date" value={date} min={last} max={localToday()} onChange={(e) => setDate(e.target.value)} />
              </label>
              <button type="submit" className="btn" disabled={save.busy || !date}>
                Set the working date
              </button>
            </form>
          )}
          <FormError error={save.error} />
        </>
      )}
    </section>
  );
}
