import { type ReactNode, useEffect, useRef, useState } from 'react';
import type { Schemas } from '../api/client';
import { describeError, ErrorBox } from '../components/ErrorBox';
import { inWords, signalLine } from '../insights/describe';
import { Evidence } from '../components/Evidence';
import { useLoad } from '../components/useLoad';
import { BucketText, StatusBadge } from '../desk/cells';
import { formatDate, formatMoney, formatTimestamp } from '../desk/format';
import { AppLink } from '../components/AppLink';
import { type AttachmentKind, AttachOptions } from '../documents/AttachOptions';
import { companyPath } from '../state/route';
import { api } from '../state/session';
import { toast } from '../state/toasts';
import { RejectForm } from './RejectForm';
import { type Action, allowedOperations, assigneeName, deadlineInstant, draftOf, needsRetry, progressWords, recommendationOf, TYPE_WORDS } from './labels';
import { LogActionForm } from './LogActionForm';

/** How often the panel looks again while an approved email is on its way. */
const SEND_POLL_MS = 1500;

/** Where an approved action stands: the email's send (with why it failed), or whose call or task it is. */
function Progress({ companyId, action, onChanged }: { companyId: string; action: Action; onChanged: () => void }) {
  const d = action.delivery;
  if (action.action_type !== 'email') {
    const who = assigneeName(action);
    return (
      <section className="panel-section" data-testid="action-progress">
        <h3>To do</h3>
        <p>
          {who ? `Assigned to ${who}.` : 'Approved; nobody is assigned.'} It is listed in the <AppLink to={companyPath(companyId, 'queue')}>Queue</AppLink> with the phone numbers. Log the {action.action_type === 'call' ? 'call' : 'task'} to complete it.
        </p>
        <LogActionForm companyId={companyId} actionId={action.id} actionType={action.action_type} customerName={action.customer_name} onLogged={onChanged} />
      </section>
    );
  }
  return (
    <section className="panel-section" data-testid="action-progress">
      <h3>Sending</h3>
      {d === null && <p>Approved, but its email was never queued. Send it now below.</p>}
      {d?.status === 'queued' && <p>The email is queued and goes out within moments.</p>}
      {d?.status === 'sending' && <p>The email is being handed to the mail server{d.recipient ? ` for ${d.recipient}` : ''}.</p>}
      {d?.status === 'failed' && (
        <div className="error-box" role="alert" data-testid="delivery-error">
          <span>
            Not sent. {d.error}
            {d.next_attempt_at ? ` It will be tried again by itself at ${formatTimestamp(d.next_attempt_at)}, or use Retry now.` : ''}
            {d.may_have_been_sent ? ' Check with the customer before retrying: they may already have it.' : ''}
          </span>
        </div>
      )}
      {d?.status === 'held' && (
        <div className="error-box" role="alert" data-testid="delivery-held">
          <span>Not sent: the customer is on hold. {d.error} Retry sends it once the hold is lifted.</span>
        </div>
      )}
    </section>
  );
}

function Row({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="field">
      <dt>{label}</dt>
      <dd>{children === null || children === undefined || children === '' ? <span className="muted">—</span> : children}</dd>
    </div>
  );
}

