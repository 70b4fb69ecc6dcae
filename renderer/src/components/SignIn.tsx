import { type FormEvent, useState } from 'react';
import { useDocumentTitle } from '../state/title';
import { api, useSession } from '../state/session';
import { describeError } from './ErrorBox';

/** Sign in with a password, or once with the setup code an invitation gave (choosing the password then). */
export function SignIn() {
  const { signIn, adopt, notice } = useSession();
  const [withCode, setWithCode] = useState(false);
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      if (withCode) {
        const result = await api.post('/api/v1/setup/code/', { body: { username: username.trim(), setup_code: code, password } });
        await adopt(result.token);
      } else await signIn(username, password);
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  }

  const title = withCode ? 'Set up your account' : 'Sign in';
  useDocumentTitle([title]);
  return (
    <main className="auth-page">
      <form className="auth-card" onSubmit={submit} aria-label={title}>
        <h1 className="brand">ardesk</h1>
        <p className="muted">{withCode ? 'Enter your username and the setup code you were given, then choose your password.' : 'Sign in to your collection desk.'}</p>
        {notice && <p className="notice">{notice}</p>}
        <label>
          Username
          <input name="username" autoComplete="username" autoFocus required value={username} onChange={(e) => setUsername(e.target.value)} />
        </label>
        {withCode && (
          <label>
            Setup code
            <input name="setup-code" autoComplete="one-time-code" required placeholder="XXXX-XXXX-XXXX" value={code} onChange={(e) => setCode(e.target.value)} />
          </label>
        )}
        <label>
          {withCode ? 'Choose a password' : 'Password'}
          <input
            name="password"
            type="password"
            autoComplete={withCode ? 'new-password' : 'current-password'}
            required
            minLength={withCode ? 4 : undefined}
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        </label>
        {error && (
          <p className="form-error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" className="btn btn-primary" disabled={busy}>
          {busy ? 'Signing in…' : withCode ? 'Set password and sign in' : 'Sign in'}
        </button>
        <button
          type="button"
          className="btn btn-ghost"
          onClick={() => {
            setWithCode(!withCode);
            setError(null);
            setPassword('');
          }}
        >
          {withCode ? 'Sign in with a password instead' : 'I have a setup code'}
        </button>
      </form>
    </main>
  );
}
