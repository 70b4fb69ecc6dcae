import { useState } from 'react';
import type { Schemas } from '../api/client';
import { ConfirmDialog } from '../components/Dialog';
import { describeError, ErrorBox } from '../components/ErrorBox';
import { useLoad } from '../components/useLoad';
import { type AttachmentKind, AttachOptions } from '../documents/AttachOptions';
import { api } from '../state/session';
import { toast } from '../state/toasts';
import { reminderWhen } from './reminder-words';
import type { InvoiceDetail } from './types';

type Reminder = Schemas['Reminder'];

/** The stylesheet's pill colours: sent reads as done, failed as bad, waiting or sending as pending. */
const REMINDER_PILL: Record<Reminder['status'], string> = { sent: 'pill-paid', failed: 'pill-failed', queued: 'pill-pending', running: 'pill-pending' };


/** The invoice's reminders and their outcome, and sending one after a preview of the email. */
export function Reminders({ companyId, invoice, version, onSaved }: { companyId: string; invoice: InvoiceDetail; version: number; onSaved: () => void }) {
  const reminders = useLoad(
    (signal) => api.get('/api/companies/{company_id}/invoices/{invoice_id}/reminders', { path: { company_id: companyId, invoice_id: invoice.id }, signal }),
    [companyId, invoice.id, version],
  );
  const [previewing, setPreviewing] = useState(false);
  const closed = invoice.status.startsWith('closed_');
  return (
    <section className="panel-section" data-testid="panel-reminders">
      <div className="section-head">
        <h3>Reminders</h3>
        <button type="button" className="btn btn-small" data-shortcut="reminder" aria-keyshortcuts="R" disabled={closed} title={closed ? 'A closed invoice gets no reminder' : undefined} onClick={() => setPreviewing(true)}>
          Send reminder…
        </button>
      </div>
      {reminders.error !== null && <ErrorBox what="the reminders" error={reminders.error} onRetry={reminders.reload} />}
      {reminders.data && reminders.data.data.length === 0 && <p className="muted">No reminders yet.</p>}
      {reminders.data && reminders.data.data.length > 0 && (
        <ol className="timeline">
          {reminders.data.data.map((r) => (
            <li key={r.id} className="timeline-item" data-testid="reminder">
              <span className="timeline-dot" aria-hidden="true" />
              <div>
                <strong>{reminderWhen(r)}</strong>
                <span className={`pill ${REMINDER_PILL[r.status]}`}>{r.status}</span>
                <div className="muted small">
                  To {r.recipient ?? 'no billing contact'}
                  {r.queued_by ? ` · asked by ${r.queued_by}` : ''}
                </div>
                {r.last_error && r.status !== 'sent' && <div className="small form-error clamp">{r.last_error}</div>}
              </div>
            </li>
          ))}
        </ol>
      )}
      {previewing && (
        <ReminderDialog
          companyId={companyId}
          invoice={invoice}
          onSent={() => {
            setPreviewing(false);
            onSaved();
          }}
          onCancel={() => setPreviewing(false)}
        />
      )}
    </section>
  );
}

/** The preview's warnings that are the contact rule's holds: the reminder is held unless sent anyway. */
const RULE_HOLDS = ['dispute', 'promise', 'reply_unanswered', 'contact_held'] as const;

