import { creditSourceWords } from '../../../core/payments/credit-words';
import { AppLink } from '../components/AppLink';
import { ErrorBox } from '../components/ErrorBox';
import { useLoad } from '../components/useLoad';
import { formatDate, formatMoney } from '../desk/format';
import { companyPath } from '../state/route';
import { api } from '../state/session';

/** The customer's credits (overpayments, credit notes, unapplied cash) with where each came from, and the balance net of them: as the statement shows them. */
export function CustomerCredits({ companyId, customerId, version }: { companyId: string; customerId: string; version: number }) {
  const credits = useLoad(
    (signal) => api.get('/api/companies/{company_id}/customers/{customer_id}/credits', { path: { company_id: companyId, customer_id: customerId }, signal }),
    [companyId, customerId, version],
  );
  const d = credits.data;
  return (
    <section className="card" aria-labelledby="customer-credits" data-testid="customer-credits">
      <h2 id="customer-credits">Credits and unapplied cash</h2>
      {credits.error !== null && <ErrorBox what="the credits" error={credits.error} onRetry={credits.reload} />}
      {d && d.credits.length === 0 && <p className="muted">No credits or unapplied cash on this account.</p>}
      {d && d.credits.length > 0 && (
        <>
          <ul>
            {d.credits.map((c) => (
              <li key={`${c.kind}-${c.invoice ?? c.bank_transaction}`}>
                <strong>{formatMoney(c.amount, c.currency)}</strong>{' '}
                {c.invoice && c.invoice_number ? (
                  <>
                    {c.kind === 'overpayment' ? 'Overpayment of invoice' : 'Credit note'} <AppLink to={companyPath(companyId, 'invoices', c.invoice)}>{c.invoice_number}</AppLink>
                  </>
                ) : (
                  creditSourceWords(c)
                )}
                <span className="muted">, {formatDate(c.date)}</span>
              </li>
            ))}
          </ul>
          <div data-testid="customer-net-balance">
            {d.balances.map((b) => (
              <p key={b.currency}>
                {d.balances.length > 1 ? `Net balance (${b.currency})` : 'Net balance'}:{' '}
                <strong>{b.net >= 0 ? formatMoney(b.net, b.currency) : `${formatMoney(-b.net, b.currency)} in the customer's favour`}</strong>{' '}
                <span className="muted small">
                  ({formatMoney(b.open, b.currency)} open less {formatMoney(b.credits, b.currency)} credits)
                </span>
              </p>
            ))}
          </div>
        </>
      )}
    </section>
  );
}
