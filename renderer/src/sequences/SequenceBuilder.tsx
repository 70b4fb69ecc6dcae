import { type FormEvent, useCallback, useEffect, useState } from 'react';
import type { Schemas } from '../api/client';
import { describeError, ErrorBox } from '../components/ErrorBox';
import { Tabs } from '../components/Tabs';
import { useLoad } from '../components/useLoad';
import { companyPath, useRoute } from '../state/route';
import { api } from '../state/session';
import { toast } from '../state/toasts';
import '../components/outreach.css';
import { Enrollments } from './Enrollments';
import { StepEditor } from './StepEditor';
import { attachWords, lifecycleActions, plural, SEQUENCE_STATUS_WORDS, STEP_TYPE_WORDS, stepWhen, TIMING_WORDS } from './words';

type Overview = Schemas['SequenceOverview'];

/** One sequence: its settings, its steps in firing order with an editor and live preview, and its enrollments. */
export default function SequenceBuilder({ companyId, sequenceId, tab: linked = null }: { companyId: string; sequenceId: string; tab?: string | null }) {
  const navigate = useRoute((s) => s.navigate);
  // The tab is in the address (/sequences/<id>/enrollments; ?tab=enrollments as links made before said it).
  const tab = (linked ?? new URLSearchParams(window.location.search).get('tab')) === 'enrollments' ? 'enrollments' : 'steps';
  const setTab = (next: 'steps' | 'enrollments') => navigate(`${companyPath(companyId, 'sequences', sequenceId)}${next === 'enrollments' ? '/enrollments' : ''}`, { replace: true });
  const [version, setVersion] = useState(0);
  const [editing, setEditing] = useState<string | 'new' | null>(null);
  const changed = useCallback(() => setVersion((v) => v + 1), []);
  const path = { company_id: companyId, sequence_id: sequenceId };
  const overview = useLoad((signal) => api.get('/api/companies/{company_id}/sequences/{sequence_id}/overview', { path, signal }), [companyId, sequenceId, version]);
  const o = overview.data;

  async function lifecycle(action: 'activate' | 'archive') {
    try {
      await api.post('/api/companies/{company_id}/sequences/{sequence_id}', { path, body: { action } });
      toast.success(action === 'activate' ? 'Sequence activated: customers can be enrolled' : 'Sequence archived: its enrollments ended');
      changed();
    } catch (err) {
      toast.error(`Not ${action === 'activate' ? 'activated' : 'archived'}: ${describeError(err)}`);
    }
  }

  return (
    <div className="outreach">
      <div className="outreach-main">
        <nav className="crumbs" aria-label="Breadcrumb">
          <a
            href={companyPath(companyId, 'sequences')}
            onClick={(e) => {
              e.preventDefault();
              navigate(companyPath(companyId, 'sequences'));
            }}
          >
            ← Sequences
          </a>
        </nav>
        {overview.error !== null && <ErrorBox what="the sequence" error={overview.error} onRetry={overview.reload} />}
        {!o && overview.error === null && <p className="muted">Loading…</p>}
        {o && (
          <>
            <header className="outreach-head">
              <h1 data-testid="sequence-name">{o.sequence.name}</h1>
              <span className="pill" data-testid="sequence-status">
                {SEQUENCE_STATUS_WORDS[o.sequence.status]}
              </span>
              <span className="muted">
                {plural(o.steps.length, 'step')} · {plural(o.active_enrollment_count, 'active enrollment')}
              </span>
              <span className="spacer" />
              {lifecycleActions(o.sequence.status).map((a) => (
                <button key={a} type="button" className={a === 'activate' ? 'btn btn-primary' : 'btn'} onClick={() => void lifecycle(a)}>
                  {a === 'activate' ? 'Activate' : 'Archive'}
                </button>
              ))}
            </header>
            <Settings companyId={companyId} overview={o} onSaved={changed} />
            <Tabs
              label="Sequence"
              tabs={[
                { key: 'steps', label: 'Steps', count: o.steps.length },
                { key: 'enrollments', label: 'Enrollments', count: o.active_enrollment_count },
              ]}
              active={tab}
              onChange={setTab}
            />
            {tab === 'steps' ? (
              <div className="stack" data-testid="steps">
                <TimingChoice companyId={companyId} overview={o} onSaved={changed} />
                {o.steps.length === 0 && <p className="muted">No steps yet.</p>}
                {o.steps.length > 0 && (
                  <table className="item-list">
                    <thead>
                      <tr>
                        <th>When</th>
                        <th>Channel</th>
                        <th>Step</th>
                        <th>State</th>
                      </tr>
                    </thead>
                    <tbody>
                      {o.steps.map((step) => (
                        <tr key={step.id} className={editing === step.id ? 'current' : undefined} onClick={() => setEditing(step.id)}>
                          <td>{stepWhen(step, o.sequence.timing)}</td>
                          <td>{STEP_TYPE_WORDS[step.step_type]}</td>
                          <td>
                            <button
                              type="button"
                              className="linkish"
                              onClick={(e) => {
                                e.stopPropagation();
                                setEditing(step.id);
                              }}
                            >
                              {step.label}
                            </button>
                            {step.step_type === 'reminder' && step.subject_template && <div className="muted small">{step.subject_template}</div>}
                            {step.step_type === 'reminder' && step.attach.length > 0 && <div className="muted small">{attachWords(step.attach)}</div>}
                          </td>
                          <td>
                            {step.is_active ? 'On' : 'Off'}
                            {step.has_history && <div className="muted small">Has run: locked</div>}
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                )}
                {editing === null && (
                  <div>
                    <button type="button" className="btn" onClick={() => setEditing('new')}>
                      Add a step
                    </button>
                  </div>
                )}
                {/* A step just added is edited once the reloaded overview has it (its fields seed the form). */}
                {editing !== null && (editing === 'new' || o.steps.some((s) => s.id === editing)) && (
                  <StepEditor
                    key={editing}
                    companyId={companyId}
                    overview={o}
                    step={editing === 'new' ? null : (o.steps.find((s) => s.id === editing) ?? null)}
                    onClose={() => setEditing(null)}
                    onSaved={(id) => {
                      setEditing(id);
                      changed();
                    }}
                  />
                )}
              </div>
            ) : (
              <Enrollments companyId={companyId} sequence={o.sequence} onChanged={changed} />
            )}
          </>
        )}
      </div>
    </div>
  );
}

const TIMING_HELP: Record<Overview['sequence']['timing'], (zone: string) => string> = {
  enrollment_start: (zone) => `Each step runs a number of days after the customer's enrollment start date, at its time in ${zone}.`,
  due_date: (zone) =>
    `Each open invoice of an enrolled customer gets its own schedule, counted from its due date, at each step's time in ${zone}. Invoices that open later join; paid, credited or written-off ones leave. Steps that fall on the same day for one customer go out as one email listing the invoices ({{invoice_list}}).`,
};

/** How the sequence times its steps; saved at once, and fixed while customers are enrolled. */
function TimingChoice({ companyId, overview, onSaved }: { companyId: string; overview: Overview; onSaved: () => void }) {
  const seq = overview.sequence;
  const [busy, setBusy] = useState(false);
  const [chosen, setChosen] = useState(seq.timing);
  useEffect(() => setChosen(seq.timing), [seq.timing]);
  const locked = overview.active_enrollment_count > 0;
  async function choose(timing: Overview['sequence']['timing']) {
    setBusy(true);
    setChosen(timing);
    try {
      await api.patch('/api/companies/{company_id}/sequences/{sequence_id}', { path: { company_id: companyId, sequence_id: seq.id }, body: { timing } });
      toast.success(timing === 'due_date' ? 'Steps now run from each invoice’s due date' : 'Steps now run from the enrollment start');
      onSaved();
    } catch (err) {
      setChosen(seq.timing);
      toast.error(`Timing not changed: ${describeError(err)}`);
    }
    setBusy(false);
  }
  return (
    <fieldset className="timing-choice" data-testid="timing-choice" disabled={busy || locked}>
      <legend>Timing</legend>
      {(['enrollment_start', 'due_date'] as const).map((t) => (
        <label key={t} className="check">
          <input type="radio" name="sequence-timing" value={t} checked={chosen === t} onChange={() => void choose(t)} /> {TIMING_WORDS[t]}
        </label>
      ))}
      <p className="muted small">
        {TIMING_HELP[seq.timing](seq.timezone)}
        {locked && ' The timing can change once no customer is enrolled.'}
      </p>
    </fieldset>
  );
}

type PauseKey = 'pause_on_reply' | 'pause_on_promise' | 'pause_on_dispute';
const PAUSES: Array<[PauseKey, string]> = [
  ['pause_on_reply', 'they replied and nobody has answered yet'],
  ['pause_on_promise', 'a promise to pay stands (until its date passes unpaid)'],
  ['pause_on_dispute', 'one of their invoices is disputed'],
];
const pausesOf = (seq: Overview['sequence']): Record<PauseKey, boolean> => ({ pause_on_reply: seq.pause_on_reply, pause_on_promise: seq.pause_on_promise, pause_on_dispute: seq.pause_on_dispute });

function Settings({ companyId, overview, onSaved }: { companyId: string; overview: Overview; onSaved: () => void }) {
  const seq = overview.sequence;
  const [name, setName] = useState(seq.name);
  const [timezone, setTimezone] = useState(seq.timezone);
  const [sender, setSender] = useState(seq.sender_connection_id ?? '');
  const [thread, setThread] = useState(seq.send_followups_in_thread);
  const [pauses, setPauses] = useState(() => pausesOf(seq));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    setName(seq.name);
    setTimezone(seq.timezone);
    setSender(seq.sender_connection_id ?? '');
    setThread(seq.send_followups_in_thread);
    setPauses(pausesOf(seq));
  }, [seq]);
  const pausesChanged = PAUSES.some(([key]) => pauses[key] !== seq[key]);
  const dirty = name !== seq.name || timezone !== seq.timezone || sender !== (seq.sender_connection_id ?? '') || thread !== seq.send_followups_in_thread || pausesChanged;

  async function save(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await api.patch('/api/companies/{company_id}/sequences/{sequence_id}', {
        path: { company_id: companyId, sequence_id: seq.id },
        body: { name: name.trim(), timezone, sender_connection_id: sender || null, send_followups_in_thread: thread, ...pauses },
      });
      toast.success('Sequence settings saved');
      onSaved();
    } catch (err) {
      setError(describeError(err));
    }
    setBusy(false);
  }

  return (
    <details className="card">
      <summary>Settings: sender {overview.email_connections.find((c) => c.id === seq.sender_connection_id)?.from_email ?? 'not set'}, time zone {seq.timezone}</summary>
      <form className="form-grid" onSubmit={save} aria-label="Sequence settings">
        <label>
          Name
          <input required value={name} onChange={(e) => setName(e.target.value)} />
        </label>
        <label>
          Time zone
          <select value={timezone} onChange={(e) => setTimezone(e.target.value)}>
            {Intl.supportedValuesOf('timeZone')
              .concat(Intl.supportedValuesOf('timeZone').includes(seq.timezone) ? [] : [seq.timezone])
              .map((z) => (
                <option key={z}>{z}</option>
              ))}
          </select>
        </label>
        <label>
          Sender
          <select value={sender} onChange={(e) => setSender(e.target.value)}>
            <option value="">None</option>
            {overview.email_connections.map((c) => (
              <option key={c.id} value={c.id}>
                {c.name} ({c.from_email})
              </option>
            ))}
          </select>
        </label>
        <label className="check">
          <input type="checkbox" checked={thread} onChange={(e) => setThread(e.target.checked)} /> Send follow-ups as replies in one thread
        </label>
        <fieldset className="wide">
          <legend>Pause a customer's sequence by itself while</legend>
          {PAUSES.map(([key, words]) => (
            <label key={key} className="check">
              <input type="checkbox" checked={pauses[key]} onChange={(e) => setPauses((p) => ({ ...p, [key]: e.target.checked }))} /> {words}
            </label>
          ))}
        </fieldset>
        {error && (
          <div className="error-box wide" role="alert">
            <span>{error}</span>
          </div>
        )}
        <div className="form-actions">
          <button type="submit" className="btn" disabled={busy || !dirty}>
            Save settings
          </button>
        </div>
      </form>
    </details>
  );
}