/** The invoice and customer at a glance: balance, aging, last touch, signals and the predicted pay date. */
function Glance({ companyId, action }: { companyId: string; action: Action }) {
  const invoiceId = action.invoice;
  const invoice = useLoad(
    (signal) => (invoiceId ? api.get('/api/companies/{company_id}/invoices/{invoice_id}', { path: { company_id: companyId, invoice_id: invoiceId }, signal }) : Promise.resolve(null)),
    [companyId, invoiceId],
  );
  const prediction = useLoad(
    (signal) =>
      invoiceId ? api.get('/api/intelligence/insights', { query: { company_id: companyId, invoice_id: invoiceId, insight_type: 'invoice_pay_date_prediction' }, signal }) : Promise.resolve(null),
    [companyId, invoiceId],
  );
  const inv = invoice.data;
  const predicted = prediction.data?.results.find((i) => i.is_active)?.payload_json as { predicted_date?: string | null } | undefined;
  return (
    <section className="panel-section" data-testid="action-glance">
      <h3>At a glance</h3>
      {invoice.error !== null && <ErrorBox what="the invoice" error={invoice.error} onRetry={invoice.reload} />}
      <dl className="fields">
        <Row label="Customer">
          <AppLink to={companyPath(companyId, 'customers', action.customer)}>{action.customer_name}</AppLink>
        </Row>
        {action.invoice === null && action.listed_invoice_count > 0 ? (
          <Row label={`Invoices (${action.listed_invoice_count})`}>
            <span data-testid="action-listed-invoices">
              {action.listed_invoices.map((i, k) => (
                <span key={i.id}>
                  {k > 0 && ', '}
                  <AppLink to={companyPath(companyId, 'invoices', i.id)}>{i.invoice_number}</AppLink>
                </span>
              ))}
              {action.listed_invoice_count > action.listed_invoices.length && ` and ${action.listed_invoice_count - action.listed_invoices.length} more`}
            </span>
          </Row>
        ) : (
          <Row label="Invoice">{action.invoice ? <AppLink to={companyPath(companyId, 'invoices', action.invoice)}>{action.invoice_number}</AppLink> : 'None (about the customer)'}</Row>
        )}
        {inv && (
          <>
            <Row label="Balance">
              <strong>{formatMoney(inv.balance, inv.currency)}</strong> of {formatMoney(inv.total_amount, inv.currency)}
            </Row>
            <Row label="Status">
              <StatusBadge status={inv.status} label={inv.status_display} />
            </Row>
            <Row label="Aging">
              <BucketText bucket={inv.aging_bucket} /> · due {formatDate(inv.due_date)}
            </Row>
            <Row label="Last touch">{inv.last_touch_date ? `${formatTimestamp(inv.last_touch_date)}${inv.last_touched_by ? ` by ${inv.last_touched_by}` : ''}` : 'Never contacted'}</Row>
            <Row label="Predicted payment">{predicted?.predicted_date ? formatDate(predicted.predicted_date) : prediction.data ? 'No prediction' : '…'}</Row>
            <Row label="Signals">
              {inv.signals.length > 0 ? inv.signals.map((s) => <div key={s.insight_id}>{signalLine(s)}</div>) : 'None'}
            </Row>
          </>
        )}
      </dl>
    </section>
  );
}

/** The documents an action's metadata asks for (the engine's proposal, or the approval's choice). */
function storedAttach(action: Action): AttachmentKind[] {
  const asked = action.metadata.attach;
  return Array.isArray(asked) ? asked.filter((k): k is AttachmentKind => k === 'invoice_pdf' || k === 'statement') : [];
}

const ATTACH_WORDS: Record<AttachmentKind, string> = { invoice_pdf: 'the invoice PDF', statement: 'a statement of account' };

/** Before approval: which documents go with the email, each named with its file as it would be made now. */
function EmailAttachments({ companyId, action, chosen, onChange }: { companyId: string; action: Action; chosen: AttachmentKind[]; onChange: (kinds: AttachmentKind[]) => void }) {
  const files = useLoad(
    (signal) => api.get('/api/companies/{company_id}/actions/{action_id}/attachments', { path: { company_id: companyId, action_id: action.id }, signal }),
    [companyId, action.id],
  );
  if (files.error !== null) return <ErrorBox what="the attachments" error={files.error} onRetry={files.reload} />;
  if (!files.data) return <p className="muted small">Preparing the attachments…</p>;
  return <AttachOptions files={files.data.data} chosen={chosen} onChange={onChange} note="Sizes as the files would be made now; they are made again when the email is sent, with the figures of that moment." />;
}

/**
 * Before approving an email: who it is from (the connection that sends it), to whom, and its
 * subject, which may be edited and is sent as edited.
 */
