import { useState } from 'react';
import type { Schemas } from '../api/client';
import { ErrorBox } from '../components/ErrorBox';
import { useLoad } from '../components/useLoad';
import { FormError, useSave } from '../components/useSave';
import { formatDate, formatTimestamp } from '../desk/format';
import { api, useSession } from '../state/session';

type Submission = Schemas['PortalSubmission'];

/** A proposed contact in words: "Ann Lee, ann@example.com, +1 555 0100". */
function contactWords(s: Submission): string {
  const d = s.details as { name?: string; email?: string; phone?: string | null };
  return [d.name, d.email, d.phone].filter(Boolean).join(', ');
}

/**
 * The customer's payment portal, for the collector: a link to hand the customer (made on demand,
 * shown once), revoking every link, and the billing contacts the customer proposed there, to accept
 * or decline. What else they sent is in their history and the Actions inbox.
 */
export function CustomerPortal({ companyId, customerId, onChanged }: { companyId: string; customerId: string; onChanged: () => void }) {
  const role = useSession((s) => s.companies.find((c) => c.id === companyId)?.role);
  const canWrite = role !== undefined && role !== 'viewer';
  const path = { company_id: companyId, customer_id: customerId };
  const proposals = useLoad(
    (signal) => api.get('/api/companies/{company_id}/portal-submissions', { path: { company_id: companyId }, query: { customer_id: customerId, status: 'open' }, signal }),
    [companyId, customerId],
  );
  const [link, setLink] = useState<{ url: string; expires_at: string } | null>(null);
  const save = useSave();
  const contacts = (proposals.data?.data ?? []).filter((s) => s.kind === 'contact');
  const decide = (s: Submission, decision: 'accept' | 'decline') =>
    void save
      .run(
        () => {
          const args = { path: { company_id: companyId, submission_id: s.id } };
          return decision === 'accept' ? api.post('/api/companies/{company_id}/portal-submissions/{submission_id}/accept', args) : api.post('/api/companies/{company_id}/portal-submissions/{submission_id}/decline', args);
        },
        decision === 'accept' ? `${contactWords(s)} is now the billing contact` : 'The proposed contact was declined',
      )
      .then((ok) => {
        if (!ok) return;
        proposals.reload();
        onChanged();
      });
  return (
    <section className="card stack" aria-labelledby="customer-portal" data-testid="customer-portal">
      <h2 id="customer-portal">Customer portal</h2>
      {proposals.error !== null && <ErrorBox what="what the customer sent through the portal" error={proposals.error} onRetry={proposals.reload} />}
      {contacts.map((s) => (
        <div key={s.id} className="stack" data-testid="portal-contact-proposal">
          <p>
            Proposed billing contact: <strong>{contactWords(s)}</strong> <span className="muted">(sent {formatTimestamp(s.created_at)})</span>
          </p>
          {canWrite && (
            <div className="toolbar-row">
              <button type="button" className="btn btn-small" disabled={save.busy} onClick={() => decide(s, 'accept')}>
                Make it the billing contact
              </button>
              <button type="button" className="btn btn-small" disabled={save.busy} onClick={() => decide(s, 'decline')}>
                Decline
              </button>
            </div>
          )}
        </div>
      ))}
      {link && (
        <p>
          <label className="stacked">
            Link for this customer (valid until {formatDate(link.expires_at.slice(0, 10))})
            <input type="text" readOnly value={link.url} onFocus={(e) => e.currentTarget.select()} />
          </label>
        </p>
      )}
      {canWrite && (
        <div className="toolbar-row">
          <button
            type="button"
            className="btn btn-small"
            disabled={save.busy}
            onClick={() => void save.run(async () => setLink(await api.post('/api/companies/{company_id}/customers/{customer_id}/portal-link', { path })), 'A new portal link was made')}
          >
            Make a link
          </button>
          <button
            type="button"
            className="btn btn-small"
            disabled={save.busy}
            onClick={() =>
              void save.run(async () => {
                await api.delete('/api/companies/{company_id}/customers/{customer_id}/portal-link', { path });
                setLink(null);
              }, 'Every portal link of this customer was revoked')
            }
          >
            Revoke every link
          </button>
        </div>
      )}
      <FormError error={save.error} />
    </section>
  );
}
