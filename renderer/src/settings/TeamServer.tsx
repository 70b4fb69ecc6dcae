import { type FormEvent, useState } from 'react';
import type { Schemas } from '../api/client';
import { ConfirmDialog } from '../components/Dialog';
import { ErrorBox } from '../components/ErrorBox';
import { FormError, useSave } from '../components/useSave';
import { formatTimestamp } from '../desk/format';
import { companyPath, useRoute } from '../state/route';
import { api, useSession } from '../state/session';
import { type SyncStatus, useSyncStatus } from '../sync/useSyncStatus';
import { commandInWords, pendingInWords, syncSummary, transferLine } from '../sync/words';
import { portalLine } from './portal-words';

type ServerCompany = Schemas['TeamServerCompanies']['companies'][number];

/** The sign-in typed for connecting, held in memory only until the download is opened. */
interface Typed {
  server_url: string;
  username: string;
  password: string;
}

const HERE_WORDS: Record<NonNullable<ServerCompany['here']>, string> = {
  kept: 'already kept here',
  local_only: 'a local-only copy is on this machine (kept when it was disconnected); it cannot be downloaded over it',
};

/**
 * Settings > Team server: connect this desktop to the team's ardesk server, choose the companies
 * kept here, follow the first download, then the sync state, sync now, resync and disconnect.
 */
export function TeamServer({ companyId }: { companyId: string }) {
  const { status, error, reload } = useSyncStatus(3_000);
  const [typed, setTyped] = useState<Typed | null>(null);
  if (!status) return <section className="card">{error !== null ? <ErrorBox what="the sync state" error={error} onRetry={reload} /> : <p className="muted">Loading…</p>}</section>;
  if (status.role === 'server') {
    return (
      <section className="card stack" aria-labelledby="team-title">
        <h2 id="team-title">Team server</h2>
        <p>This ardesk is itself the team server: desktops connect to it.</p>
        <p data-testid="portal-line">{portalLine(status.role)}</p>
      </section>
    );
  }
  const transfer = status.transfer;
  return (
    <div className="stack">
      <p className="card" data-testid="portal-line">
        {portalLine(status.role)}
      </p>
      {status.role === 'replica' && <ConnectionState status={status} companyId={companyId} onChanged={reload} />}
      {transfer && (
        <TransferCard transfer={transfer} typed={typed} companyId={companyId} onOpened={() => setTyped(null)} />
      )}
      {status.role === 'replica' && status.rejected.length > 0 && <Rejections rejected={status.rejected} canDismiss={status.can_manage} onChanged={reload} />}
      {transfer?.state !== 'running' &&
        (status.can_manage ? (
          <ConnectForm status={status} onStarted={(t) => setTyped(t)} onChanged={reload} />
        ) : (
          status.role !== 'replica' && (
            <section className="card stack" aria-labelledby="team-title">
              <h2 id="team-title">Team server</h2>
              <p>Only an owner of a company on this desktop can connect it to a team server.</p>
            </section>
          )
        ))}
    </div>
  );
}

