import { type FormEvent, useEffect, useRef, useState } from 'react';
import type { Schemas } from '../api/client';
import { type PickedCustomer, CustomerPicker } from '../components/CustomerPicker';
import { describeError, ErrorBox } from '../components/ErrorBox';
import { useLoad } from '../components/useLoad';
import { AttachedFiles, type AttachmentKind, AttachOptions } from '../documents/AttachOptions';
import { api } from '../state/session';
import { toast } from '../state/toasts';
import { insertAt, type Step, STEP_TYPE_WORDS, STEP_TYPES } from './words';

type Overview = Schemas['SequenceOverview'];
type StepBody = Schemas['SequenceStepRequest'];

function fieldsOf(step: Step | null): Required<StepBody> {
  return {
    step_type: step?.step_type ?? 'reminder',
    label: step?.label ?? '',
    offset_days: step?.offset_days ?? 0,
    offset_time: step?.offset_time ?? '09:00',
    is_active: step?.is_active ?? true,
    subject_template: step?.subject_template ?? '',
    body_plain_template: step?.body_plain_template ?? '',
    body_html_template: step?.body_html_template ?? '',
    instructions: step?.instructions ?? '',
    on_promise_missed: step?.on_promise_missed ?? false,
    due_offset_days: step?.due_offset_days ?? 0,
    attach: step?.attach ?? [],
  };
}

/**
 * Edits one step (or creates one): channel, day and time, subject and body with the placeholders
 * offered by name, and a live preview rendered by the server for a real customer of the company.
 * A step that already ran for someone can only be switched on or off.
 */
