import { useEffect, useState } from 'react';
import type { Response } from '../api/client';
import { formatTimestamp } from '../desk/format';
import { api } from '../state/session';
import { commandInWords, syncSummary } from './words';

type SyncStatus = Response<'/api/v1/sync/status'>;

/** How often the indicator asks the local server for the sync state. */
const POLL_MS = 5_000;

/** The team-server sync state in the frame; nothing at all on a database that is not connected. */
export function SyncIndicator() {
  const [status, setStatus] = useState<SyncStatus | null>(null);
  useEffect(() => {
    let live = true;
    const load = () =>
      api
        .get('/api/v1/sync/status', {})
        .then((s) => live && setStatus(s))
        .catch(() => undefined);
    load();
    const timer = setInterval(load, POLL_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, []);
  if (!status || status.role !== 'replica') return null;
  const summary = syncSummary(status);
  return (
    <details className={`sync sync-${summary.tone}`} data-testid="sync-indicator">
      <summary role="status">
        <span className="conn-dot" aria-hidden="true" />
        {summary.label}
      </summary>
      <div className="sync-panel">
        <p>
          Team server {status.server_url}, signed in as {status.username}.{' '}
          {status.last_sync_at ? `Last synced ${formatTimestamp(status.last_sync_at)}.` : 'Not synced yet.'}
        </p>
        {status.last_error && !status.online ? <p>Last problem: {status.last_error}</p> : null}
        {status.rejected.length ? (
          <>
            <h2>Refused by the team server (undone here)</h2>
            <ul>
              {status.rejected.map((r) => (
                <li key={r.mutation_id}>
                  <strong>{commandInWords(r.command)}</strong>: {r.reason} <span className="muted">({formatTimestamp(r.created_at)})</span>
                </li>
              ))}
            </ul>
          </>
        ) : null}
      </div>
    </details>
  );
}
