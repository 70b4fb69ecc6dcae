import '../components/outreach.css';
import { useLoad } from '../components/useLoad';
import { formatDate, formatMonth } from '../desk/format';
import { api } from '../state/session';

/**
 * Says when the ledger is not fresh (its newest invoice and payment more than 60 days old): figures
 * "as of today" on an old export read as years past due. Nothing while the ledger is fresh or the
 * answer has not come.
 */
export function StaleLedgerBanner({ companyId }: { companyId: string }) {
  const freshness = useLoad((signal) => api.get('/api/companies/{company_id}/analytics/ledger-freshness', { path: { company_id: companyId }, signal }), [companyId]);
  const f = freshness.data;
  if (!f?.stale || !f.last_activity_date) return null;
  const invoice = f.newest_invoice_date ? `The newest invoice in this ledger is from ${formatMonth(f.newest_invoice_date.slice(0, 7))}` : 'This ledger has no invoice';
  const payment = f.newest_payment_date ? `, the newest payment from ${formatDate(f.newest_payment_date)}` : '';
  return (
    <p className="notice-warn" role="status" data-testid="stale-ledger">
      {invoice}
      {payment}. Days past due, DSO and predictions count from today, not from when this ledger stopped.
    </p>
  );
}