export function StepEditor({ companyId, overview, step, onClose, onSaved }: { companyId: string; overview: Overview; step: Step | null; onClose: () => void; onSaved: (id: string) => void }) {
  const [f, setF] = useState(() => fieldsOf(step));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const body = useRef<HTMLTextAreaElement>(null);
  const subject = useRef<HTMLInputElement>(null);
  const lastFocused = useRef<'subject' | 'body'>('body');
  const locked = step?.has_history ?? false;
  const path = { company_id: companyId, sequence_id: overview.sequence.id };
  const set = <K extends keyof StepBody>(key: K, value: Required<StepBody>[K]) => setF((prev) => ({ ...prev, [key]: value }));

  function insertPlaceholder(name: string) {
    const token = `{{${name}}}`;
    if (lastFocused.current === 'subject' && subject.current) {
      const el = subject.current;
      const next = insertAt(f.subject_template, token, el.selectionStart, el.selectionEnd);
      set('subject_template', next.value);
      requestAnimationFrame(() => el.setSelectionRange(next.caret, next.caret));
    } else {
      const el = body.current;
      const next = insertAt(f.body_plain_template, token, el?.selectionStart ?? null, el?.selectionEnd ?? null);
      set('body_plain_template', next.value);
      requestAnimationFrame(() => el?.setSelectionRange(next.caret, next.caret));
    }
  }

  async function save(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const saved = step
        ? await api.put('/api/companies/{company_id}/sequences/{sequence_id}/steps/{step_id}', { path: { ...path, step_id: step.id }, body: locked ? { is_active: f.is_active } : { ...f, label: f.label.trim() || 'Step' } })
        : await api.post('/api/companies/{company_id}/sequences/{sequence_id}/steps', { path, body: { ...f, label: f.label.trim() || 'Step' } });
      toast.success(step ? 'Step saved' : 'Step added');
      onSaved(saved.id);
    } catch (err) {
      setError(describeError(err));
    }
    setBusy(false);
  }

  async function remove() {
    if (!step) return;
    setBusy(true);
    try {
      await api.delete('/api/companies/{company_id}/sequences/{sequence_id}/steps/{step_id}', { path: { ...path, step_id: step.id } });
      toast.success('Step deleted');
      onClose();
      onSaved('');
    } catch (err) {
      setError(describeError(err));
    }
    setBusy(false);
  }

  const email = f.step_type === 'reminder';
  const dueTiming = overview.sequence.timing === 'due_date';
  return (
    <div className="card stack" data-testid="step-editor">
      <h2 className="group-title">{step ? `Step: ${step.label}` : 'New step'}</h2>
      {locked && <p className="notice-warn">This step has already run for some customers, so its content and timing are kept as they were sent. You can switch it off and add a new step instead.</p>}
      <form className="form-grid" onSubmit={save} aria-label={step ? `Edit step ${step.label}` : 'New step'}>
        <fieldset disabled={locked} className="form-grid wide" style={{ border: 'none', padding: 0, margin: 0 }}>
          <label>
            Channel
            <select value={f.step_type} onChange={(e) => set('step_type', e.target.value as Step['step_type'])}>
              {STEP_TYPES.map((t) => (
                <option key={t} value={t}>
                  {STEP_TYPE_WORDS[t]}
                </option>
              ))}
            </select>
          </label>
          <label>
            Name
            <input value={f.label} onChange={(e) => set('label', e.target.value)} placeholder="e.g. First reminder" />
          </label>
          {dueTiming ? (
            <DueOffsetField value={f.due_offset_days} onChange={(v) => set('due_offset_days', v)} />
          ) : (
            <label>
              Days after the start date
              <input type="number" min={0} max={3650} value={f.offset_days} onChange={(e) => set('offset_days', Math.max(0, Math.trunc(Number(e.target.value) || 0)))} />
            </label>
          )}
          <label>
            Send time ({overview.sequence.timezone})
            <input type="time" value={f.offset_time} onChange={(e) => set('offset_time', e.target.value)} />
          </label>
          {email ? (
            <>
              <label className="wide">
                Subject
                <input ref={subject} value={f.subject_template} onFocus={() => (lastFocused.current = 'subject')} onChange={(e) => set('subject_template', e.target.value)} />
              </label>
              <label className="wide">
                Body
                <textarea ref={body} rows={8} value={f.body_plain_template} onFocus={() => (lastFocused.current = 'body')} onChange={(e) => set('body_plain_template', e.target.value)} />
              </label>
              <div className="wide">
                <AttachOptions
                  chosen={f.attach}
                  onChange={(kinds) => set('attach', kinds)}
                  note="Made for each customer when the email is sent, with the figures of that day: the invoice the email is about (each invoice a due-date email lists) and the customer's statement."
                />
              </div>
              <div className="wide">
                <div className="muted small">Insert a placeholder (filled for each customer when sent):</div>
                <div className="placeholder-list">
                  {overview.placeholders.map((p) => (
                    <button key={p} type="button" className="btn btn-small" onClick={() => insertPlaceholder(p)}>
                      {p.replace(/_/g, ' ')}
                    </button>
                  ))}
                </div>
              </div>
            </>
          ) : (
            <label className="wide">
              Instructions for the collector
              <textarea rows={4} value={f.instructions} onChange={(e) => set('instructions', e.target.value)} />
            </label>
          )}
        </fieldset>
        <label className="check wide">
          <input type="checkbox" checked={f.is_active} onChange={(e) => set('is_active', e.target.checked)} /> On: fires for newly enrolled customers
        </label>
        <label className="check wide">
          <input type="checkbox" disabled={locked} checked={f.on_promise_missed} onChange={(e) => set('on_promise_missed', e.target.checked)} /> Only when a promise to pay is missed: runs
          the day after a promise that paused the sequence passes unpaid, instead of on its day
        </label>
        {error && (
          <div className="error-box wide" role="alert" data-testid="step-error">
            <span>{error}</span>
          </div>
        )}
        <div className="form-actions">
          {step && (
            <button type="button" className="btn btn-danger" disabled={busy || locked} title={locked ? 'A step that has run cannot be deleted' : undefined} onClick={() => void remove()}>
              Delete step
            </button>
          )}
          <button type="button" className="btn" onClick={onClose}>
            Close
          </button>
          <button type="submit" className="btn btn-primary" disabled={busy}>
            {step ? 'Save step' : 'Add step'}
          </button>
        </div>
      </form>
      {email && <LivePreview companyId={companyId} sequenceId={overview.sequence.id} subject={f.subject_template} body={f.body_plain_template} html={f.body_html_template} attach={f.attach} />}
    </div>
  );
}

