import { type FormEvent, useEffect, useRef, useState } from 'react';
import type { Schemas } from '../api/client';
import { describeError } from '../components/ErrorBox';
import { formatTimestamp } from '../desk/format';
import { api } from '../state/session';
import { toast } from '../state/toasts';
import { useEscape } from './NewCompany';

type Role = Schemas['CompanyMember']['role'];
export const ACCESS_ROLES: Record<Role, string> = { owner: 'Owner', manager: 'Manager', collector: 'Collector', viewer: 'Viewer (read only)' };
const ROLE_HELP: Record<Role, string> = {
  collector: 'works their customers: My work, reminders, calls',
  manager: 'a collector who also sees the team and its users',
  owner: 'everything, including users, email and company details',
  viewer: 'reads only; owns no customers',
};

type Added = Schemas['AddedCompanyMember'];

/**
 * Invites a teammate: a new user signs in once with a setup code shown here once; someone who
 * already uses ardesk (on this machine or team server) is linked by their username and email.
 * Either way they join the team with their role, so customers can be assigned to them.
 */
export function InviteDialog({ companyId, onClose, onInvited }: { companyId: string; onClose: () => void; onInvited: () => void }) {
  const [form, setForm] = useState({ name: '', username: '', email: '', role: 'collector' as Role, existing: false });
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [added, setAdded] = useState<Added | null>(null);
  const first = useRef<HTMLInputElement>(null);
  useEscape(onClose);
  useEffect(() => first.current?.focus(), []);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    const who = { username: form.username.trim(), role: form.role };
    const email = form.email.trim() || undefined;
    try {
      const member = await api.post('/api/companies/{company_id}/members', {
        path: { company_id: companyId },
        body: form.existing ? { ...who, email } : { ...who, invite: true, name: form.name.trim() || undefined, email },
      });
      onInvited();
      if (member.setup_code) setAdded(member);
      else {
        toast.success(`${member.display_name} joined as ${ACCESS_ROLES[member.role].toLowerCase()}`);
        onClose();
      }
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="modal-backdrop" role="presentation" onClick={added ? undefined : onClose}>
      <div className="modal modal-wide" role="dialog" aria-modal="true" aria-labelledby="invite-title" onClick={(e) => e.stopPropagation()}>
        {added ? (
          <>
            <h2 id="invite-title">{added.display_name}'s setup code</h2>
            <p className="setup-code" data-testid="setup-code">
              {added.setup_code}
            </p>
            <p>
              Give {added.display_name} this code with their username <strong>{added.username}</strong>. On the sign-in page they choose "I have a setup code", enter both and pick their own
              password. The code works once, until {formatTimestamp(added.setup_code_expires_at)}.
            </p>
            <p className="notice">It is not shown again: copy it now.</p>
            <div className="modal-actions">
              <button
                type="button"
                className="btn"
                onClick={() =>
                  void navigator.clipboard?.writeText(added.setup_code!).then(
                    () => toast.success('Setup code copied'),
                    () => toast.error('Could not copy: select the code and copy it'),
                  )
                }
              >
                Copy code
              </button>
              <button type="button" className="btn btn-primary" onClick={onClose}>
                Done
              </button>
            </div>
          </>
        ) : (
          <>
            <h2 id="invite-title">Invite a teammate</h2>
            <form className="form-grid" onSubmit={submit} aria-label="Invite a teammate">
              <label className="check wide">
                <input type="checkbox" checked={form.existing} onChange={(e) => setForm({ ...form, existing: e.target.checked })} /> They already have an ardesk account (link it by username and email)
              </label>
              {!form.existing && (
                <label>
                  Full name
                  <input ref={first} maxLength={200} value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} />
                </label>
              )}
              <label>
                Username
                <input required maxLength={64} autoComplete="off" value={form.username} onChange={(e) => setForm({ ...form, username: e.target.value })} />
              </label>
              <label>
                Email{form.existing ? ' (theirs, to match)' : ' (optional)'}
                <input type="email" required={form.existing} maxLength={320} value={form.email} onChange={(e) => setForm({ ...form, email: e.target.value })} />
              </label>
              <label>
                Role
                <select value={form.role} onChange={(e) => setForm({ ...form, role: e.target.value as Role })} aria-describedby="invite-role-help">
                  {Object.entries(ACCESS_ROLES).map(([value, label]) => (
                    <option key={value} value={value}>
                      {label}
                    </option>
                  ))}
                </select>
              </label>
              <p id="invite-role-help" className="wide muted small">
                {ACCESS_ROLES[form.role]}: {ROLE_HELP[form.role]}.
              </p>
              {error && (
                <div className="error-box wide" role="alert">
                  <span>{error}</span>
                </div>
              )}
              <div className="form-actions">
                <button type="button" className="btn" onClick={onClose}>
                  Cancel
                </button>
                <button type="submit" className="btn btn-primary" disabled={busy || !form.username.trim()}>
                  {form.existing ? 'Add to the company' : 'Invite'}
                </button>
              </div>
            </form>
          </>
        )}
      </div>
    </div>
  );
}
