import { type FormEvent, useEffect, useMemo, useRef, useState } from 'react';
import { describeError } from '../components/ErrorBox';
import { companyPath, useRoute } from '../state/route';
import { api, useSession } from '../state/session';
import { toast } from '../state/toasts';
import { countryChoices, currencyChoices, localPlace, timeZoneChoices } from './places';

/** Closes a dialog on Escape, before anything under it hears the key. */
export function useEscape(onClose: () => void) {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') {
        e.stopPropagation();
        onClose();
      }
    };
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, [onClose]);
}

/**
 * A company from nothing: its name, currency, time zone and country, and what its invoices and
 * statements print. Its maker is its owner; the new company opens on Settings › Team, where the
 * team is invited.
 */
export function NewCompanyDialog({ onClose }: { onClose: () => void }) {
  const place = useMemo(localPlace, []);
  const [form, setForm] = useState({ name: '', currency: 'USD', time_zone: place.timeZone, country: place.country, legal_name: '', address: '', tax_id: '' });
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const first = useRef<HTMLInputElement>(null);
  const navigate = useRoute((s) => s.navigate);
  useEscape(onClose);
  useEffect(() => first.current?.focus(), []);
  const zones = useMemo(() => {
    const all = timeZoneChoices();
    return all.includes(place.timeZone) ? all : [place.timeZone, ...all];
  }, [place.timeZone]);
  const set = (key: keyof typeof form) => (e: { target: { value: string } }) => setForm({ ...form, [key]: e.target.value });

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    const optional = (v: string) => (v.trim() ? v.trim() : undefined);
    try {
      const company = await api.post('/api/v1/companies/', {
        body: {
          name: form.name.trim(),
          currency: form.currency,
          time_zone: optional(form.time_zone) ?? null,
          country: optional(form.country) ?? null,
          legal_name: optional(form.legal_name),
          address: optional(form.address),
          tax_id: optional(form.tax_id),
        },
      });
      const session = useSession.getState();
      // The session's companies come from /me: read again, so the switcher lists the new one.
      if (session.token) await session.adopt(session.token);
      toast.success(`${company.name} created. Invite your team next.`);
      onClose();
      navigate(companyPath(company.id, 'settings', 'team'));
    } catch (err) {
      setError(describeError(err));
      setBusy(false);
    }
  }

  return (
    <div className="modal-backdrop" role="presentation" onClick={onClose}>
      <div className="modal modal-wide" role="dialog" aria-modal="true" aria-labelledby="new-company-title" onClick={(e) => e.stopPropagation()}>
        <h2 id="new-company-title">New company</h2>
        <form className="form-grid" onSubmit={submit} aria-label="New company">
          <label className="wide">
            Company name
            <input ref={first} required maxLength={200} value={form.name} onChange={set('name')} />
          </label>
          <label>
            Currency
            <select value={form.currency} onChange={set('currency')}>
              {currencyChoices().map((c) => (
                <option key={c.value} value={c.value}>
                  {c.label}
                </option>
              ))}
            </select>
          </label>
          <label>
            Country
            <select value={form.country} onChange={set('country')}>
              <option value="">Not set</option>
              {countryChoices().map((c) => (
                <option key={c.value} value={c.value}>
                  {c.label}
                </option>
              ))}
            </select>
          </label>
          <label className="wide">
            Time zone
            <select value={form.time_zone} onChange={set('time_zone')}>
              {zones.map((z) => (
                <option key={z} value={z}>
                  {z.replace(/_/g, ' ')}
                </option>
              ))}
            </select>
          </label>
          <p className="wide muted small">What its invoices and statements print (Settings › Company has the rest: logo, payment instructions, paper).</p>
          <label>
            Legal name
            <input maxLength={200} value={form.legal_name} onChange={set('legal_name')} placeholder="As on the company name" />
          </label>
          <label>
            Tax id
            <input maxLength={60} value={form.tax_id} onChange={set('tax_id')} />
          </label>
          <label className="wide">
            Address
            <textarea rows={2} maxLength={500} value={form.address} onChange={set('address')} />
          </label>
          {error && (
            <div className="error-box wide" role="alert">
              <span>{error}</span>
            </div>
          )}
          <div className="form-actions">
            <button type="button" className="btn" onClick={onClose}>
              Cancel
            </button>
            <button type="submit" className="btn btn-primary" disabled={busy || !form.name.trim()}>
              {busy ? 'Creating…' : 'Create company'}
            </button>
          </div>
        </form>
      </div>
    </div>
  );
}

/** The header's "New company" button with its dialog. */
export function NewCompanyButton({ className = 'btn btn-small btn-ghost' }: { className?: string }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" className={className} onClick={() => setOpen(true)} data-testid="new-company">
        New company
      </button>
      {open && <NewCompanyDialog onClose={() => setOpen(false)} />}
    </>
  );
}