function Envelope({ envelope, subject, onSubject }: { envelope: Schemas['ActionEnvelope'] | null; subject: string; onSubject: (subject: string) => void }) {
  return (
    <div className="stack" data-testid="action-envelope">
      <dl className="fields">
        <Row label="From">{envelope ? (envelope.from ? `${envelope.from.name} <${envelope.from.address}>` : <span className="bad">No email connection to send from: add one in Settings › Email</span>) : '…'}</Row>
        <Row label="To">{envelope ? (envelope.to.length ? envelope.to.join(', ') : <span className="bad">No contact with an email address</span>) : '…'}</Row>
      </dl>
      <label className="wide-field">
        Subject (sent as written here)
        <input value={subject} maxLength={500} onChange={(e) => onSubject(e.target.value)} data-testid="action-subject" />
      </label>
    </div>
  );
}

/** The operation buttons' words: each says what it does (approving an email sends it). */
function operationWords(action: Action): Record<'approve' | 'send' | 'complete' | 'reject' | 'cancel', string> {
  const email = action.action_type === 'email';
  return {
    approve: email ? 'Approve and send' : 'Approve and assign',
    send: email ? 'Mark as sent by hand' : 'Mark done now',
    complete: action.status === 'processing' ? 'Mark done' : email ? 'Close without sending' : 'Close as done',
    reject: 'Reject with a reason…',
    cancel: 'Withdraw this action',
  };
}

/**
 * Other proposals for the same invoice (the spec's alternatives), to pick the best one; for a
 * decision on the customer as a whole, the other options of the same engine trigger.
 */
