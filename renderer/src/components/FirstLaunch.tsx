import { type FormEvent, useState } from 'react';
import { api, useSession } from '../state/session';
import { useDocumentTitle } from '../state/title';
import { describeError } from './ErrorBox';

/** An empty workspace: open the demo data to look around, or create the first account. */
export function FirstLaunch() {
  const adopt = useSession((s) => s.adopt);
  const [form, setForm] = useState({ company_name: '', display_name: '', username: '', password: '' });
  const [busy, setBusy] = useState<'demo' | 'account' | null>(null);
  const [error, setError] = useState<string | null>(null);
  useDocumentTitle(['Set up']);

  async function run(kind: 'demo' | 'account', action: () => Promise<{ token: string }>) {
    setBusy(kind);
    setError(null);
    try {
      await adopt((await action()).token);
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(null);
    }
  }

  function createAccount(event: FormEvent) {
    event.preventDefault();
    void run('account', () => api.post('/api/v1/setup/account/', { body: { ...form, display_name: form.display_name || undefined } }));
  }

  const field = (name: keyof typeof form) => ({ name, value: form[name], onChange: (e: { target: { value: string } }) => setForm({ ...form, [name]: e.target.value }) });

  return (
    <main className="auth-page">
      <div className="auth-card first-launch">
        <h1 className="brand">Welcome to ardesk</h1>
        <p className="muted">This workspace is empty. Explore it with realistic demo data, or start with your own company.</p>
        <section className="choice">
          <h2>Open the demo workspace</h2>
          <p className="muted">Two companies with customers, invoices in every aging bucket, payments, sequences and insights. Sign in later as demo / demo.</p>
          <button type="button" className="btn btn-primary" disabled={busy !== null} onClick={() => void run('demo', () => api.post('/api/v1/setup/demo/', {}))}>
            {busy === 'demo' ? 'Preparing the demo…' : 'Open the demo workspace'}
          </button>
        </section>
        <form className="choice" onSubmit={createAccount} aria-label="Create an account">
          <h2>Create an account</h2>
          <label>
            Company name
            <input required {...field('company_name')} />
          </label>
          <label>
            Your name
            <input {...field('display_name')} autoComplete="name" />
          </label>
          <label>
            Username
            <input required minLength={2} {...field('username')} autoComplete="username" />
          </label>
          <label>
            Password
            <input required minLength={4} type="password" {...field('password')} autoComplete="new-password" />
          </label>
          <button type="submit" className="btn" disabled={busy !== null}>
            {busy === 'account' ? 'Creating…' : 'Create an account'}
          </button>
        </form>
        {error && (
          <p className="form-error" role="alert">
            {error}
          </p>
        )}
      </div>
    </main>
  );
}
