import { AppLink } from '../components/AppLink';
import { ErrorBox } from '../components/ErrorBox';
import { useLoad } from '../components/useLoad';
import { formatDate, formatMoney } from '../desk/format';
import { companyPath } from '../state/route';
import { api } from '../state/session';

const OUTCOME_WORDS = { kept: 'Kept', broken: 'Broken', void: 'Replaced or credited' } as const;

/** The customer's promises to pay as judged after their date and grace days, and the share kept. */
export function CustomerPromises({ companyId, customerId, currency }: { companyId: string; customerId: string; currency: string | null }) {
  const promises = useLoad((signal) => api.get('/api/companies/{company_id}/customers/{customer_id}/promises', { path: { company_id: companyId, customer_id: customerId }, signal }), [companyId, customerId]);
  const p = promises.data;
  const money = (v: number) => formatMoney(v, currency ?? 'USD');
  return (
    <section className="card" aria-labelledby="customer-promises" data-testid="customer-promises">
      <h2 id="customer-promises">Promises to pay</h2>
      {promises.error !== null && <ErrorBox what="the promises" error={promises.error} onRetry={promises.reload} />}
      {p && (
        <>
          <p data-testid="promise-kept-rate">
            Promise-kept rate: <strong>{p.kept_rate === null ? 'no promise judged yet' : `${p.kept_rate.toFixed(1)}%`}</strong>
            {p.kept_rate !== null && <span className="muted"> ({p.kept_count} kept, {p.broken_count} broken)</span>}
          </p>
          <p className="muted small">A promise is judged the day after its date plus {p.grace_days} days of grace: kept when the money came by then.</p>
          {p.promises.length > 0 && (
            <ul>
              {p.promises.slice(0, 5).map((x) => (
                <li key={`${x.promised_date}-${x.judged_at}-${x.invoice ?? ''}`}>
                  {OUTCOME_WORDS[x.outcome]}: {x.promised_amount !== null ? `${money(x.promised_amount)} ` : ''}
                  {x.invoice && x.invoice_number ? (
                    <>
                      on <AppLink to={companyPath(companyId, 'invoices', x.invoice)}>{x.invoice_number}</AppLink>{' '}
                    </>
                  ) : (
                    'on the account '
                  )}
                  by {formatDate(x.promised_date)}
                  {x.outcome === 'broken' && x.paid_amount > 0 ? <span className="muted"> ({money(x.paid_amount)} came)</span> : null}
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </section>
  );
}
