import '../components/outreach.css';
import { useLoad } from '../components/useLoad';
import { FormError, useSave } from '../components/useSave';
import { formatDate, formatMonth } from '../desk/format';
import { companyPath, useRoute } from '../state/route';
import { api, useSession } from '../state/session';

/**
 * Says when the ledger is not fresh (its newest invoice and payment more than 60 days old): figures
 * "as of today" on an old export read as years past due. Offers to work as of the ledger's last
 * activity (the company's as-of date); while that is set, says so and where to clear it. Nothing
 * while the ledger is fresh and no as-of date is set, or before the answer comes.
 */
export function StaleLedgerBanner({ companyId, onAsOf }: { companyId: string; /** Told the new as-of date once set. */ onAsOf?: (date: string) => void }) {
  const freshness = useLoad((signal) => api.get('/api/companies/{company_id}/analytics/ledger-freshness', { path: { company_id: companyId }, signal }), [companyId]);
  const canWrite = useSession((s) => s.companies.find((c) => c.id === companyId)?.role) !== 'viewer';
  const navigate = useRoute((s) => s.navigate);
  const save = useSave();
  const f = freshness.data;
  if (!f) return null;
  const settings = companyPath(companyId, 'settings', 'company');
  if (f.as_of_date) {
    return (
      <p className="notice-warn" role="status" data-testid="stale-ledger">
        Working as of {formatDate(f.as_of_date)}: the invoice list, analytics, predictions, signals and proposals count from that date, not from today.{' '}
        <a
          href={settings}
          onClick={(e) => {
            e.preventDefault();
            navigate(settings);
          }}
        >
          Change it in Settings
        </a>
      </p>
    );
  }
  if (!f.stale || !f.last_activity_date) return null;
  const last = f.last_activity_date;
  const invoice = f.newest_invoice_date ? `The newest invoice in this ledger is from ${formatMonth(f.newest_invoice_date.slice(0, 7))}` : 'This ledger has no invoice';
  const payment = f.newest_payment_date ? `, the newest payment from ${formatDate(f.newest_payment_date)}` : '';
  const workAsOf = async () => {
    if (await save.run(() => api.patch('/api/companies/{company_id}/settings', { path: { company_id: companyId }, body: { as_of_date: last } }), `Working as of ${formatDate(last)}.`)) {
      freshness.reload();
      onAsOf?.(last);
    }
  };
  return (
    <div className="notice-warn" role="status" data-testid="stale-ledger">
      <p>
        {invoice}
        {payment}. Days past due, DSO and predictions count from today, not from when this ledger stopped.
      </p>
      {canWrite && (
        <button type="button" className="btn btn-small" disabled={save.busy} onClick={workAsOf}>
          Work as of {formatDate(last)}
        </button>
      )}
      <FormError error={save.error} />
    </div>
  );
}
