import { useState } from 'react';
import { type CallOutcome, promiseAmountValue } from '../components/callOutcomes';
import { describeError, ErrorBox } from '../components/ErrorBox';
import { CallFields } from '../components/LogContact';
import { useLoad } from '../components/useLoad';
import { AttachedFiles, type AttachmentKind, AttachOptions } from '../documents/AttachOptions';
import { api } from '../state/session';
import { toast } from '../state/toasts';
import { EmailEditor } from './StepControls';
import type { QueueRow } from './words';

/**
 * The email a ready step will send, rendered for its customer, with the sender and recipient; the
 * collector may rewrite it, and choose its documents for this send (the step's choice until then).
 */
export function EmailPreview({
  companyId,
  row,
  sending,
  sendLabel = 'Send this email',
  onSend,
  onChanged,
}: {
  companyId: string;
  row: QueueRow;
  sending: boolean;
  /** The send button's words ("Send now" for a step not due yet). */
  sendLabel?: string;
  onSend: (attach?: AttachmentKind[], overrideReason?: string) => void;
  onChanged: () => void;
}) {
  const [overrideReason, setOverrideReason] = useState('');
  const [editing, setEditing] = useState(false);
  const [attach, setAttach] = useState<AttachmentKind[] | null>(null);
  const preview = useLoad(
    (signal) =>
      api.get('/api/companies/{company_id}/sequences/queue/{scheduled_step_id}/preview', {
        path: { company_id: companyId, scheduled_step_id: row.id },
        query: attach === null ? {} : { attach: attach.join(',') },
        signal,
      }),
    [companyId, row.id, row.edited_at, attach?.join()],
  );
  const p = preview.data;
  // Until the collector chooses, the step's own documents, as its preview lists them.
  const chosen = attach ?? [...new Set(p?.attachments.map((a) => a.kind) ?? [])];
  if (editing && p) {
    return (
      <EmailEditor
        companyId={companyId}
        row={row}
        subject={p.subject}
        body={p.body}
        onCancel={() => setEditing(false)}
        onDone={() => {
          setEditing(false);
          onChanged();
        }}
      />
    );
  }
  return (
    <div className="stack" data-testid="email-preview">
      {preview.error !== null && <ErrorBox what="the email preview" error={preview.error} onRetry={preview.reload} />}
      {!p && preview.error === null && <p className="muted">Rendering the email…</p>}
      {p && (
        <>
          <dl className="fields">
            <div className="field">
              <dt>From</dt>
              <dd>{p.sender ? `${p.sender.from_name ?? p.sender.name} <${p.sender.from_email}>` : <span className="bad">No sender: set one on the sequence</span>}</dd>
            </div>
            <div className="field">
              <dt>To</dt>
              <dd>{p.to ? `${p.contact_name ?? ''} <${p.to}>` : <span className="bad">The customer has no contact with an email address</span>}</dd>
            </div>
            <div className="field">
              <dt>Subject</dt>
              <dd>{p.subject}</dd>
            </div>
          </dl>
          {row.edited_at && <p className="muted small">Edited: this email goes out as you wrote it, not from the sequence's template.</p>}
          <div className="preview-box">{p.body}</div>
          <AttachOptions chosen={chosen} onChange={setAttach} note="For this email only; the step keeps its own choice. Made when the email is sent, with the figures of that moment." />
          {preview.loading ? <p className="muted small">Preparing the attachments…</p> : <AttachedFiles files={p.attachments} />}
          {p.unknown_placeholders.length > 0 && <p className="notice-warn">Unknown placeholders stay as written: {p.unknown_placeholders.map((n) => `{{${n}}}`).join(', ')}</p>}
          {p.hold_reason && (
            <p className="notice-warn" data-testid="hold-reason">
              {p.hold_reason.startsWith('Held:') ? `Not sent: ${p.hold_reason.slice('Held: '.length)} Nothing goes until the hold is lifted, or you send it anyway with a reason.` : p.hold_reason}
            </p>
          )}
          {p.hold_reason?.startsWith('Held:') && (
            <div className="form-actions">
              <label className="wide-field">
                Why it goes anyway (kept in the change log)
                <input value={overrideReason} maxLength={500} onChange={(e) => setOverrideReason(e.target.value)} />
              </label>
              <button type="button" className="btn" disabled={sending || !p.sender || !p.to || p.refused_reason !== null || !overrideReason.trim()} onClick={() => onSend(attach ?? undefined, overrideReason.trim())}>
                Send anyway
              </button>
            </div>
          )}
          {p.refused_reason && (
            <p className="notice-warn" data-testid="refused-reason">
              Not sent as it is: {p.refused_reason} You can also edit this email.
            </p>
          )}
          <div className="form-actions">
            <button type="button" className="btn btn-primary" disabled={sending || !p.sender || !p.to || p.refused_reason !== null || (p.hold_reason?.startsWith('Held:') ?? false)} onClick={() => onSend(attach ?? undefined)}>
              {sendLabel}
            </button>
            <button type="button" className="btn" disabled={sending} onClick={() => setEditing(true)}>
              Edit this email
            </button>
          </div>
        </>
      )}
    </div>
  );
}

/** A call step's number and contact, or a task's instructions; completing records what happened. */
export function CompleteStepForm({ companyId, row, onDone }: { companyId: string; row: QueueRow; onDone: () => void }) {
  const [note, setNote] = useState('');
  const [outcome, setOutcome] = useState<CallOutcome | ''>('');
  const [promiseDate, setPromiseDate] = useState('');
  const [promiseAmount, setPromiseAmount] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const customer = useLoad(
    (signal) => (row.step_type === 'call' ? api.get('/api/companies/{company_id}/customers/{customer_id}', { path: { company_id: companyId, customer_id: row.customer }, signal }) : Promise.resolve(null)),
    [companyId, row.customer, row.step_type],
  );
  const phones = customer.data?.contacts.filter((c) => c.phone) ?? [];

  async function complete() {
    setBusy(true);
    setError(null);
    try {
      await api.post('/api/companies/{company_id}/sequences/queue/{scheduled_step_id}/complete', {
        path: { company_id: companyId, scheduled_step_id: row.id },
        body:
          row.step_type === 'call'
            ? {
                note: note.trim() || undefined,
                outcome: outcome || undefined,
                promise_date: outcome === 'promised_to_pay' && promiseDate ? promiseDate : undefined,
                promise_amount: outcome === 'promised_to_pay' ? promiseAmountValue(promiseAmount) : undefined,
              }
            : { note: note.trim() || undefined },
      });
      toast.success(row.step_type === 'call' ? `Call with ${row.customer_name} logged` : 'Task completed');
      onDone();
    } catch (err) {
      setError(describeError(err));
    }
    setBusy(false);
  }

  return (
    <form
      className="stack"
      aria-label={row.step_type === 'call' ? `Log the call to ${row.customer_name}` : `Complete the task for ${row.customer_name}`}
      onSubmit={(e) => {
        e.preventDefault();
        void complete();
      }}
    >
      {row.step_type === 'call' && (
        <div>
          {customer.error !== null && <ErrorBox what="the customer's contacts" error={customer.error} onRetry={customer.reload} />}
          {customer.data && phones.length === 0 && <p className="muted">No phone number on file for {row.customer_name}.</p>}
          {phones.map((c) => (
            <div key={c.id}>
              <strong>{c.name}</strong>
              {c.title ? <span className="muted"> · {c.title}</span> : null}
              {' · '}
              <a href={`tel:${c.phone}`}>{c.phone}</a>
              {c.is_billing && <span className="pill">billing</span>}
            </div>
          ))}
        </div>
      )}
      {row.step_type === 'call' && (
        <CallFields
          outcome={outcome}
          promiseDate={promiseDate}
          promiseAmount={promiseAmount}
          onChange={(p) => {
            if (p.outcome !== undefined) setOutcome(p.outcome);
            if (p.promiseDate !== undefined) setPromiseDate(p.promiseDate);
            if (p.promiseAmount !== undefined) setPromiseAmount(p.promiseAmount);
          }}
        />
      )}
      <label className="wide-field">
        {row.step_type === 'call' ? 'What was said (note)' : 'Note'}
        <textarea value={note} onChange={(e) => setNote(e.target.value)} />
      </label>
      {error && (
        <div className="error-box" role="alert">
          <span>{error}</span>
        </div>
      )}
      <div className="form-actions">
        <button type="submit" className="btn btn-primary" disabled={busy}>
          {row.step_type === 'call' ? 'Log call and complete' : 'Complete task'}
        </button>
      </div>
    </form>
  );
}