function ConnectionState({ status, companyId, onChanged }: { status: SyncStatus; companyId: string; onChanged: () => void }) {
  const save = useSave();
  const [asking, setAsking] = useState(false);
  const [keep, setKeep] = useState(true);
  const navigate = useRoute((s) => s.navigate);
  const summary = syncSummary(status);
  const running = status.transfer?.state === 'running';
  const me = useSession((s) => s.user?.username);
  return (
    <section className="card stack" aria-labelledby="team-title" data-testid="team-server-state">
      <h2 id="team-title">Team server</h2>
      <dl className="fields">
        <div className="field">
          <dt>Server</dt>
          <dd className="mono">{status.server_url}</dd>
        </div>
        <div className="field">
          <dt>Connected as</dt>
          <dd>{status.username}</dd>
        </div>
        <div className="field">
          <dt>State</dt>
          <dd data-testid="team-server-summary">{summary.label}</dd>
        </div>
        <div className="field">
          <dt>Last successful sync</dt>
          <dd data-testid="team-server-last-sync">{status.last_sync_at ? formatTimestamp(status.last_sync_at) : 'Not yet'}</dd>
        </div>
        <div className="field">
          <dt>Kept on this machine</dt>
          <dd data-testid="team-server-companies">{status.companies.length ? status.companies.map((c) => c.name ?? c.company_id).join(', ') : 'No company yet'}</dd>
        </div>
        <div className="field">
          <dt>Waiting to be sent</dt>
          <dd data-testid="team-server-pending">{status.pending ? pendingInWords(status.pending) : 'Nothing'}</dd>
        </div>
      </dl>
      {me !== status.username && status.companies.length > 0 && (
        <p className="muted" data-testid="team-server-who">
          The companies kept here are {status.username}’s: sign in as {status.username}, with the team server password, to work on them.
        </p>
      )}
      {status.last_error && !status.online && (
        <p className="form-error" data-testid="team-server-error">
          Last problem: {status.last_error}
        </p>
      )}
      {status.pending_commands.length > 0 && (
        <ul className="muted" aria-label="Changes waiting for the team server">
          {status.pending_commands.map((p) => (
            <li key={p.mutation_id}>
              {commandInWords(p.command)} ({formatTimestamp(p.created_at)})
            </li>
          ))}
        </ul>
      )}
      <div className="form-actions">
        <button
          type="button"
          className="btn btn-primary"
          disabled={save.busy || running}
          onClick={async () => {
            await save.run(async () => {
              const round = await api.post('/api/v1/sync/now', {});
              if (round.rejected.length) throw new Error(`${round.rejected.length === 1 ? 'A change was' : `${round.rejected.length} changes were`} refused by the team server: see below`);
            }, 'Synced with the team server.');
            onChanged();
          }}
        >
          Sync now
        </button>
        {status.can_manage && (
          <>
            <button
              type="button"
              className="btn"
              disabled={save.busy || running}
              onClick={async () => {
                await save.run(() => api.post('/api/v1/sync/resync', {}), 'Downloading everything again.');
                onChanged();
              }}
            >
              Download everything again
            </button>
            <button type="button" className="btn btn-danger" disabled={save.busy || running} onClick={() => setAsking(true)}>
              Disconnect…
            </button>
          </>
        )}
      </div>
      <FormError error={save.error} />
      {asking && (
        <ConfirmDialog
          title={`Disconnect from ${status.server_url}?`}
          confirmLabel="Disconnect"
          busy={save.busy}
          onCancel={() => setAsking(false)}
          onConfirm={async () => {
            setAsking(false);
            const ok = await save.run(() => api.post('/api/v1/sync/disconnect', { body: { keep_local_copy: keep } }), keep ? 'Disconnected; the companies stay here, local only.' : 'Disconnected; the companies were removed from this machine.');
            if (!ok) return;
            const session = useSession.getState();
            if (session.token) await session.adopt(session.token);
            const left = useSession.getState().companies;
            if (left.length === 0) await useSession.getState().signOut();
            else navigate(companyPath(left.some((c) => c.id === companyId) ? companyId : left[0].id, 'settings', 'sync'));
            onChanged();
          }}
        >
          <fieldset className="stack">
            <legend>What happens to {status.companies.map((c) => c.name ?? c.company_id).join(', ') || 'the companies kept here'} on this machine?</legend>
            <label className="check">
              <input type="radio" name="keep" checked={keep} onChange={() => setKeep(true)} /> Keep a local copy: it stays here as a local-only company and no longer syncs
            </label>
            <label className="check">
              <input type="radio" name="keep" checked={!keep} onChange={() => setKeep(false)} disabled={status.pending > 0} /> Remove it from this machine (it stays on the team server)
            </label>
            {status.pending > 0 && <p className="muted">{pendingInWords(status.pending)}: sync first to remove the local copy, or keep it so nothing is lost.</p>}
          </fieldset>
        </ConfirmDialog>
      )}
    </section>
  );
}

function TransferCard({ transfer, typed, companyId, onOpened }: { transfer: NonNullable<SyncStatus['transfer']>; typed: Typed | null; companyId: string; onOpened: () => void }) {
  const save = useSave();
  const navigate = useRoute((s) => s.navigate);
  const title = transfer.kind === 'connect' ? 'First download' : 'Full resync';
  const first = transfer.companies[0];
  return (
    <section className="card stack" aria-labelledby="transfer-title" data-testid="sync-transfer">
      <h2 id="transfer-title">{title}</h2>
      {transfer.state === 'running' && <progress aria-label={`${title}: in progress`} />}
      <div role="status">
        <ul className="transfer-list">
          {transfer.companies.map((c) => (
            <li key={c.id}>{transferLine(c)}</li>
          ))}
        </ul>
      </div>
      {transfer.state === 'done' && <p data-testid="transfer-done">Download finished {formatTimestamp(transfer.finished_at ?? transfer.started_at)}.</p>}
      {transfer.state === 'failed' && (
        <p className="form-error" role="alert">
          The download stopped: {transfer.error}. Nothing of it was kept for the company it was on; try again below.
        </p>
      )}
      {transfer.state === 'done' && typed && first && transfer.kind === 'connect' && (
        <div className="form-actions">
          <button
            type="button"
            className="btn btn-primary"
            disabled={save.busy}
            onClick={async () => {
              const ok = await save.run(async () => {
                const session = useSession.getState();
                // The companies belong to the team server's user: work on them signed in as that user here.
                if (session.user?.username === typed.username && session.token) await session.adopt(session.token);
                else await session.signIn(typed.username, typed.password);
              }, `Signed in as ${typed.username}.`);
              if (!ok) return;
              onOpened();
              navigate(companyPath(useSession.getState().companies.some((c) => c.id === first.id) ? first.id : companyId, 'invoices'));
            }}
          >
            Open {first.name}
            {typed.username !== useSession.getState().user?.username ? ` as ${typed.username}` : ''}
          </button>
        </div>
      )}
      <FormError error={save.error} />
    </section>
  );
}

