import { useState } from 'react';
import { describeError, ErrorBox } from '../components/ErrorBox';
import { useLoad } from '../components/useLoad';
import { formatTimestamp } from '../desk/format';
import type { AttachmentKind } from '../documents/AttachOptions';
import { CALL_OUTCOME_WORDS } from '../components/callOutcomes';
import { api } from '../state/session';
import { toast } from '../state/toasts';
import { StepControls } from './StepControls';
import { EmailPreview } from './StepWork';
import type { QueueRow } from './words';

/**
 * One step of the Upcoming, Paused or History tab, opened: a pending step's controls (skip, snooze,
 * pause, stop), its email (edit, send now) or, for a call or task, bringing it to today; a step that
 * ran shows what went out.
 */
export function StepDetail({ companyId, row, onDone }: { companyId: string; row: QueueRow; onDone: () => void }) {
  if (row.status === 'scheduled' || row.status === 'ready') return <PendingStep companyId={companyId} row={row} onDone={onDone} />;
  if (row.status === 'cancelled') return <p className="muted">Nothing went out for this step.</p>;
  return <WentOut companyId={companyId} row={row} />;
}

function PendingStep({ companyId, row, onDone }: { companyId: string; row: QueueRow; onDone: () => void }) {
  const [busy, setBusy] = useState(false);
  const [held, setHeld] = useState<string | null>(null);

  async function sendNow(attach?: AttachmentKind[], overrideReason?: string) {
    setBusy(true);
    setHeld(null);
    try {
      const after = await api.post('/api/companies/{company_id}/sequences/queue/{scheduled_step_id}/send-now', {
        path: { company_id: companyId, scheduled_step_id: row.id },
        body: { ...(attach ? { attach } : {}), ...(overrideReason ? { override_reason: overrideReason } : {}) },
      });
      if (after.status === 'failed') toast.error(`${row.customer_name}: not sent. ${after.error ?? 'The mail server refused it.'}`);
      else if (after.status === 'sent') toast.success(`Sent "${after.email_subject}" to ${row.customer_name}`);
      else toast.success(`"${row.step_label}" for ${row.customer_name} is in Today`);
      onDone();
    } catch (err) {
      // Held by the contact rule or the one-a-day limit: say why beside the button; nothing went.
      setHeld(describeError(err));
    }
    setBusy(false);
  }

  return (
    <div className="stack" data-testid="step-detail">
      <StepControls companyId={companyId} row={row} onDone={onDone} />
      {held && (
        <div className="error-box" role="alert" data-testid="send-now-held">
          <span>Not sent: {held.replace(/^Held: /, '')}</span>
        </div>
      )}
      {row.step_type === 'reminder' ? (
        <EmailPreview companyId={companyId} row={row} sending={busy} sendLabel="Send now" onSend={(attach, reason) => void sendNow(attach, reason)} onChanged={onDone} />
      ) : (
        <div className="form-actions">
          <button type="button" className="btn btn-primary" disabled={busy || row.status === 'ready'} onClick={() => void sendNow()}>
            {row.step_type === 'call' ? 'Make this call today' : 'Do this task today'}
          </button>
          {row.status === 'ready' && <span className="muted small">It is in Today.</span>}
        </div>
      )}
    </div>
  );
}

/** The message as it went out (or the call or note a completed step recorded). */
function WentOut({ companyId, row }: { companyId: string; row: QueueRow }) {
  const sent = useLoad((signal) => api.get('/api/companies/{company_id}/sequences/queue/{scheduled_step_id}/sent', { path: { company_id: companyId, scheduled_step_id: row.id }, signal }), [companyId, row.id]);
  if (sent.error !== null) {
    return row.status === 'failed' ? <p className="bad">Not sent: {row.error}</p> : <ErrorBox what="what went out" error={sent.error} onRetry={sent.reload} />;
  }
  const m = sent.data;
  if (!m) return <p className="muted">Loading what went out…</p>;
  return (
    <section className="stack" aria-label={`What went out to ${row.customer_name}`} data-testid="went-out">
      <dl className="fields">
        {m.kind === 'email' ? (
          <>
            <div className="field">
              <dt>From</dt>
              <dd>{m.from ?? '—'}</dd>
            </div>
            <div className="field">
              <dt>To</dt>
              <dd>{m.to ?? <span className="muted">Not kept for emails sent before this was recorded</span>}</dd>
            </div>
            <div className="field">
              <dt>Subject</dt>
              <dd>{m.subject}</dd>
            </div>
          </>
        ) : (
          <div className="field">
            <dt>{m.kind === 'call' ? 'Call' : 'Note'}</dt>
            <dd>
              {m.subject}
              {m.outcome ? ` · ${CALL_OUTCOME_WORDS[m.outcome]}` : ''}
            </dd>
          </div>
        )}
        <div className="field">
          <dt>{m.kind === 'email' ? 'Sent' : 'Recorded'}</dt>
          <dd>
            {formatTimestamp(m.occurred_at)}
            {m.author_name ? ` by ${m.author_name}` : ''}
          </dd>
        </div>
        {m.attachments.length > 0 && (
          <div className="field">
            <dt>Attached</dt>
            <dd>{m.attachments.map((a) => a.name).join(', ')}</dd>
          </div>
        )}
      </dl>
      {m.body ? <div className="preview-box">{m.body}</div> : <p className="muted">No text was recorded.</p>}
    </section>
  );
}
