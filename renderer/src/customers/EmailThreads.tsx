import { useState } from 'react';
import { ApiError, type Schemas } from '../api/client';
import { describeError, ErrorBox } from '../components/ErrorBox';
import { useLoad } from '../components/useLoad';
import { formatTimestamp } from '../desk/format';
import { api, useSession } from '../state/session';
import { toast } from '../state/toasts';
import './threads.css';

type Thread = Schemas['EmailThread'];
type Message = Thread['messages'][number];
type Draft = Schemas['ReplyDraft'];

const ATTACH_WORDS: Record<Draft['attach_options'][number], string> = { invoice_pdf: 'Invoice PDF', statement: 'Statement of account' };

/** Who wrote a message of the thread, in words. */
function who(m: Message): string {
  return m.direction === 'inbound' ? `${m.author_name ?? m.from_email ?? 'The customer'} wrote` : `${m.author_name ?? 'We'} sent`;
}

/**
 * The answer to the customer's email, written under it: From, To and Subject as they will go, the
 * documents to attach, and the contact rule's answer before anything is sent (a hold needs a reason
 * to send anyway).
 */
function ReplyForm({ companyId, message, onSent, onCancel }: { companyId: string; message: Message; onSent: () => void; onCancel: () => void }) {
  const draft = useLoad((signal) => api.get('/api/companies/{company_id}/communications/{communication_id}/reply', { path: { company_id: companyId, communication_id: message.id }, signal }), [companyId, message.id]);
  const [subject, setSubject] = useState<string | null>(null);
  const [body, setBody] = useState('');
  const [attach, setAttach] = useState<Draft['attach_options']>([]);
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  const [failure, setFailure] = useState<string | null>(null);
  const d = draft.data;
  const held = d !== null && !d.contact.allowed;
  const id = `reply-${message.id}`;

  async function send() {
    if (!d) return;
    setBusy(true);
    setErrors({});
    setFailure(null);
    try {
      await api.post('/api/companies/{company_id}/communications/{communication_id}/reply', {
        path: { company_id: companyId, communication_id: message.id },
        body: { body, subject: subject ?? d.subject, attach, ...(held ? { override_reason: reason } : {}) },
      });
      toast.success(`Answer sent to ${d.to}`);
      onSent();
    } catch (err) {
      if (err instanceof ApiError) setErrors(err.fieldErrors());
      setFailure(describeError(err));
    } finally {
      setBusy(false);
    }
  }

  if (draft.error !== null) return <ErrorBox what="the answer" error={draft.error} onRetry={draft.reload} />;
  if (!d) return <p className="muted">Loading…</p>;
  return (
    <form
      className="reply-form"
      aria-label={`Answer ${message.author_name ?? message.from_email ?? 'the customer'}`}
      data-testid="reply-form"
      onSubmit={(e) => {
        e.preventDefault();
        void send();
      }}
    >
      <dl className="reply-headers">
        <dt>From</dt>
        <dd>{d.from}</dd>
        <dt>To</dt>
        <dd data-testid="reply-to">{d.to}</dd>
      </dl>
      <label htmlFor={`${id}-subject`}>Subject</label>
      <input id={`${id}-subject`} value={subject ?? d.subject} maxLength={300} onChange={(e) => setSubject(e.target.value)} />
      <label htmlFor={`${id}-body`}>Your answer</label>
      <textarea id={`${id}-body`} rows={5} value={body} maxLength={20000} required aria-invalid={errors.body ? true : undefined} aria-describedby={errors.body ? `${id}-body-error` : undefined} onChange={(e) => setBody(e.target.value)} />
      {errors.body && (
        <p id={`${id}-body-error`} className="field-error">
          {errors.body.join(' ')}
        </p>
      )}
      <fieldset className="reply-attach">
        <legend>Attach</legend>
        {d.attach_options.map((kind) => (
          <label key={kind} className="inline-field">
            <input type="checkbox" checked={attach.includes(kind)} onChange={(e) => setAttach(e.target.checked ? [...attach, kind] : attach.filter((k) => k !== kind))} />{' '}
            {kind === 'invoice_pdf' && d.invoice_number ? `Invoice ${d.invoice_number} (PDF)` : ATTACH_WORDS[kind]}
          </label>
        ))}
      </fieldset>
      <p className={held ? 'notice notice-warn' : 'muted small'} role="status" data-testid="reply-contact">
        {held ? d.contact.reason : 'The contact rule lets this answer go now.'}
      </p>
      {held && (
        <>
          <label htmlFor={`${id}-reason`}>Why it goes anyway</label>
          <input id={`${id}-reason`} value={reason} maxLength={500} required onChange={(e) => setReason(e.target.value)} />
        </>
      )}
      {failure && (
        <p className="field-error" role="alert">
          {failure}
        </p>
      )}
      <div className="form-actions">
        <button type="submit" className="btn btn-primary" disabled={busy || !body.trim() || (held && !reason.trim())}>
          {busy ? 'Sending…' : held ? 'Send anyway' : 'Send answer'}
        </button>
        <button type="button" className="btn" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/**
 * The email conversations with the customer (or those about one invoice): our emails and their
 * replies, in order, one thread each; the newest thread open. A reply from the customer can be
 * answered right there.
 */
export function EmailThreads({ companyId, customerId, invoiceId, version, onChanged }: { companyId: string; customerId?: string; invoiceId?: string; version: number; onChanged: () => void }) {
  const canWrite = useSession((s) => s.companies.find((c) => c.id === companyId)?.role) !== 'viewer';
  const [answering, setAnswering] = useState<string | null>(null);
  const threads = useLoad(
    (signal) => api.get('/api/companies/{company_id}/email-threads', { path: { company_id: companyId }, query: customerId ? { customer_id: customerId } : { invoice_id: invoiceId }, signal }),
    [companyId, customerId, invoiceId, version],
  );
  if (threads.error !== null) return <ErrorBox what="the email threads" error={threads.error} onRetry={threads.reload} />;
  if (!threads.data) return <p className="muted">Loading…</p>;
  if (threads.data.data.length === 0) return <p className="muted">No emails with this customer yet.</p>;
  return (
    <ul className="email-threads" data-testid="email-threads">
      {threads.data.data.map((t, i) => {
        const lastReply = [...t.messages].reverse().find((m) => m.direction === 'inbound');
        return (
          <li key={t.thread_id}>
            <details open={i === 0} data-testid="email-thread">
              <summary>
                <strong>{t.subject ?? '(no subject)'}</strong> <span className="muted small">· {t.messages.length === 1 ? '1 message' : `${t.messages.length} messages`} · {formatTimestamp(t.last_at)}</span>
              </summary>
              <ol className="thread-messages">
                {t.messages.map((m) => (
                  <li key={m.id} className={`thread-message ${m.direction === 'inbound' ? 'from-customer' : 'from-us'}`} data-testid="thread-message" data-direction={m.direction}>
                    <div className="small">
                      <strong>{who(m)}</strong> <span className="muted">{formatTimestamp(m.occurred_at)}</span>
                    </div>
                    {m.subject && m.subject !== t.subject && <div className="small muted">{m.subject}</div>}
                    {m.body && <div className="small thread-body">{m.body}</div>}
                    {m.attachments.length > 0 && <div className="small muted">Attached: {m.attachments.map((a) => a.name).join(', ')}</div>}
                    {canWrite && m.id === lastReply?.id && answering !== m.id && (
                      <button type="button" className="btn btn-small" onClick={() => setAnswering(m.id)}>
                        Reply
                      </button>
                    )}
                    {answering === m.id && (
                      <ReplyForm
                        companyId={companyId}
                        message={m}
                        onCancel={() => setAnswering(null)}
                        onSent={() => {
                          setAnswering(null);
                          threads.reload();
                          onChanged();
                        }}
                      />
                    )}
                  </li>
                ))}
              </ol>
            </details>
          </li>
        );
      })}
    </ul>
  );
}
