import { useState } from 'react';
import type { Schemas } from '../api/client';
import { ConfirmDialog } from '../components/Dialog';
import { describeError, ErrorBox } from '../components/ErrorBox';
import { useLoad } from '../components/useLoad';
import { api } from '../state/session';
import { toast } from '../state/toasts';
import { formatTimestamp } from './format';

type Dispute = Schemas['Dispute'];

/**
 * Whether the customer's sequences run or why each is paused, in words ("Paused: Tri-County
 * promised payment by Nov 27"), read live from the chase.
 */
export function ChaseStatus({ companyId, customerId, version }: { companyId: string; customerId: string; version: number }) {
  const chase = useLoad(
    (signal) => api.get('/api/companies/{company_id}/customers/{customer_id}/chase', { path: { company_id: companyId, customer_id: customerId }, signal }),
    [companyId, customerId, version],
  );
  if (chase.error !== null) return <ErrorBox what="whether the customer's sequences are paused" error={chase.error} onRetry={chase.reload} />;
  const c = chase.data;
  if (!c || (c.enrollments.length === 0 && c.holds.length === 0 && c.contact.reason === null)) return null;
  return (
    <ul className="chase-status" data-testid="chase-status">
      {c.contact.reason && (
        <li className="contact-held" data-testid="chase-contact">
          {c.contact.allowed ? `Emails now: ${c.contact.reason.replace(/^Left out: /, 'leave out ')}` : `Nothing goes out now: ${c.contact.reason.replace(/^Held: /, '')}`}
        </li>
      )}
      {c.enrollments.map((e) => (
        <li key={e.id} data-testid="chase-enrollment" className={e.pause_reason ? 'is-paused' : undefined}>
          <span className="muted">{e.sequence_name}: </span>
          {e.pause_reason ?? 'running'}
        </li>
      ))}
      {c.enrollments.length === 0 &&
        c.holds.map((h) => (
          <li key={h.kind} data-testid="chase-hold">
            <span className="muted">Holds a reminder: </span>
            {h.reason}
          </li>
        ))}
    </ul>
  );
}

/** The invoice's disputes: open one (reason and owner), edit one, resolve the open one with a note. */
export function Disputes({ companyId, invoiceId, invoiceNumber, closed, version, onSaved }: { companyId: string; invoiceId: string; invoiceNumber: string; closed: boolean; version: number; onSaved: () => void }) {
  const disputes = useLoad((signal) => api.get('/api/companies/{company_id}/disputes', { path: { company_id: companyId }, query: { invoice_id: invoiceId }, signal }), [companyId, invoiceId, version]);
  const [opening, setOpening] = useState(false);
  const [resolving, setResolving] = useState<Dispute | null>(null);
  const [editing, setEditing] = useState<Dispute | null>(null);
  const list = disputes.data?.data ?? [];
  const open = list.some((d) => d.status === 'open');
  return (
    <section className="panel-section" data-testid="panel-disputes">
      <div className="section-head">
        <h3>Disputes</h3>
        {!open && (
          <button type="button" className="btn btn-small" disabled={closed} title={closed ? 'A closed invoice has nothing left to dispute' : undefined} onClick={() => setOpening(true)}>
            Open a dispute…
          </button>
        )}
      </div>
      {disputes.error !== null && <ErrorBox what="the disputes" error={disputes.error} onRetry={disputes.reload} />}
      {disputes.data && list.length === 0 && <p className="muted">No disputes.</p>}
      {list.length > 0 && (
        <ol className="timeline">
          {list.map((d) => (
            <li key={d.id} className="timeline-item" data-testid="dispute" data-status={d.status}>
              <span className="timeline-dot" aria-hidden="true" />
              <div>
                <strong>{d.reason}</strong> <span className={`pill ${d.status === 'open' ? 'pill-failed' : 'pill-paid'}`}>{d.status}</span>
                <div className="muted small">
                  Opened {formatTimestamp(d.created_at)}
                  {d.opened_by ? ` by ${d.opened_by}` : ''} · {d.owner_name ? `owner ${d.owner_name}` : 'no owner'}
                </div>
                {d.status === 'resolved' && (
                  <div className="small">
                    Resolved {d.resolved_at ? formatTimestamp(d.resolved_at) : ''}
                    {d.resolved_by ? ` by ${d.resolved_by}` : ''}: {d.resolution}
                  </div>
                )}
                <div className="dispute-actions">
                  <button type="button" className="btn btn-small" onClick={() => setEditing(d)}>
                    Edit…<span className="sr-only"> the dispute: {d.reason}</span>
                  </button>
                  {d.status === 'open' && (
                    <button type="button" className="btn btn-small" onClick={() => setResolving(d)}>
                      Resolve…
                    </button>
                  )}
                </div>
              </div>
            </li>
          ))}
        </ol>
      )}
      {opening && (
        <OpenDisputeDialog
          companyId={companyId}
          invoiceId={invoiceId}
          invoiceNumber={invoiceNumber}
          onDone={() => {
            setOpening(false);
            onSaved();
          }}
          onCancel={() => setOpening(false)}
        />
      )}
      {editing && (
        <EditDisputeDialog
          companyId={companyId}
          dispute={editing}
          onDone={() => {
            setEditing(null);
            onSaved();
          }}
          onCancel={() => setEditing(null)}
        />
      )}
      {resolving && (
        <ResolveDisputeDialog
          companyId={companyId}
          dispute={resolving}
          onDone={() => {
            setResolving(null);
            onSaved();
          }}
          onCancel={() => setResolving(null)}
        />
      )}
    </section>
  );
}

