import { formatTimestamp } from '../desk/format';
import { companyPath, useRoute } from '../state/route';
import { useSyncStatus } from './useSyncStatus';
import { commandInWords, pendingInWords, syncSummary } from './words';

/** How often the indicator asks the local server for the sync state. */
const POLL_MS = 5_000;

/** The team-server sync state in the frame; nothing at all on a database that is not connected. */
export function SyncIndicator({ companyId }: { companyId: string }) {
  const { status } = useSyncStatus(POLL_MS);
  const navigate = useRoute((s) => s.navigate);
  if (!status || status.role !== 'replica') return null;
  const summary = syncSummary(status);
  const settings = companyPath(companyId, 'settings', 'sync');
  return (
    <details className={`sync sync-${summary.tone}`} data-testid="sync-indicator">
      <summary>
        <span className="conn-dot" aria-hidden="true" />
        <span role="status">{summary.label}</span>
      </summary>
      <div className="sync-panel">
        <p>
          {status.online ? 'Online' : 'Offline'}: team server {status.server_url}, signed in as {status.username}.
        </p>
        <p data-testid="sync-last">{status.last_sync_at ? `Last successful sync ${formatTimestamp(status.last_sync_at)}.` : 'Not synced yet.'}</p>
        <p>{status.pending ? `${pendingInWords(status.pending)} for the team server.` : 'Nothing waiting to be sent.'}</p>
        {status.last_error && !status.online ? <p className="form-error">Last problem: {status.last_error}</p> : null}
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
        <p>
          <a
            href={settings}
            onClick={(e) => {
              e.preventDefault();
              (e.currentTarget.closest('details') as HTMLDetailsElement | null)?.removeAttribute('open');
              navigate(settings);
            }}
          >
            Team server settings
          </a>
        </p>
      </div>
    </details>
  );
}