function ReminderDialog({ companyId, invoice, onSent, onCancel }: { companyId: string; invoice: InvoiceDetail; onSent: () => void; onCancel: () => void }) {
  const preview = useLoad(
    (signal) => api.get('/api/companies/{company_id}/invoices/{invoice_id}/reminder-preview', { path: { company_id: companyId, invoice_id: invoice.id }, signal }),
    [companyId, invoice.id],
  );
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [attach, setAttach] = useState<AttachmentKind[]>([]);
  // null: the template's words as previewed.
  const [subject, setSubject] = useState<string | null>(null);
  const [body, setBody] = useState<string | null>(null);
  const p = preview.data;
  const blocked = !p || p.blockers.length > 0;
  // Only changed text travels: unchanged, the worker renders the template with the figures of the moment it sends.
  const edit = p?.email
    ? { ...(subject !== null && subject !== p.email.subject ? { subject } : {}), ...(body !== null && body !== p.email.text ? { body } : {}) }
    : {};
  const edited = Object.keys(edit).length > 0;
  // The contact rule holds it (a dispute, a promise, a reply, a person's pause, today's email): it goes only with a reason.
  const held = p?.warnings.some((w) => (RULE_HOLDS as readonly string[]).includes(w.kind)) ?? false;
  const [reason, setReason] = useState('');

  async function send() {
    setBusy(true);
    setError(null);
    try {
      const res = await api.post('/api/companies/{company_id}/invoices/bulk/send-reminders', {
        path: { company_id: companyId },
        body: { invoice_ids: [invoice.id], attach, ...edit, ...(held ? { override_reason: reason.trim() } : {}) },
      });
      // Held at the moment it was asked (a hold recorded since the preview): nothing was queued; say why.
      if (res.held.length) {
        setError(`Not sent. ${res.held[0].reason}`);
        setBusy(false);
        return;
      }
      toast.success(`${invoice.invoice_number}: ${res.message}`);
      onSent();
    } catch (err) {
      setError(describeError(err));
      setBusy(false);
    }
  }

  return (
    <ConfirmDialog
      title={`Send a reminder for ${invoice.invoice_number}?`}
      confirmLabel={p?.warnings.length ? 'Send anyway' : 'Send reminder'}
      busy={busy}
      disabled={blocked || (held && !reason.trim())}
      onConfirm={() => void send()}
      onCancel={onCancel}
    >
      {preview.error !== null && <ErrorBox what="the preview" error={preview.error} onRetry={preview.reload} />}
      {!p && preview.error === null && <p className="muted">Preparing the preview…</p>}
      {p && (
        <div className="reminder-preview" data-testid="reminder-preview">
          {p.blockers.map((b) => (
            <p key={b} className="form-error">
              {b}
            </p>
          ))}
          {p.warnings.length > 0 && (
            <ul className="warnings" data-testid="reminder-warnings">
              {p.warnings.map((w) => (
                <li key={w.kind} data-kind={w.kind}>
                  {w.message}
                </li>
              ))}
            </ul>
          )}
          <dl className="email-head">
            <dt>To</dt>
            <dd>{p.to ? `${p.contact_name ? `${p.contact_name} ` : ''}<${p.to}>` : '—'}</dd>
            <dt>From</dt>
            <dd>{p.from ?? '—'}</dd>
          </dl>
          {p.email && (
            <div className="email-edit">
              <label className="stacked">
                Subject
                <input maxLength={300} value={subject ?? p.email.subject} onChange={(e) => setSubject(e.target.value)} />
              </label>
              <label className="stacked">
                Email text
                <textarea className="email-body" rows={12} maxLength={20_000} value={body ?? p.email.text} onChange={(e) => setBody(e.target.value)} />
              </label>
              <div className="email-edit-foot">
                <span className="muted small">{edited ? 'Edited: sent as you wrote it.' : 'The template: sent with the figures of the moment it goes out.'}</span>
                <button
                  type="button"
                  className="btn btn-small"
                  disabled={!edited}
                  onClick={() => {
                    setSubject(null);
                    setBody(null);
                  }}
                >
                  Reset to the template
                </button>
              </div>
            </div>
          )}
          {held && (
            <label className="stacked">
              Why it goes anyway (kept in the change log)
              <input data-testid="override-reason" maxLength={500} value={reason} onChange={(e) => setReason(e.target.value)} />
            </label>
          )}
          {p.attachments.length > 0 && (
            <AttachOptions files={p.attachments} chosen={attach} onChange={setAttach} note="Sizes as the files would be made now; they are made again when the reminder is sent, with the figures of that moment." />
          )}
        </div>
      )}
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
    </ConfirmDialog>
  );
}