function Rejections({ rejected, canDismiss, onChanged }: { rejected: SyncStatus['rejected']; canDismiss: boolean; onChanged: () => void }) {
  const save = useSave();
  return (
    <section className="card stack" aria-labelledby="rejected-title" data-testid="sync-rejections">
      <h2 id="rejected-title">Changes the team server refused</h2>
      <p className="muted">Each was undone on this machine; the team server’s version is what you see now.</p>
      <table className="data-table">
        <thead>
          <tr>
            <th scope="col">What was undone</th>
            <th scope="col">Why</th>
            <th scope="col">When</th>
          </tr>
        </thead>
        <tbody>
          {rejected.map((r) => (
            <tr key={r.mutation_id}>
              <td>{commandInWords(r.command)}</td>
              <td>{r.reason}</td>
              <td>{formatTimestamp(r.created_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {canDismiss && (
        <div className="form-actions">
          <button
            type="button"
            className="btn"
            disabled={save.busy}
            onClick={async () => {
              await save.run(() => api.post('/api/v1/sync/rejections/dismiss', {}), 'The list of refused changes is cleared.');
              onChanged();
            }}
          >
            I have read these: clear the list
          </button>
        </div>
      )}
      <FormError error={save.error} />
    </section>
  );
}

function ConnectForm({ status, onStarted, onChanged }: { status: SyncStatus; onStarted: (typed: Typed) => void; onChanged: () => void }) {
  const connected = status.role === 'replica';
  const [serverUrl, setServerUrl] = useState(status.server_url ?? 'https://');
  const [username, setUsername] = useState(status.username ?? '');
  const [password, setPassword] = useState('');
  const [found, setFound] = useState<ServerCompany[] | null>(null);
  const [chosen, setChosen] = useState<Set<string>>(new Set());
  const save = useSave();
  const credentials = { server_url: connected ? (status.server_url ?? serverUrl) : serverUrl.trim(), username: username.trim(), password };

  const look = async (e: FormEvent) => {
    e.preventDefault();
    await save.run(async () => {
      const answer = await api.post('/api/v1/sync/server-companies', { body: credentials });
      setFound(answer.companies);
      setChosen(new Set(answer.companies.filter((c) => c.here === null).map((c) => c.id)));
    }, 'Signed in to the team server.');
  };

  const start = async (e: FormEvent) => {
    e.preventDefault();
    const ok = await save.run(() => api.post('/api/v1/sync/connect', { body: { ...credentials, company_ids: [...chosen] } }), 'Download started.');
    if (!ok) return;
    onStarted(credentials);
    setFound(null);
    setPassword('');
    onChanged();
  };

  return (
    <section className="card stack" aria-labelledby="connect-title">
      <h2 id="connect-title">{connected ? 'Keep another company here' : 'Connect to a team server'}</h2>
      {!connected && (
        <p className="muted">
          The team’s ardesk server orders and checks everyone’s work. Connected, this machine keeps a full copy of the companies you choose: you work on it offline or not, and
          it syncs when the server is reachable. Your password is only sent to the server, never kept here.
        </p>
      )}
      {found === null ? (
        <form className="form-grid" onSubmit={look} data-testid="team-server-form">
          <label className="wide">
            Server address
            <input type="url" required value={connected ? (status.server_url ?? '') : serverUrl} readOnly={connected} onChange={(e) => setServerUrl(e.target.value)} placeholder="https://ardesk.example.com:4870" />
          </label>
          <label>
            Username on the server
            <input required autoComplete="username" value={username} readOnly={connected} onChange={(e) => setUsername(e.target.value)} />
          </label>
          <label>
            Password
            <input type="password" required autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} />
          </label>
          <div className="form-actions">
            <button type="submit" className="btn btn-primary" disabled={save.busy}>
              {save.busy ? 'Signing in…' : 'Show my companies'}
            </button>
          </div>
        </form>
      ) : (
        <form className="stack" onSubmit={start} data-testid="team-server-companies">
          <fieldset className="stack">
            <legend>Companies to keep on this machine</legend>
            {found.length === 0 && <p>{username} is not a member of any company on this server.</p>}
            {found.map((c) => (
              <label key={c.id} className="check">
                <input
                  type="checkbox"
                  disabled={c.here !== null}
                  checked={chosen.has(c.id)}
                  onChange={(e) => {
                    const next = new Set(chosen);
                    if (e.target.checked) next.add(c.id);
                    else next.delete(c.id);
                    setChosen(next);
                  }}
                />{' '}
                {c.name} <span className="muted">({c.role}{c.here ? `; ${HERE_WORDS[c.here]}` : ''})</span>
              </label>
            ))}
          </fieldset>
          <div className="form-actions">
            <button type="button" className="btn" onClick={() => setFound(null)}>
              Back
            </button>
            <button type="submit" className="btn btn-primary" disabled={save.busy || chosen.size === 0}>
              {chosen.size > 1 ? `Connect and download ${chosen.size} companies` : 'Connect and download'}
            </button>
          </div>
        </form>
      )}
      <FormError error={save.error} />
    </section>
  );
}
