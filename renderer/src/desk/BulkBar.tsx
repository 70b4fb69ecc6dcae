import { useState } from 'react';
import { ConfirmDialog } from '../components/Dialog';
import { describeError, ErrorBox } from '../components/ErrorBox';
import type { Schemas } from '../api/client';
import { type Loaded, useLoad } from '../components/useLoad';
import { type AttachmentKind, AttachOptions } from '../documents/AttachOptions';
import { api } from '../state/session';
import { toast } from '../state/toasts';
import { billingContact, formatCount, recipientsSummary } from './format';
import { useDesk } from './store';

/** How many customers' billing contacts the confirmation looks up and lists by name. */
const LISTED_RECIPIENTS = 8;

/** The billing contacts the reminders go to, for the first few customers of the selection. */
function Recipients({ companyId, customers }: { companyId: string; customers: string[] }) {
  const shown = customers.slice(0, LISTED_RECIPIENTS);
  const contacts = useLoad(
    (signal) => Promise.all(shown.map((id) => api.get('/api/companies/{company_id}/customers/{customer_id}', { path: { company_id: companyId, customer_id: id }, signal }))),
    [companyId, shown.join()],
  );
  if (contacts.error !== null) return <ErrorBox what="the billing contacts" error={contacts.error} onRetry={contacts.reload} />;
  if (!contacts.data) return <p className="muted">Looking up billing contacts…</p>;
  return (
    <ul className="recipients" data-testid="reminder-recipients">
      {contacts.data.map((c) => {
        const billing = billingContact(c.contacts);
        return (
          <li key={c.id}>
            <strong>{c.name}</strong>: {billing?.email ? `${billing.name} <${billing.email}>` : <span className="bad">no billing email: this reminder will fail</span>}
          </li>
        );
      })}
      {customers.length > shown.length && <li className="muted">and {formatCount(customers.length - shown.length)} more customers</li>}
    </ul>
  );
}

/**
 * Each selected invoice's warnings: those a collector must not chase over (a dispute, a standing
 * promise, an unanswered reply, a ready sequence step) are left out by default, in one click.
 */