/** The step as one customer would receive it, re-rendered by the server as the templates change. */
function LivePreview({ companyId, sequenceId, subject, body, html, attach }: { companyId: string; sequenceId: string; subject: string; body: string; html: string; attach: AttachmentKind[] }) {
  const [customer, setCustomer] = useState<PickedCustomer | null>(null);
  const [invoiceId, setInvoiceId] = useState('');
  const [templates, setTemplates] = useState({ subject, body, html });
  useEffect(() => {
    const t = setTimeout(() => setTemplates({ subject, body, html }), 300);
    return () => clearTimeout(t);
  }, [subject, body, html]);

  // Until someone picks a customer: the customer of an overdue invoice, so every placeholder has a value.
  const first = useLoad((signal) => api.get('/api/companies/{company_id}/invoices', { path: { company_id: companyId }, query: { overdue_only: true, limit: 1 }, signal }), [companyId]);
  const firstRow = first.data?.items[0];
  const target = customer ?? (firstRow && 'invoice_number' in firstRow ? { id: firstRow.customer, name: firstRow.customer_name } : null);
  const invoices = useLoad(
    (signal) => (target ? api.get('/api/companies/{company_id}/invoices', { path: { company_id: companyId }, query: { customer_id: target.id, limit: 100, sort: 'due_date_asc' }, signal }) : Promise.resolve(null)),
    [companyId, target?.id],
  );
  const preview = useLoad(
    (signal) =>
      target
        ? api.post('/api/companies/{company_id}/sequences/{sequence_id}/preview', {
            path: { company_id: companyId, sequence_id: sequenceId },
            body: { customer_id: target.id, invoice_id: invoiceId || undefined, subject_template: templates.subject, body_plain_template: templates.body, body_html_template: templates.html, attach },
            signal,
          })
        : Promise.resolve(null),
    [companyId, sequenceId, target?.id, invoiceId, templates, attach.join()],
  );
  const p = preview.data;
  return (
    <section className="stack" aria-labelledby="preview-title" data-testid="live-preview">
      <h3 id="preview-title">Preview for {target?.name ?? '…'}</h3>
      <div className="form-grid">
        <CustomerPicker
          companyId={companyId}
          label="Preview for another customer"
          actionLabel="Preview"
          onPick={(c) => {
            setCustomer(c);
            setInvoiceId('');
          }}
        />
        <label>
          Invoice
          <select value={invoiceId} onChange={(e) => setInvoiceId(e.target.value)}>
            <option value="">Oldest open invoice</option>
            {invoices.data?.items
              .flatMap((i) => ('invoice_number' in i && i.balance > 0 ? [i] : []))
              .map((i) => (
              <option key={i.id} value={i.id}>
                {i.invoice_number}
              </option>
            ))}
          </select>
        </label>
      </div>
      {preview.error !== null && <ErrorBox what="the preview" error={preview.error} onRetry={preview.reload} />}
      {p && (
        <>
          <div className="muted small">
            From {p.sender ? `${p.sender.from_name ?? p.sender.name} <${p.sender.from_email}>` : 'no sender yet'} · to {p.to ?? 'nobody: no contact with an email'} · invoice {p.invoice_number ?? 'none open'}
          </div>
          <div className="preview-box" data-testid="preview-subject">
            <strong>{p.subject || '(no subject)'}</strong>
          </div>
          <div className="preview-box" data-testid="preview-body">
            {p.body || '(empty body)'}
          </div>
          <AttachedFiles files={p.attachments} />
          {p.unknown_placeholders.length > 0 && <p className="notice-warn">Not a known placeholder, left as written: {p.unknown_placeholders.map((n) => `{{${n}}}`).join(', ')}</p>}
          {p.refused_reason && (
            <p className="notice-warn" data-testid="step-refused">
              This email would not be sent to {p.customer_name}: {p.refused_reason}
            </p>
          )}
        </>
      )}
    </section>
  );
}

/**
 * A due-date step's day: a number of days and whether they fall before or after the due date
 * (stored as one signed offset), or the due date itself.
 */
function DueOffsetField({ value, onChange }: { value: number; onChange: (days: number) => void }) {
  const [side, setSide] = useState<'before' | 'on' | 'after'>(value < 0 ? 'before' : value > 0 ? 'after' : 'on');
  const [days, setDays] = useState(Math.abs(value) || 3);
  const emit = (nextSide: typeof side, nextDays: number) => onChange(nextSide === 'on' ? 0 : nextSide === 'before' ? -nextDays : nextDays);
  return (
    <fieldset className="due-offset" style={{ border: 'none', padding: 0, margin: 0 }}>
      <legend>When, from each invoice's due date</legend>
      <div className="due-offset-row">
        {side !== 'on' && (
          <label>
            Days
            <input
              type="number"
              min={1}
              max={3650}
              value={days}
              onChange={(e) => {
                const n = Math.min(3650, Math.max(1, Math.trunc(Number(e.target.value) || 1)));
                setDays(n);
                emit(side, n);
              }}
            />
          </label>
        )}
        <label>
          Before or after due
          <select
            value={side}
            onChange={(e) => {
              const next = e.target.value as typeof side;
              setSide(next);
              emit(next, days);
            }}
          >
            <option value="before">{days === 1 ? 'day' : 'days'} before due</option>
            <option value="on">on the due date</option>
            <option value="after">{days === 1 ? 'day' : 'days'} after due</option>
          </select>
        </label>
      </div>
    </fieldset>
  );
}
