import { useState } from 'react';
import { ConfirmDialog } from '../components/Dialog';
import { ErrorBox } from '../components/ErrorBox';
import { SecretOnce } from '../components/SecretOnce';
import { useLoad } from '../components/useLoad';
import { FormError, useSave } from '../components/useSave';
import { formatTimestamp } from '../desk/format';
import { api } from '../state/session';

/** Personal tokens for scripts: named, with an expiry, the secret shown once, listed and revoked. */
export function ApiTokens() {
  const [version, setVersion] = useState(0);
  const tokens = useLoad((signal) => api.get('/api/v1/auth/tokens/', { signal }), [version]);
  const [name, setName] = useState('');
  const [days, setDays] = useState('90');
  // The server asks for the password afresh before it makes a key that outlives this sign-in.
  const [password, setPassword] = useState('');
  const [secret, setSecret] = useState<{ name: string; token: string } | null>(null);
  const [revoking, setRevoking] = useState<{ id: string; name: string } | null>(null);
  const save = useSave();
  const reload = () => setVersion((v) => v + 1);
  return (
    <section className="card stack" aria-labelledby="tokens-title">
      <h2 id="tokens-title">API tokens</h2>
      <p className="muted">A token lets a script call the API as you (header “Authorization: Token …”). It is shown once; store it like a password.</p>
      {secret && (
        <SecretOnce secret={secret.token} testId="new-token" onDone={() => setSecret(null)}>
          <strong>{secret.name}</strong>: copy this token now; it will not be shown again.
        </SecretOnce>
      )}
      {tokens.error !== null && <ErrorBox what="your tokens" error={tokens.error} onRetry={tokens.reload} />}
      {tokens.data && tokens.data.tokens.length === 0 && <p className="muted">No tokens yet.</p>}
      {tokens.data && tokens.data.tokens.length > 0 && (
        <table className="data-table" data-testid="tokens-table">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Created</th>
              <th scope="col">Expires</th>
              <th scope="col">Last used</th>
              <th scope="col">
                <span className="sr-only">Revoke</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {tokens.data.tokens.map((t) => (
              <tr key={t.id}>
                <td>{t.name}</td>
                <td>{formatTimestamp(t.created_at)}</td>
                <td>{formatTimestamp(t.expires_at)}</td>
                <td>{t.last_used_at ? formatTimestamp(t.last_used_at) : <span className="muted">Never</span>}</td>
                <td className="num">
                  <button type="button" className="btn btn-small btn-danger" onClick={() => setRevoking({ id: t.id, name: t.name })} aria-label={`Revoke ${t.name}`}>
                    Revoke
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {revoking && (
        <ConfirmDialog
          title={`Revoke the token ${revoking.name}?`}
          confirmLabel="Revoke token"
          busy={save.busy}
          onCancel={() => setRevoking(null)}
          onConfirm={async () => {
            const target = revoking;
            setRevoking(null);
            if (await save.run(() => api.delete('/api/v1/auth/tokens/{token_id}/', { path: { token_id: target.id } }), `Token ${target.name} revoked.`)) reload();
          }}
        >
          Scripts using it stop working at once.
        </ConfirmDialog>
      )}
      <form
        className="toolbar-row"
        onSubmit={async (e) => {
          e.preventDefault();
          await save.run(async () => {
            const created = await api.post('/api/v1/auth/tokens/', { body: { name: name.trim(), expires_in_days: Number(days), password } });
            setSecret({ name: created.name, token: created.token });
            setName('');
            setPassword('');
            reload();
          }, 'Token created.');
        }}
      >
        <label>
          Token name
          <input value={name} required maxLength={100} onChange={(e) => setName(e.target.value)} />
        </label>
        <label>
          Expires after
          <select value={days} onChange={(e) => setDays(e.target.value)}>
            <option value="30">30 days</option>
            <option value="90">90 days</option>
            <option value="365">1 year</option>
          </select>
        </label>
        <label>
          Your password, to confirm
          <input type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
        </label>
        <button type="submit" className="btn btn-primary" disabled={save.busy || !name.trim() || !password}>
          Create token
        </button>
      </form>
      <FormError error={save.error} />
    </section>
  );
}