/** Opening a dispute on an invoice: from the panel, or from a reply (communicationId). */
export function OpenDisputeDialog({
  companyId,
  invoiceId,
  invoiceNumber,
  communicationId = null,
  onDone,
  onCancel,
}: {
  companyId: string;
  invoiceId: string;
  invoiceNumber: string;
  communicationId?: string | null;
  onDone: () => void;
  onCancel: () => void;
}) {
  const team = useLoad((signal) => api.get('/api/companies/{company_id}/team-members', { path: { company_id: companyId }, signal }), [companyId]);
  const [reason, setReason] = useState('');
  const [owner, setOwner] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function submit() {
    setBusy(true);
    setError(null);
    try {
      await api.post('/api/companies/{company_id}/disputes', { path: { company_id: companyId }, body: { invoice_id: invoiceId, reason, owner_id: owner || null, communication_id: communicationId } });
      toast.success(`Dispute opened on ${invoiceNumber}: its chase is paused until it is resolved`);
      onDone();
    } catch (err) {
      setError(describeError(err));
      setBusy(false);
    }
  }

  return (
    <ConfirmDialog title={`Open a dispute on ${invoiceNumber}`} confirmLabel="Open dispute" busy={busy} disabled={!reason.trim()} focusConfirm={false} onConfirm={() => void submit()} onCancel={onCancel}>
      <div className="form-grid" data-testid="open-dispute">
        <label>
          What does the customer dispute?
          <textarea rows={3} maxLength={500} value={reason} autoFocus onChange={(e) => setReason(e.target.value)} />
        </label>
        <label>
          Owner
          <select value={owner} onChange={(e) => setOwner(e.target.value)}>
            <option value="">Nobody yet</option>
            {team.data?.data
              .filter((m) => m.is_active)
              .map((m) => (
                <option key={m.id} value={m.id}>
                  {m.name}
                </option>
              ))}
          </select>
        </label>
        <p className="muted small">While the dispute is open, the customer's sequences pause and reminders for this invoice warn about it.</p>
      </div>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
    </ConfirmDialog>
  );
}

function ResolveDisputeDialog({ companyId, dispute, onDone, onCancel }: { companyId: string; dispute: Dispute; onDone: () => void; onCancel: () => void }) {
  const [resolution, setResolution] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function submit() {
    setBusy(true);
    setError(null);
    try {
      await api.post('/api/companies/{company_id}/disputes/{dispute_id}/resolve', { path: { company_id: companyId, dispute_id: dispute.id }, body: { resolution } });
      toast.success(`Dispute on ${dispute.invoice_number} resolved: the chase goes on`);
      onDone();
    } catch (err) {
      setError(describeError(err));
      setBusy(false);
    }
  }

  return (
    <ConfirmDialog title={`Resolve the dispute on ${dispute.invoice_number}`} confirmLabel="Resolve dispute" busy={busy} disabled={!resolution.trim()} focusConfirm={false} onConfirm={() => void submit()} onCancel={onCancel}>
      <p>{dispute.reason}</p>
      <label className="form-grid">
        How was it resolved?
        <textarea rows={3} maxLength={2000} value={resolution} autoFocus onChange={(e) => setResolution(e.target.value)} />
      </label>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
    </ConfirmDialog>
  );
}

/** Editing a dispute: its reason and owner, and once resolved how it was resolved. Only what changed is sent. */
function EditDisputeDialog({ companyId, dispute, onDone, onCancel }: { companyId: string; dispute: Dispute; onDone: () => void; onCancel: () => void }) {
  const team = useLoad((signal) => api.get('/api/companies/{company_id}/team-members', { path: { company_id: companyId }, signal }), [companyId]);
  const [reason, setReason] = useState(dispute.reason);
  const [owner, setOwner] = useState(dispute.owner ?? '');
  const [resolution, setResolution] = useState(dispute.resolution ?? '');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const resolved = dispute.status === 'resolved';
  const body = {
    ...(reason.trim() !== dispute.reason ? { reason } : {}),
    ...(owner !== (dispute.owner ?? '') ? { owner_id: owner || null } : {}),
    ...(resolved && resolution.trim() !== (dispute.resolution ?? '') ? { resolution } : {}),
  };
  const changed = Object.keys(body).length > 0;

  async function submit() {
    setBusy(true);
    setError(null);
    try {
      await api.patch('/api/companies/{company_id}/disputes/{dispute_id}', { path: { company_id: companyId, dispute_id: dispute.id }, body });
      toast.success(`Dispute on ${dispute.invoice_number} saved`);
      onDone();
    } catch (err) {
      setError(describeError(err));
      setBusy(false);
    }
  }

  return (
    <ConfirmDialog
      title={`Edit the dispute on ${dispute.invoice_number}`}
      confirmLabel="Save dispute"
      busy={busy}
      disabled={!changed || !reason.trim() || (resolved && !resolution.trim())}
      focusConfirm={false}
      onConfirm={() => void submit()}
      onCancel={onCancel}
    >
      <div className="form-grid" data-testid="edit-dispute">
        <label>
          What does the customer dispute?
          <textarea rows={3} maxLength={500} value={reason} autoFocus onChange={(e) => setReason(e.target.value)} />
        </label>
        <label>
          Owner
          <select value={owner} onChange={(e) => setOwner(e.target.value)}>
            <option value="">Nobody yet</option>
            {team.data?.data
              .filter((m) => m.is_active || m.id === dispute.owner)
              .map((m) => (
                <option key={m.id} value={m.id}>
                  {m.name}
                </option>
              ))}
          </select>
        </label>
        {resolved && (
          <label>
            How was it resolved?
            <textarea rows={3} maxLength={2000} value={resolution} onChange={(e) => setResolution(e.target.value)} />
          </label>
        )}
        <p className="muted small">The change is noted on the invoice's activity{resolved ? '' : ", and the customer's paused sequences name the new reason"}.</p>
      </div>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
    </ConfirmDialog>
  );
}
