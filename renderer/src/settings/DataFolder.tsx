import { useState } from 'react';
import { ApiError } from '../api/client';
import { ErrorBox } from '../components/ErrorBox';
import { useLoad } from '../components/useLoad';
import { FormError, useSave } from '../components/useSave';
import { formatTimestamp } from '../desk/format';
import { api, useSession } from '../state/session';

function size(bytes: number): string {
  return bytes >= 1_048_576 ? `${(bytes / 1_048_576).toFixed(1)} MB` : `${Math.max(1, Math.round(bytes / 1024))} KB`;
}

/** Where the data lives, the backups next to it, and a backup now. */
export function DataFolder() {
  const ownsEvery = useSession((s) => s.companies.every((c) => c.role === 'owner'));
  return (
    <section className="card stack" aria-labelledby="data-title">
      <h2 id="data-title">Data folder and backups</h2>
      {ownsEvery ? <Folder /> : <NotOwner />}
    </section>
  );
}

/** A permission, not a failure: nothing to retry, and who can help. */
function NotOwner() {
  return (
    <p className="notice" role="status" data-testid="backups-owner-only">
      A backup holds every company in this database, so only a user who owns all of them can see or make backups. Ask that owner.
    </p>
  );
}

function Folder() {
  const [version, setVersion] = useState(0);
  const folder = useLoad((signal) => api.get('/api/v1/backups/', { signal }), [version]);
  const save = useSave();
  // The database holds a company this user is not in: the server says so when asked.
  if (folder.error instanceof ApiError && folder.error.status === 403) return <NotOwner />;
  return (
    <>
      {folder.error !== null && <ErrorBox what="the data folder" error={folder.error} onRetry={folder.reload} />}
      {folder.data && (
        <>
          <dl className="fields">
            <div className="field">
              <dt>Data folder</dt>
              <dd className="mono">{folder.data.data_folder}</dd>
            </div>
            <div className="field">
              <dt>Database</dt>
              <dd>
                <span className="mono">{folder.data.database_file}</span> ({size(folder.data.database_size_bytes)})
              </dd>
            </div>
          </dl>
          {folder.data.backups.length === 0 ? (
            <p className="muted">No backups yet.</p>
          ) : (
            <table className="data-table" data-testid="backups-table">
              <thead>
                <tr>
                  <th scope="col">Backup</th>
                  <th scope="col">Made</th>
                  <th scope="col" className="num">
                    Size
                  </th>
                </tr>
              </thead>
              <tbody>
                {folder.data.backups.map((b) => (
                  <tr key={b.path}>
                    <td className="mono">{b.file_name}</td>
                    <td>{formatTimestamp(b.created_at)}</td>
                    <td className="num">{size(b.size_bytes)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
      {folder.data && (
        <div className="form-actions">
          <button type="button" className="btn btn-primary" disabled={save.busy} onClick={async () => (await save.run(() => api.post('/api/v1/backups/', {}), 'Backup made.')) && setVersion((v) => v + 1)}>
            Back up now
          </button>
        </div>
      )}
      <FormError error={save.error} />
    </>
  );
}
