import { type FormEvent, useMemo, useState } from 'react';
import { countryChoices, currencyChoices, localPlace, timeZoneChoices } from '../onboarding/places';
import { api, useSession } from '../state/session';
import { useDocumentTitle } from '../state/title';
import { describeError } from './ErrorBox';

/** An empty workspace: open the demo data to look around, create the first account, or connect to the team's server. */
export function FirstLaunch() {
  const adopt = useSession((s) => s.adopt);
  const place = useMemo(localPlace, []);
  const [form, setForm] = useState({ company_name: '', display_name: '', username: '', password: '', currency: 'USD', country: place.country, time_zone: place.timeZone });
  const zones = useMemo(() => (timeZoneChoices().includes(place.timeZone) ? timeZoneChoices() : [place.timeZone, ...timeZoneChoices()]), [place.timeZone]);
  const [team, setTeam] = useState({ server_url: 'https://', username: '', password: '' });
  const [busy, setBusy] = useState<'demo' | 'account' | 'connect' | null>(null);
  const [error, setError] = useState<string | null>(null);
  useDocumentTitle(['Set up']);

  async function run(kind: 'demo' | 'account' | 'connect', action: () => Promise<{ token: string }>) {
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
    void run('account', () => api.post('/api/v1/setup/account/', { body: { ...form, display_name: form.display_name || undefined, country: form.country || null } }));
  }

  function connect(event: FormEvent) {
    event.preventDefault();
    void run('connect', () => api.post('/api/v1/setup/connect/', { body: { ...team, server_url: team.server_url.trim(), username: team.username.trim() } }));
  }

  const teamField = (name: keyof typeof team) => ({ name, value: team[name], onChange: (e: { target: { value: string } }) => setTeam({ ...team, [name]: e.target.value }) });

  const field = (name: keyof typeof form) => ({ name, value: form[name], onChange: (e: { target: { value: string } }) => setForm({ ...form, [name]: e.target.value }) });

  return (
    <main className="auth-page">
      <div className="auth-card first-launch">
        <h1 className="brand">Welcome to ardesk</h1>
        <p className="muted">This workspace is empty. Explore it with realistic demo data, start with your own company, or connect to your team’s ardesk server.</p>
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
          <div className="choice-row">
            <label>
              Currency
              <select {...field('currency')}>
                {currencyChoices().map((c) => (
                  <option key={c.value} value={c.value}>
                    {c.label}
                  </option>
                ))}
              </select>
            </label>
            <label>
              Country
              <select {...field('country')}>
                <option value="">Not set</option>
                {countryChoices().map((c) => (
                  <option key={c.value} value={c.value}>
                    {c.label}
                  </option>
                ))}
              </select>
            </label>
            <label>
              Time zone
              <select {...field('time_zone')}>
                {zones.map((z) => (
                  <option key={z} value={z}>
                    {z.replace(/_/g, ' ')}
                  </option>
                ))}
              </select>
            </label>
          </div>
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
        <form className="choice" onSubmit={connect} aria-label="Connect to a team server">
          <h2>Connect to a team server</h2>
          <p className="muted">Downloads your companies from the team’s ardesk server; you then work on them here, offline or not, and they sync. The password goes to the server only.</p>
          <label>
            Server address
            <input required type="url" {...teamField('server_url')} placeholder="https://ardesk.example.com:4870" />
          </label>
          <label>
            Username on the server
            <input required {...teamField('username')} autoComplete="username" />
          </label>
          <label>
            Password
            <input required type="password" {...teamField('password')} autoComplete="current-password" />
          </label>
          <button type="submit" className="btn" disabled={busy !== null}>
            {busy === 'connect' ? 'Downloading your companies…' : 'Connect and download'}
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
