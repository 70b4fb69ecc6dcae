import { useState } from 'react';
import type { Schemas } from '../api/client';
import { ErrorBox } from '../components/ErrorBox';
import { InsightCard } from '../components/InsightCard';
import { describeInsight, feedOrder, onePerKind } from '../insights/describe';
import { useLoad } from '../components/useLoad';
import { formatDate, formatTimestamp } from '../desk/format';
import { companyPath, useRoute } from '../state/route';
import { api } from '../state/session';
import { ContactsEditor } from './ContactsEditor';
import { CustomerCredits } from './CustomerCredits';
import { CustomerCommunications, CustomerPayments } from './CustomerHistory';
import { CustomerPromises } from './CustomerPromises';
import { CustomerPortal } from './CustomerPortal';
import { EmailThreads } from './EmailThreads';

type Customer = Schemas['CustomerDetail'];

const ACTION_STATUS: Record<Schemas['Action']['status'], string> = {
  proposed: 'Proposed',
  scheduled: 'Scheduled',
  processing: 'Approved, in progress',
  completed: 'Done',
  cancelled: 'Cancelled',
};

/** The customer's insights with something to report, one card per kind: the most severe, then newest, of each. */
function Insights({ companyId, customerId }: { companyId: string; customerId: string }) {
  const insights = useLoad(
    async (signal) => {
      const page = await api.get('/api/intelligence/insights', { query: { company_id: companyId, customer_id: customerId, reportable_only: true, limit: 200 }, signal });
      return { results: onePerKind(feedOrder(page.results.map((i) => ({ ...i, words: describeInsight(i) })))) };
    },
    [companyId, customerId],
  );
  return (
    <section className="card" aria-labelledby="customer-insights">
      <h2 id="customer-insights">Insights</h2>
      {insights.error !== null && <ErrorBox what="the insights" error={insights.error} onRetry={insights.reload} />}
      {insights.data && insights.data.results.length === 0 && <p className="muted">No active insights about this customer or its invoices.</p>}
      <div className="insight-feed">
        {insights.data?.results.map((i) => (
          <InsightCard key={i.id} companyId={companyId} insight={i} />
        ))}
      </div>
    </section>
  );
}

function Actions({ companyId, customerId }: { companyId: string; customerId: string }) {
  const navigate = useRoute((s) => s.navigate);
  const actions = useLoad((signal) => api.get('/api/companies/{company_id}/actions', { path: { company_id: companyId }, query: { customer_id: customerId, page_size: 20 }, signal }), [companyId, customerId]);
  return (
    <section className="card" aria-labelledby="customer-actions">
      <h2 id="customer-actions">Actions</h2>
      {actions.error !== null && <ErrorBox what="the actions" error={actions.error} onRetry={actions.reload} />}
      {actions.data && actions.data.data.length === 0 && <p className="muted">No actions for this customer.</p>}
      {actions.data && actions.data.data.length > 0 && (
        <table className="data-table">
          <thead>
            <tr>
              <th scope="col">What</th>
              <th scope="col">Invoice</th>
              <th scope="col">Status</th>
              <th scope="col">When</th>
            </tr>
          </thead>
          <tbody>
            {actions.data.data.map((a) => (
              <tr key={a.id}>
                <td>
                  {a.action_type === 'email' ? 'Email' : a.action_type === 'call' ? 'Call' : 'Task'}: {a.description}
                </td>
                <td>
                  {a.invoice ? (
                    <a
                      href={companyPath(companyId, 'invoices', a.invoice)}
                      onClick={(e) => {
                        e.preventDefault();
                        navigate(companyPath(companyId, 'invoices', a.invoice));
                      }}
                    >
                      {a.invoice_number}
                    </a>
                  ) : (
                    <span className="muted">Whole account</span>
                  )}
                </td>
                <td>{ACTION_STATUS[a.status]}</td>
                <td>{formatTimestamp(a.executed_at ?? a.created_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {actions.data && actions.data.count > actions.data.data.length && <p className="muted small">The 20 newest of {actions.data.count}; the Actions page lists them all.</p>}
    </section>
  );
}

function Sequences({ companyId, customerId }: { companyId: string; customerId: string }) {
  const enrollments = useLoad(
    (signal) => api.get('/api/companies/{company_id}/sequence-enrollments', { path: { company_id: companyId }, query: { customer_id: customerId }, signal }),
    [companyId, customerId],
  );
  return (
    <section className="card" aria-labelledby="customer-sequences">
      <h2 id="customer-sequences">Sequences</h2>
      {enrollments.error !== null && <ErrorBox what="the sequences" error={enrollments.error} onRetry={enrollments.reload} />}
      {enrollments.data && enrollments.data.data.length === 0 && <p className="muted">Not enrolled in any sequence.</p>}
      {enrollments.data && enrollments.data.data.length > 0 && (
        <ul>
          {enrollments.data.data.map((e) => (
            <li key={e.id}>
              <strong>{e.sequence_name}</strong>: {e.status === 'active' ? `active since ${formatDate(e.start_date)}` : `completed ${formatTimestamp(e.completed_at)}${e.stop_reason ? ` (${e.stop_reason.replace(/_/g, ' ')})` : ''}`}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/**
 * What the customer page adds below the invoices: contacts and locations to edit, communications
 * and payments, insights, actions and sequences. `version` changes when a call or note was logged.
 * The sections need only the customer's id, so they ask for their data while the customer itself
 * is still loading (`customer` null); editing waits for it.
 */
export function CustomerSections({ companyId, customerId, customer, version, onSaved }: { companyId: string; customerId: string; customer: Customer | null; version: number; onSaved: () => void }) {
  const [editing, setEditing] = useState(false);
  return (
    <div className="stack customer-sections">
      {customer && (
        <div className="toolbar-row">
          <button type="button" className="btn" aria-expanded={editing} onClick={() => setEditing(!editing)}>
            {editing ? 'Close the editor' : 'Edit contacts and locations'}
          </button>
        </div>
      )}
      {customer && editing && (
        <ContactsEditor
          key={customer.updated_at}
          companyId={companyId}
          customer={customer}
          onSaved={() => {
            setEditing(false);
            onSaved();
          }}
        />
      )}
      <section className="card" aria-labelledby="customer-threads">
        <h2 id="customer-threads">Email threads</h2>
        <EmailThreads companyId={companyId} customerId={customerId} version={version} onChanged={onSaved} />
      </section>
      <div className="two-col">
        <CustomerCommunications companyId={companyId} customerId={customerId} version={version} onChanged={onSaved} />
        <CustomerPayments companyId={companyId} customerId={customerId} currency={customer?.currency ?? null} version={version} />
      </div>
      <div className="two-col">
        <Insights companyId={companyId} customerId={customerId} />
        <div className="stack">
          <Actions companyId={companyId} customerId={customerId} />
          <CustomerCredits companyId={companyId} customerId={customerId} version={version} />
          <CustomerPromises companyId={companyId} customerId={customerId} currency={customer?.currency ?? null} />
          <CustomerPortal companyId={companyId} customerId={customerId} onChanged={onSaved} />
          <Sequences companyId={companyId} customerId={customerId} />
        </div>
      </div>
    </div>
  );
}
