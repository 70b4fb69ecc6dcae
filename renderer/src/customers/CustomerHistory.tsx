import { useState } from 'react';
import { ErrorBox } from '../components/ErrorBox';
import { Pager } from '../components/SortHeader';
import { useLoad } from '../components/useLoad';
import { formatDate, formatMoney, formatTimestamp } from '../desk/format';
import { OpenDisputeDialog } from '../desk/PanelDisputes';
import { PAYMENT_STATUS_WORDS, paymentMethodWords } from '../desk/payments';
import { companyPath, useRoute } from '../state/route';
import { api, useSession } from '../state/session';
import { describeCommunication } from './communication-words';
import { ReplyReading } from './ReplyReading';

const PAGE = 20;

/** What the timeline shows: everything, or one kind (replies alone are the emails received). */
const SHOW = {
  all: { label: 'Everything', query: {} },
  replies: { label: 'Replies received', query: { kind: 'email', direction: 'inbound' } },
  email: { label: 'Emails', query: { kind: 'email' } },
  call: { label: 'Calls', query: { kind: 'call' } },
  note: { label: 'Notes', query: { kind: 'note' } },
} as const;
type Show = keyof typeof SHOW;

function InvoiceLink({ companyId, id, number }: { companyId: string; id: string; number: string }) {
  const navigate = useRoute((s) => s.navigate);
  return (
    <a
      href={companyPath(companyId, 'invoices', id)}
      onClick={(e) => {
        e.preventDefault();
        navigate(companyPath(companyId, 'invoices', id));
      }}
    >
      {number}
    </a>
  );
}

/** The customer's payments on all its invoices, newest first, paged through the API; listed once the customer's currency is known. */
export function CustomerPayments({ companyId, customerId, currency, version }: { companyId: string; customerId: string; currency: string | null; version: number }) {
  const [offset, setOffset] = useState(0);
  const payments = useLoad(
    (signal) => api.get('/api/companies/{company_id}/payments', { path: { company_id: companyId }, query: { customer_id: customerId, limit: PAGE, offset }, signal }),
    [companyId, customerId, offset, version],
  );
  return (
    <section className="card" aria-labelledby="customer-payments">
      <h2 id="customer-payments">Payments</h2>
      {payments.error !== null && <ErrorBox what="the payments" error={payments.error} onRetry={payments.reload} />}
      {payments.data && payments.data.count === 0 && <p className="muted">No payments recorded for this customer.</p>}
      {payments.data && payments.data.count > 0 && currency && (
        <>
          <table className="data-table" data-testid="customer-payments">
            <thead>
              <tr>
                <th scope="col">Date</th>
                <th scope="col">Invoice</th>
                <th scope="col">Method</th>
                <th scope="col">Status</th>
                <th scope="col" className="num">
                  Amount
                </th>
              </tr>
            </thead>
            <tbody>
              {payments.data.data.map((p) => (
                <tr key={p.id}>
                  <td>{formatDate(p.payment_date)}</td>
                  <td>
                    <InvoiceLink companyId={companyId} id={p.invoice} number={p.invoice_number} />
                  </td>
                  <td>{paymentMethodWords(p.payment_method)}</td>
                  <td>
                    <span className={`pill pill-${p.status.toLowerCase()}`}>{PAYMENT_STATUS_WORDS[p.status]}</span>
                    {p.status_reason && <div className="muted small">{p.status_reason}</div>}
                  </td>
                  <td className="num">{formatMoney(p.amount, currency)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager offset={offset} limit={PAGE} count={payments.data.count} onOffset={setOffset} what="payments" />
        </>
      )}
    </section>
  );
}

/** Emails sent and received, calls and notes, newest first; the customer's replies are marked. */
export function CustomerCommunications({ companyId, customerId, version, onChanged }: { companyId: string; customerId: string; version: number; onChanged: () => void }) {
  const [offset, setOffset] = useState(0);
  const [disputing, setDisputing] = useState<{ communication: string; invoice: string; number: string } | null>(null);
  const [show, setShow] = useState<Show>('all');
  const canWrite = useSession((s) => s.companies.find((c) => c.id === companyId)?.role) !== 'viewer';
  const timeline = useLoad(
    (signal) =>
      api.get('/api/companies/{company_id}/communications', {
        path: { company_id: companyId },
        query: { customer_id: customerId, ...SHOW[show].query, limit: PAGE, offset },
        signal,
      }),
    [companyId, customerId, show, offset, version],
  );
  return (
    <section className="card" aria-labelledby="customer-communications">
      <div className="card-header">
        <h2 id="customer-communications">Communications</h2>
        <label className="inline-field">
          Show{' '}
          <select
            value={show}
            onChange={(e) => {
              setShow(e.target.value as Show);
              setOffset(0);
            }}
          >
            {Object.entries(SHOW).map(([key, s]) => (
              <option key={key} value={key}>
                {s.label}
              </option>
            ))}
          </select>
        </label>
      </div>
      {timeline.error !== null && <ErrorBox what="the communications" error={timeline.error} onRetry={timeline.reload} />}
      {timeline.data && timeline.data.count === 0 && <p className="muted">{show === 'all' ? 'No emails, calls or notes yet.' : `No ${SHOW[show].label.toLowerCase()}.`}</p>}
      {timeline.data && timeline.data.count > 0 && (
        <>
          <ol className="timeline customer-timeline" data-testid="customer-timeline">
            {timeline.data.data.map((c) => {
              const words = describeCommunication(c);
              return (
                <li key={c.id} className={`timeline-item k-${c.kind}${words.isReply ? ' is-reply' : ''}`} data-testid="timeline-entry" data-reply={words.isReply || undefined}>
                  <span className="timeline-dot" aria-hidden="true" />
                  <div className="timeline-body">
                    <div>
                      {words.isReply ? <span className="pill pill-reply">Reply</span> : <span className="timeline-kind">{words.kind}</span>} <strong>{words.title}</strong>
                    </div>
                    <div className="muted small">
                      {formatTimestamp(c.occurred_at)}
                      {c.invoice && c.invoice_number ? (
                        <>
                          {' · '}
                          <InvoiceLink companyId={companyId} id={c.invoice} number={c.invoice_number} />
                        </>
                      ) : (
                        ' · whole account'
                      )}
                      {words.lines.map((line) => ` · ${line}`).join('')}
                    </div>
                    {c.body && <div className="small clamp">{c.body}</div>}
                    {c.reading && <ReplyReading companyId={companyId} communicationId={c.id} reading={c.reading} currency={c.currency} canWrite={canWrite} onChanged={onChanged} />}
                    {words.isReply && c.invoice && c.invoice_number && (
                      <button
                        type="button"
                        className="btn btn-small"
                        aria-label={`Open a dispute on ${c.invoice_number} from this reply`}
                        onClick={() => setDisputing({ communication: c.id, invoice: c.invoice!, number: c.invoice_number! })}
                      >
                        Open a dispute…
                      </button>
                    )}
                  </div>
                </li>
              );
            })}
          </ol>
          <Pager offset={offset} limit={PAGE} count={timeline.data.count} onOffset={setOffset} what="communications" />
        </>
      )}
      {disputing && (
        <OpenDisputeDialog
          companyId={companyId}
          invoiceId={disputing.invoice}
          invoiceNumber={disputing.number}
          communicationId={disputing.communication}
          onDone={() => {
            setDisputing(null);
            onChanged();
          }}
          onCancel={() => setDisputing(null)}
        />
      )}
    </section>
  );
}
