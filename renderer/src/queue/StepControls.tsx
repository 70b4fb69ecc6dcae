import { useState } from 'react';
import { describeError } from '../components/ErrorBox';
import { api } from '../state/session';
import { toast } from '../state/toasts';
import type { QueueRow } from './words';

/** Tomorrow as YYYY-MM-DD in the collector's own zone: the earliest day a step can be snoozed to. */
function tomorrow(): string {
  const d = new Date();
  d.setDate(d.getDate() + 1);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

/**
 * The collector's hand on one pending step and its enrollment: skip the step, snooze it to a day,
 * pause or resume the customer's sequence, stop it. Each change reloads the list (onDone).
 */
export function StepControls({ companyId, row, onDone }: { companyId: string; row: QueueRow; onDone: () => void }) {
  const [date, setDate] = useState(tomorrow);
  const [busy, setBusy] = useState(false);
  const step = { company_id: companyId, scheduled_step_id: row.id };
  const enrollment = { company_id: companyId, enrollment_id: row.enrollment };
  const paused = row.pause_kind !== null;

  async function run(what: string, call: () => Promise<unknown>) {
    setBusy(true);
    try {
      await call();
      toast.success(what);
      onDone();
    } catch (err) {
      toast.error(`${row.customer_name}: ${describeError(err)}`);
    }
    setBusy(false);
  }

  return (
    <div className="toolbar-row step-controls" role="group" aria-label={`Change the step "${row.step_label}" for ${row.customer_name}`}>
      <button type="button" className="btn btn-small" disabled={busy} onClick={() => void run(`Skipped "${row.step_label}" for ${row.customer_name}`, () => api.post('/api/companies/{company_id}/sequences/queue/{scheduled_step_id}/skip', { path: step }))}>
        Skip this step
      </button>
      <form
        className="toolbar-row"
        onSubmit={(e) => {
          e.preventDefault();
          void run(`Snoozed "${row.step_label}" for ${row.customer_name}`, () => api.post('/api/companies/{company_id}/sequences/queue/{scheduled_step_id}/snooze', { path: step, body: { date } }));
        }}
      >
        <label>
          Snooze to
          <input type="date" min={tomorrow()} value={date} onChange={(e) => setDate(e.target.value)} required />
        </label>
        <button type="submit" className="btn btn-small" disabled={busy || !date}>
          Snooze
        </button>
      </form>
      {paused ? (
        <button type="button" className="btn btn-small" disabled={busy} onClick={() => void run(`Resumed the sequence for ${row.customer_name}`, () => api.post('/api/companies/{company_id}/sequence-enrollments/{enrollment_id}/resume', { path: enrollment }))}>
          Resume the sequence
        </button>
      ) : (
        <button type="button" className="btn btn-small" disabled={busy} onClick={() => void run(`Paused the sequence for ${row.customer_name}`, () => api.post('/api/companies/{company_id}/sequence-enrollments/{enrollment_id}/pause', { path: enrollment }))}>
          Pause the sequence
        </button>
      )}
      <button
        type="button"
        className="btn btn-small btn-danger"
        disabled={busy}
        onClick={() => void run(`Stopped the sequence for ${row.customer_name}`, () => api.post('/api/companies/{company_id}/sequence-enrollments/{enrollment_id}/stop', { path: enrollment, body: {} }))}
      >
        Stop the sequence
      </button>
    </div>
  );
}

/** Writes the email in the collector's own words before it goes out; kept with the step. */
export function EmailEditor({ companyId, row, subject, body, onDone, onCancel }: { companyId: string; row: QueueRow; subject: string; body: string; onDone: () => void; onCancel: () => void }) {
  const [s, setS] = useState(subject);
  const [b, setB] = useState(body);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const path = { company_id: companyId, scheduled_step_id: row.id };

  async function save(edit: { subject: string | null; body: string | null }) {
    setBusy(true);
    setError(null);
    try {
      await api.post('/api/companies/{company_id}/sequences/queue/{scheduled_step_id}/edit', { path, body: edit });
      toast.success(edit.subject === null ? 'Back to the sequence\'s template' : `Your email to ${row.customer_name} is kept with the step`);
      onDone();
    } catch (err) {
      setError(describeError(err));
    }
    setBusy(false);
  }

  return (
    <form
      className="stack"
      aria-label={`Edit the email to ${row.customer_name}`}
      onSubmit={(e) => {
        e.preventDefault();
        void save({ subject: s, body: b });
      }}
    >
      <label className="wide-field">
        Subject
        <input value={s} onChange={(e) => setS(e.target.value)} required />
      </label>
      <label className="wide-field">
        Message
        <textarea rows={10} value={b} onChange={(e) => setB(e.target.value)} required />
      </label>
      {error && (
        <div className="error-box" role="alert">
          <span>{error}</span>
        </div>
      )}
      <div className="form-actions">
        <button type="submit" className="btn btn-primary" disabled={busy}>
          Save this email
        </button>
        {row.edited_at && (
          <button type="button" className="btn" disabled={busy} onClick={() => void save({ subject: null, body: null })}>
            Use the template again
          </button>
        )}
        <button type="button" className="btn" disabled={busy} onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