function Alternatives({ companyId, action, onOpen }: { companyId: string; action: Action; onOpen: (id: string) => void }) {
  const invoiceId = action.invoice;
  const trigger = typeof action.metadata.trigger === 'string' ? action.metadata.trigger : null;
  const alternatives = useLoad(
    (signal) =>
      invoiceId || trigger
        ? api.get('/api/companies/{company_id}/actions', {
            path: { company_id: companyId },
            query: invoiceId ? { category: 'alternatives', invoice_id: invoiceId, page_size: 10 } : { category: 'alternatives', customer_id: action.customer, page_size: 100 },
            signal,
          })
        : Promise.resolve(null),
    [companyId, invoiceId, trigger, action.customer],
  );
  const others = alternatives.data?.data.filter((a) => a.id !== action.id && (invoiceId !== null || a.metadata.trigger === trigger)) ?? [];
  if ((!invoiceId && !trigger) || (alternatives.data && others.length === 0)) return null;
  return (
    <section className="panel-section" data-testid="action-alternatives">
      <h3>{invoiceId ? 'Alternatives for this invoice' : action.listed_invoice_count > 0 ? 'Alternatives for these invoices' : 'Alternatives'}</h3>
      {alternatives.error !== null && <ErrorBox what="the alternatives" error={alternatives.error} onRetry={alternatives.reload} />}
      <ul className="contacts">
        {others.map((a) => (
          <li key={a.id}>
            <button type="button" className="linkish" onClick={() => onOpen(a.id)}>
              {TYPE_WORDS[a.action_type]}: {recommendationOf(a)}
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** "Send anyway": through the contact rule's hold, for a reason a person gives (kept in the change log). */
function SendAnywayForm({ customerName, busy, onSend, onCancel }: { customerName: string; busy: boolean; onSend: (reason: string) => void; onCancel: () => void }) {
  const [reason, setReason] = useState('');
  return (
    <form
      className="card stack"
      aria-label="Send anyway"
      data-testid="send-anyway"
      onSubmit={(e) => {
        e.preventDefault();
        if (reason.trim()) onSend(reason.trim());
      }}
    >
      <strong>Send to {customerName} anyway</strong>
      <label className="wide-field">
        Why it goes despite the hold (kept in the change log)
        <input value={reason} maxLength={500} onChange={(e) => setReason(e.target.value)} autoFocus />
      </label>
      <div className="form-actions">
        <button type="button" className="btn" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="btn btn-primary" disabled={busy || !reason.trim()}>
          Approve and send anyway
        </button>
      </div>
    </form>
  );
}

/** One action: glance, recommendation, drafted content (editable), the state machine's operations and the approval log. */
export function ActionPanel({
  companyId,
  actionId,
  version,
  rejectAsked,
  onChanged,
  onOpen,
  onClose,
}: {
  companyId: string;
  actionId: string;
  version: number;
  rejectAsked: number;
  onChanged: () => void;
  onOpen: (id: string) => void;
  onClose: () => void;
}) {
  const path = { company_id: companyId, action_id: actionId };
  const loaded = useLoad((signal) => api.get('/api/companies/{company_id}/actions/{action_id}', { path, signal }), [companyId, actionId, version]);
  const action = loaded.data;
  const [content, setContent] = useState<string | null>(null);
  const [deadline, setDeadline] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [rejecting, setRejecting] = useState(false);
  const [attach, setAttach] = useState<AttachmentKind[] | null>(null);
  const [subject, setSubject] = useState<string | null>(null);
  const [anyway, setAnyway] = useState(false);
  const panel = useRef<HTMLElement>(null);
  const firstReject = useRef(rejectAsked);

  useEffect(() => {
    if (rejectAsked !== firstReject.current) setRejecting(true);
  }, [rejectAsked]);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape' && !document.querySelector('.modal')) onClose();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [onClose]);

  const pending = action?.status === 'processing' && (action.delivery?.status === 'queued' || action.delivery?.status === 'sending');
  const reload = loaded.reload;
  useEffect(() => {
    if (!pending) return;
    const t = setTimeout(() => {
      reload();
      onChanged();
    }, SEND_POLL_MS);
    return () => clearTimeout(t);
  }, [pending, reload, onChanged, action?.updated_at, action?.delivery?.status]);

  const approvableEmail = action?.action_type === 'email' && allowedOperations(action).includes('approve');
  const envelope = useLoad(
    (signal) => (approvableEmail ? api.get('/api/companies/{company_id}/actions/{action_id}/envelope', { path, signal }) : Promise.resolve(null)),
    [companyId, actionId, approvableEmail, version],
  );
  const draft = action ? draftOf(action) : null;
  const shownSubject = subject ?? envelope.data?.subject ?? draft?.subject ?? '';
  const subjectEdited = subject !== null && subject.trim() !== '' && subject !== envelope.data?.subject;
  const text = content ?? draft?.body ?? '';
  const edited = action !== null && content !== null && content !== draft?.body;
  // An email about an invoice goes with its PDF unless someone unticks it (the envelope's default).
  const chosenAttach = attach ?? envelope.data?.attach ?? (action ? storedAttach(action) : []);

  async function retry() {
    setBusy(true);
    setError(null);
    try {
      await api.post('/api/companies/{company_id}/actions/{action_id}/retry', { path, body: edited ? { final_content: text } : {} });
      toast.success('Sending again');
      setContent(null);
      onChanged();
    } catch (err) {
      setError(describeError(err));
      onChanged();
    }
    setBusy(false);
  }

  async function run(operation: 'approve' | 'send' | 'complete' | 'cancel', done: string, overrideReason?: string) {
    setBusy(true);
    setError(null);
    try {
      const finalContent = edited || (operation !== 'complete' && operation !== 'cancel' && text) ? text : undefined;
      if (operation === 'approve') {
        const documents = action?.action_type === 'email' ? { attach: chosenAttach, ...(subjectEdited ? { final_subject: shownSubject.trim() } : {}) } : {};
        await api.post('/api/companies/{company_id}/actions/{action_id}/approve', { path, body: { final_content: finalContent, ...documents, ...(overrideReason ? { override_reason: overrideReason } : {}) } });
      } else if (operation === 'send') await api.post('/api/companies/{company_id}/actions/{action_id}/send', { path, body: { final_content: finalContent, response_deadline: deadlineInstant(deadline) } });
      else if (operation === 'complete') await api.post('/api/companies/{company_id}/actions/{action_id}/complete', { path, body: {} });
      else await api.post('/api/companies/{company_id}/actions/{action_id}/cancel', { path, body: {} });
      toast.success(done);
      setContent(null);
      setAttach(null);
      setSubject(null);
      setAnyway(false);
      onChanged();
    } catch (err) {
      setError(describeError(err));
      // The action may have changed under us (someone else acted): show it as it is now.
      onChanged();
    }
    setBusy(false);
  }

  async function reject(reason: string, comment: string) {
    setError(null);
    try {
      await api.post('/api/companies/{company_id}/actions/{action_id}/reject', { path, body: { reason, comment: comment || undefined } });
      toast.success('Action rejected');
      setRejecting(false);
      onChanged();
    } catch (err) {
      setError(describeError(err));
      onChanged();
    }
  }

  const allowed = action ? allowedOperations(action) : [];
  const words = action ? operationWords(action) : null;
  // The envelope says whether the rule holds the email now and whether an owner lets anyone send through it.
  const held = approvableEmail ? (envelope.data?.hold ?? null) : null;
  return (
    <aside ref={panel} className="side-panel" aria-label="Action detail" tabIndex={-1} data-testid="action-panel">
      <header className="panel-header">
        <div>
          <div className="muted small">{action ? `${TYPE_WORDS[action.action_type]} action` : 'Action'}</div>
          <h2>{action?.customer_name ?? '…'}</h2>
        </div>
        {action && <span className="pill" data-testid="action-status">{progressWords(action)}</span>}
        <span className="spacer" />
        <button type="button" className="btn btn-ghost" aria-label="Close action" title="Close (Esc)" onClick={onClose}>
          ✕
        </button>
      </header>
      <div className="panel-body">
        {loaded.error !== null && <ErrorBox what="the action" error={loaded.error} onRetry={loaded.reload} />}
        {action && draft && (
          <>
            <section className="panel-section">
              <h3>Recommendation</h3>
              <p>
                <strong>{recommendationOf(action)}</strong>
              </p>
              {action.recommendation_label && <p>{inWords(action.description)}</p>}
              {action.trigger_event_label && <p className="muted">Because: {action.trigger_event_label}</p>}
              {action.response_deadline && <p className="muted">Response expected by {formatTimestamp(action.response_deadline)}</p>}
            </section>
            {action.evidence.length > 0 && (
              <section className="panel-section">
                <h3>Evidence</h3>
                <Evidence companyId={companyId} items={action.evidence} />
              </section>
            )}
            {action.status === 'processing' && !action.is_deleted && <Progress companyId={companyId} action={action} onChanged={onChanged} />}
            <Glance companyId={companyId} action={action} />
            <section className="panel-section">
              <h3>{action.action_type === 'email' ? 'Email' : action.action_type === 'call' ? 'Call notes' : 'Task'}</h3>
              {approvableEmail ? (
                <>
                  {envelope.error !== null && <ErrorBox what="who the email goes to" error={envelope.error} onRetry={envelope.reload} />}
                  <Envelope envelope={envelope.data ?? null} subject={shownSubject} onSubject={setSubject} />
                </>
              ) : (
                draft.subject && <p>Subject: {draft.subject}</p>
              )}
              {draft.talkingPoints.length > 0 && (
                <ul>
                  {draft.talkingPoints.map((p) => (
                    <li key={p}>{p}</li>
                  ))}
                </ul>
              )}
              {action.contact_hold && (allowed.includes('approve') || needsRetry(action)) && (
                <p className="notice-warn" data-testid="contact-hold">
                  Nothing goes to {action.customer_name} now: {action.contact_hold.replace(/^Held: /, '')} Approving or sending is refused until the hold is lifted
                  {held && held.override_refused === null ? ', or you send it anyway with a reason.' : '.'}
                </p>
              )}
              {held?.override_refused && (
                <p className="muted" data-testid="override-refused">
                  {held.override_refused} It goes once the hold is lifted.
                </p>
              )}
              {allowed.includes('approve') || allowed.includes('send') || needsRetry(action) ? (
                <label className="wide-field">
                  {needsRetry(action) ? 'Message (edit before sending again)' : action.action_type === 'email' ? 'Message (edit before approving or sending)' : 'Content (edit before approving)'}
                  <textarea value={text} onChange={(e) => setContent(e.target.value)} data-testid="action-content" />
                </label>
              ) : text ? (
                <div className="preview-box">{text}</div>
              ) : (
                <p className="muted">No drafted content.</p>
              )}
              {action.action_type === 'email' && allowed.includes('approve') && <EmailAttachments companyId={companyId} action={action} chosen={chosenAttach} onChange={setAttach} />}
              {action.action_type === 'email' && !allowed.includes('approve') && storedAttach(action).length > 0 && (
                <p className="muted small" data-testid="action-attachments">
                  Attached: {storedAttach(action).map((k) => ATTACH_WORDS[k]).join(' and ')}, made when the email is sent.
                </p>
              )}
              {allowed.includes('send') && (
                <label className="wide-field">
                  Response deadline (optional, when sending)
                  <input type="datetime-local" value={deadline} onChange={(e) => setDeadline(e.target.value)} />
                </label>
              )}
            </section>
            {error && (
              <div className="error-box" role="alert" data-testid="action-error">
                <span>{error}</span>
              </div>
            )}
            {allowed.length > 0 && (
              <div className="toolbar-row" aria-label="Action operations">
                {needsRetry(action) && (
                  <button type="button" className="btn btn-primary" disabled={busy} onClick={() => void retry()}>
                    {action.delivery === null ? 'Send now' : edited ? 'Retry with this text' : 'Retry'}
                  </button>
                )}
                {allowed.includes('approve') && (
                  <button type="button" className="btn btn-primary" disabled={busy || (approvableEmail && envelope.data?.from === null)} onClick={() => void run('approve', action.action_type === 'email' ? 'Approved: the email is on its way' : 'Action approved')}>
                    {words?.approve}
                  </button>
                )}
                {allowed.includes('approve') && held && held.override_refused === null && (
                  <button type="button" className="btn" disabled={busy || envelope.data?.from === null} onClick={() => setAnyway(true)}>
                    Send anyway…
                  </button>
                )}
                {allowed.includes('send') && (
                  <button type="button" className="btn" disabled={busy} onClick={() => void run('send', 'Marked as sent')}>
                    {words?.send}
                  </button>
                )}
                {allowed.includes('complete') && (
                  <button type="button" className="btn" disabled={busy} onClick={() => void run('complete', 'Action completed')}>
                    {words?.complete}
                  </button>
                )}
                {allowed.includes('reject') && (
                  <button type="button" className="btn" disabled={busy} onClick={() => setRejecting(true)}>
                    {words?.reject}
                  </button>
                )}
                {allowed.includes('cancel') && (
                  <button type="button" className="btn btn-ghost" disabled={busy} onClick={() => void run('cancel', 'Action withdrawn')}>
                    {words?.cancel}
                  </button>
                )}
              </div>
            )}
            {anyway && held && held.override_refused === null && (
              <SendAnywayForm customerName={action.customer_name} busy={busy} onCancel={() => setAnyway(false)} onSend={(reason) => void run('approve', 'Approved: the email goes anyway, with your reason logged', reason)} />
            )}
            {rejecting && <RejectForm count={1} onCancel={() => setRejecting(false)} onReject={reject} />}
            {allowed.includes('approve') && <Alternatives companyId={companyId} action={action} onOpen={onOpen} />}
            <section className="panel-section" data-testid="approval-log">
              <h3>Approval log</h3>
              {action.approval_log.length === 0 ? (
                <p className="muted">Nothing decided yet.</p>
              ) : (
                <ol className="timeline">
                  {action.approval_log.map((entry, i) => (
                    <li key={i} className="timeline-item">
                      <span className="timeline-dot" aria-hidden="true" />
                      <div>
                        <strong>{entry.operation[0].toUpperCase() + entry.operation.slice(1)}</strong>
                        {entry.approver_name ? ` by ${entry.approver_name}` : ''}
                        <div className="muted small">{formatTimestamp(entry.created_at)}</div>
                        {entry.reason && <div className="small">Reason: {entry.reason}</div>}
                        {entry.comment && <div className="small">{entry.comment}</div>}
                      </div>
                    </li>
                  ))}
                </ol>
              )}
              {action.executed_at && (
                <p className="muted small">
                  Executed {formatTimestamp(action.executed_at)}
                  {action.executed_by ? ` by ${action.executed_by}` : ''}
                </p>
              )}
            </section>
          </>
        )}
      </div>
    </aside>
  );
}
