import { type FormEvent, useCallback, useEffect, useState } from 'react';
import { describeError, ErrorBox } from '../components/ErrorBox';
import { PageFooter } from '../components/Tabs';
import { useLoad } from '../components/useLoad';
import { formatCount, formatTimestamp } from '../desk/format';
import { companyPath, useRoute } from '../state/route';
import { api } from '../state/session';
import { toast } from '../state/toasts';
import '../components/outreach.css';
import { copyName, lifecycleActions, type Sequence, SEQUENCE_STATUS_WORDS, SEQUENCE_STATUSES } from './words';

const PAGE_SIZE = 50;

function localZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'America/New_York';
}

/** Sequences: the list with status, steps and active enrollments; create, duplicate, activate, archive. */
export default function SequencesPage({ companyId }: { companyId: string }) {
  const navigate = useRoute((s) => s.navigate);
  const [typed, setTyped] = useState('');
  const [search, setSearch] = useState('');
  const [status, setStatus] = useState('');
  const [page, setPage] = useState(1);
  const [version, setVersion] = useState(0);
  const [creating, setCreating] = useState(false);
  const changed = useCallback(() => setVersion((v) => v + 1), []);
  const path = { company_id: companyId };

  useEffect(() => {
    const t = setTimeout(() => setSearch(typed.trim()), 250);
    return () => clearTimeout(t);
  }, [typed]);
  useEffect(() => setPage(1), [search, status]);

  const list = useLoad(
    (signal) => api.get('/api/companies/{company_id}/sequences', { path, query: { search: search || undefined, status: status || undefined, page, page_size: PAGE_SIZE }, signal }),
    [companyId, search, status, page, version],
  );
  const open = (id: string) => navigate(companyPath(companyId, 'sequences', id));

  async function lifecycle(seq: Sequence, action: 'activate' | 'archive') {
    try {
      await api.post('/api/companies/{company_id}/sequences/{sequence_id}', { path: { company_id: companyId, sequence_id: seq.id }, body: { action } });
      toast.success(`${seq.name} ${action === 'activate' ? 'activated' : 'archived'}`);
      changed();
    } catch (err) {
      toast.error(`${seq.name} not ${action === 'activate' ? 'activated' : 'archived'}: ${describeError(err)}`);
    }
  }

  async function duplicate(seq: Sequence) {
    try {
      const all = await api.get('/api/companies/{company_id}/sequences', { path, query: { search: seq.name, page_size: 100 } });
      const created = await api.post('/api/companies/{company_id}/sequences', {
        path,
        body: { name: copyName(seq.name, all.data.map((s) => s.name)), timezone: seq.timezone, duplicate_from: seq.id, sender_connection_id: seq.sender_connection_id ?? undefined, send_followups_in_thread: seq.send_followups_in_thread },
      });
      toast.success(`Created ${created.name}, a draft copy`);
      open(created.id);
    } catch (err) {
      toast.error(`Not duplicated: ${describeError(err)}`);
    }
  }

  return (
    <div className="outreach">
      <div className="outreach-main">
        <header className="outreach-head">
          <h1>Sequences</h1>
          <span className="muted">Outreach programs: emails, calls and tasks on a schedule for each enrolled customer.</span>
          <span className="spacer" />
          <button type="button" className="btn btn-primary" onClick={() => setCreating(true)}>
            New sequence
          </button>
        </header>
        {creating && <CreateSequence companyId={companyId} onCancel={() => setCreating(false)} onCreated={open} />}
        <div className="toolbar-row" role="search">
          <label>
            <span className="sr-only">Search sequences</span>
            <input type="search" placeholder="Search by name…" value={typed} onChange={(e) => setTyped(e.target.value)} />
          </label>
          <label>
            Status
            <select value={status} onChange={(e) => setStatus(e.target.value)}>
              <option value="">Any</option>
              {SEQUENCE_STATUSES.map((st) => (
                <option key={st} value={st}>
                  {SEQUENCE_STATUS_WORDS[st]}
                </option>
              ))}
            </select>
          </label>
        </div>
        {list.error !== null && <ErrorBox what="the sequences" error={list.error} onRetry={list.reload} />}
        {list.data && list.data.data.length === 0 && <p className="muted">No sequences{search || status ? ' match' : ' yet: create one to start'}.</p>}
        {list.data && list.data.data.length > 0 && (
          <table className="item-list" data-testid="sequences-list">
            <thead>
              <tr>
                <th>Name</th>
                <th>Status</th>
                <th>Steps</th>
                <th>Active enrollments</th>
                <th>Updated</th>
                <th>
                  <span className="sr-only">Operations</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.data.data.map((seq) => (
                <tr key={seq.id} onClick={() => open(seq.id)}>
                  <td>
                    <a
                      href={companyPath(companyId, 'sequences', seq.id)}
                      onClick={(e) => {
                        e.preventDefault();
                        e.stopPropagation();
                        open(seq.id);
                      }}
                    >
                      {seq.name}
                    </a>
                    <div className="muted small">{seq.timezone}</div>
                  </td>
                  <td data-testid="sequence-status">{SEQUENCE_STATUS_WORDS[seq.status]}</td>
                  <td>{formatCount(seq.step_count)}</td>
                  <td>{formatCount(seq.active_enrollment_count)}</td>
                  <td className="small">{formatTimestamp(seq.updated_at)}</td>
                  <td onClick={(e) => e.stopPropagation()}>
                    <div className="toolbar-row">
                      {lifecycleActions(seq.status).map((a) => (
                        <button key={a} type="button" className="btn btn-small" onClick={() => void lifecycle(seq, a)}>
                          {a === 'activate' ? 'Activate' : 'Archive'}
                          <span className="sr-only"> {seq.name}</span>
                        </button>
                      ))}
                      <button type="button" className="btn btn-small" onClick={() => void duplicate(seq)}>
                        Duplicate<span className="sr-only"> {seq.name}</span>
                      </button>
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {list.data && list.data.count > PAGE_SIZE && <PageFooter page={page} pageSize={PAGE_SIZE} count={list.data.count} onPage={setPage} />}
      </div>
    </div>
  );
}

function CreateSequence({ companyId, onCancel, onCreated }: { companyId: string; onCancel: () => void; onCreated: (id: string) => void }) {
  const [name, setName] = useState('');
  const [timezone, setTimezone] = useState(localZone);
  const [sender, setSender] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const connections = useLoad((signal) => api.get('/api/companies/{company_id}/email-connections', { path: { company_id: companyId }, signal }), [companyId]);
  const zones = Intl.supportedValuesOf('timeZone');

  useEffect(() => {
    const preferred = connections.data?.data.find((c) => c.is_default && c.is_active);
    if (preferred && !sender) setSender(preferred.id);
  }, [connections.data, sender]);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const created = await api.post('/api/companies/{company_id}/sequences', { path: { company_id: companyId }, body: { name: name.trim(), timezone, sender_connection_id: sender || undefined } });
      toast.success(`Sequence ${created.name} created as a draft`);
      onCreated(created.id);
    } catch (err) {
      setError(describeError(err));
      setBusy(false);
    }
  }

  return (
    <form className="card form-grid" aria-label="New sequence" onSubmit={submit}>
      <label>
        Name
        <input required value={name} onChange={(e) => setName(e.target.value)} autoFocus />
      </label>
      <label>
        Time zone the steps fire in
        <select value={timezone} onChange={(e) => setTimezone(e.target.value)}>
          {zones.map((z) => (
            <option key={z}>{z}</option>
          ))}
        </select>
      </label>
      <label className="wide">
        Sender
        <select value={sender} onChange={(e) => setSender(e.target.value)}>
          <option value="">None yet</option>
          {connections.data?.data
            .filter((c) => c.is_active)
            .map((c) => (
              <option key={c.id} value={c.id}>
                {c.name} ({c.from_email})
              </option>
            ))}
        </select>
      </label>
      {error && (
        <div className="error-box wide" role="alert">
          <span>{error}</span>
        </div>
      )}
      <div className="form-actions">
        <button type="button" className="btn" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="btn btn-primary" disabled={busy || !name.trim()}>
          Create draft
        </button>
      </div>
    </form>
  );
}