function HeldInvoices({
  preview,
  leaveOut,
  onLeaveOut,
  reason,
  onReason,
}: {
  preview: Loaded<Schemas['BulkReminderPreview'] | null>;
  leaveOut: boolean;
  onLeaveOut: (v: boolean) => void;
  reason: string;
  onReason: (v: string) => void;
}) {
  if (preview.error !== null) return <ErrorBox what="the warnings" error={preview.error} onRetry={preview.reload} />;
  if (!preview.data) return <p className="muted">Checking each invoice for disputes, promises, replies and sequence steps…</p>;
  const held = preview.data.data.filter((d) => d.held);
  const warned = preview.data.data.filter((d) => !d.held && d.warnings.length > 0);
  return (
    <div className="bulk-warnings" data-testid="bulk-warnings">
      {held.length > 0 && (
        <>
          <label className="check">
            <input type="checkbox" checked={leaveOut} onChange={(e) => onLeaveOut(e.target.checked)} />
            Leave out the {plural(held.length)} below: the customer is waiting for us or is already being chased
          </label>
          <ul className="warnings" data-testid="held-invoices">
            {held.map((d) => (
              <li key={d.invoice_id} data-invoice={d.invoice_number}>
                <strong>
                  {d.invoice_number} · {d.customer_name}
                </strong>
                {leaveOut ? ' (left out)' : ''}: {d.warnings.map((w) => w.message).join(' ')}
              </li>
            ))}
          </ul>
          {!leaveOut && (
            // Sending them is sending through the contact rule's holds: a person says why, and the change log keeps it.
            <label className="stacked">
              Why they go anyway (kept in the change log)
              <input data-testid="override-reason" maxLength={500} value={reason} onChange={(e) => onReason(e.target.value)} />
            </label>
          )}
        </>
      )}
      {warned.length > 0 && (
        <ul className="warnings muted" data-testid="warned-invoices">
          {warned.map((d) => (
            <li key={d.invoice_id}>
              {d.invoice_number} · {d.customer_name}: {d.warnings.map((w) => w.message).join(' ')}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function plural(k: number): string {
  return `${formatCount(k)} invoice${k === 1 ? '' : 's'}`;
}

type BulkBody = { add_labels?: string[]; remove_labels?: string[]; updates?: { next_follow_up_date?: string | null; payment_link?: string | null } };

/** Actions on the selected invoices. Each write refreshes the grid and reports in a toast. */
export function BulkBar({ companyId, onClear }: { companyId: string; onClear: () => void }) {
  const { selection, labels, changed } = useDesk();
  const [labelId, setLabelId] = useState('');
  const [followUp, setFollowUp] = useState('');
  const [link, setLink] = useState('');
  const [busy, setBusy] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [attach, setAttach] = useState<AttachmentKind[]>([]);
  const n = selection.length;
  const ids = selection.map((s) => s.id);

  async function patch(body: BulkBody, done: (updated: number) => string) {
    setBusy(true);
    try {
      const res = await api.patch('/api/companies/{company_id}/invoices/bulk', { path: { company_id: companyId }, body: { invoice_ids: ids, ...body } });
      toast.success(done(res.updated));
      changed();
    } catch (err) {
      toast.error(`Nothing was changed: ${describeError(err)}`);
    } finally {
      setBusy(false);
    }
  }

  const [leaveOut, setLeaveOut] = useState(true);
  const preview = useLoad(
    (signal) =>
      confirming ? api.post('/api/companies/{company_id}/invoices/bulk/reminder-preview', { path: { company_id: companyId }, body: { invoice_ids: ids }, signal }) : Promise.resolve(null),
    [companyId, confirming, ids.join()],
  );
  const [overrideReason, setOverrideReason] = useState('');
  const anyHeld = preview.data?.data.some((d) => d.held) ?? false;
  const heldIds = new Set(leaveOut ? (preview.data?.data.filter((d) => d.held).map((d) => d.invoice_id) ?? []) : []);
  const sending = ids.filter((id) => !heldIds.has(id));
  const sendingAnyway = !leaveOut && anyHeld;

  async function sendReminders() {
    setBusy(true);
    try {
      const res = await api.post('/api/companies/{company_id}/invoices/bulk/send-reminders', {
        path: { company_id: companyId },
        body: { invoice_ids: sending, attach, ...(sendingAnyway ? { override_reason: overrideReason.trim() } : {}) },
      });
      const left = ids.length - sending.length;
      toast.success(`Reminders queued for ${plural(res.invoice_ids.length - res.held.length)}${left ? `; ${plural(left)} left out` : ''}${res.held.length ? `; ${plural(res.held.length)} on hold` : ''}. ${res.message}`);
      setConfirming(false);
      changed();
    } catch (err) {
      toast.error(`Reminders were not queued: ${describeError(err)}`);
    } finally {
      setBusy(false);
    }
  }

  const label = labels.find((l) => l.id === labelId);

  return (
    <div className="bulk-bar" role="toolbar" aria-label="Bulk actions">
      <strong>{plural(n)} selected</strong>
      <span className="bulk-group">
        <select aria-label="Label for selected" value={labelId} onChange={(e) => setLabelId(e.target.value)}>
          <option value="">Label…</option>
          {labels.map((l) => (
            <option key={l.id} value={l.id}>
              {l.name}
            </option>
          ))}
        </select>
        <button type="button" className="btn btn-small" disabled={busy || !label} onClick={() => void patch({ add_labels: [labelId] }, (k) => `Added “${label!.name}” to ${plural(k)}`)}>
          Add label
        </button>
        <button type="button" className="btn btn-small" disabled={busy || !label} onClick={() => void patch({ remove_labels: [labelId] }, (k) => `Removed “${label!.name}” from ${plural(k)}`)}>
          Remove label
        </button>
      </span>
      <span className="bulk-group">
        <input type="date" aria-label="Next follow-up date for selected" value={followUp} onChange={(e) => setFollowUp(e.target.value)} />
        <button
          type="button"
          className="btn btn-small"
          disabled={busy || !followUp}
          onClick={() => void patch({ updates: { next_follow_up_date: followUp } }, (k) => `Next follow-up set on ${plural(k)}`)}
        >
          Set follow-up
        </button>
      </span>
      <span className="bulk-group">
        <input type="url" aria-label="Payment link for selected" placeholder="https://pay.example.com/…" value={link} onChange={(e) => setLink(e.target.value)} />
        <button type="button" className="btn btn-small" disabled={busy || !link} onClick={() => void patch({ updates: { payment_link: link } }, (k) => `Payment link set on ${plural(k)}`)}>
          Set link
        </button>
      </span>
      <button type="button" className="btn btn-small btn-primary" disabled={busy} onClick={() => setConfirming(true)}>
        Send reminders…
      </button>
      <span className="spacer" />
      <button type="button" className="btn btn-ghost btn-small" onClick={onClear}>
        Clear selection
      </button>
      {confirming && (
        <ConfirmDialog
          title="Send payment reminders?"
          confirmLabel={`Send ${formatCount(sending.length)} reminder${sending.length === 1 ? '' : 's'}`}
          busy={busy}
          disabled={!preview.data || sending.length === 0 || (sendingAnyway && !overrideReason.trim())}
          onConfirm={() => void sendReminders()}
          onCancel={() => setConfirming(false)}
        >
          <p>
            One reminder email per invoice, {plural(n)} in all, to the billing contact of each customer: {recipientsSummary(selection)}.
          </p>
          <HeldInvoices preview={preview} leaveOut={leaveOut} onLeaveOut={setLeaveOut} reason={overrideReason} onReason={setOverrideReason} />
          <Recipients companyId={companyId} customers={[...new Set(selection.map((s) => s.customer))]} />
          <AttachOptions chosen={attach} onChange={setAttach} note="Each reminder gets its own invoice's PDF and its customer's statement, made when it is sent." />
          <p className="muted">Reminders are sent in the background from the company's default email connection.</p>
        </ConfirmDialog>
      )}
    </div>
  );
}
