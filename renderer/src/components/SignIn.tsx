import { type FormEvent, useState } from 'react';
import { useDocumentTitle } from '../state/title';
import { useSession } from '../state/session';
import { describeError } from './ErrorBox';

export function SignIn() {
  const { signIn, notice } = useSession();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await signIn(username, password);
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  }

  useDocumentTitle(['Sign in']);
  return (
    <main className="auth-page">
      <form className="auth-card" onSubmit={submit} aria-label="Sign in">
        <h1 className="brand">ardesk</h1>
        <p className="muted">Sign in to your collection desk.</p>
        {notice && <p className="notice">{notice}</p>}
        <label>
          Username
          <input name="username" autoComplete="username" autoFocus required value={username} onChange={(e) => setUsername(e.target.value)} />
        </label>
        <label>
          Password
          <input name="password" type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
        </label>
        {error && (
          <p className="form-error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" className="btn btn-primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
