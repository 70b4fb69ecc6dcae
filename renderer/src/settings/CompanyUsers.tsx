import { useState } from 'react';
import type { Schemas } from '../api/client';
import { ConfirmDialog } from '../components/Dialog';
import { ErrorBox } from '../components/ErrorBox';
import { useLoad } from '../components/useLoad';
import { FormError, useSave } from '../components/useSave';
import { api } from '../state/session';

type Role = Schemas['CompanyMember']['role'];
const ROLES: Record<Role, string> = { owner: 'Owner', manager: 'Manager', collector: 'Collector', viewer: 'Viewer (read only)' };

/** Who signs in to this company and with which role; an owner invites (creates a user), changes roles and removes. */
export function CompanyUsers({ companyId, isOwner, canList = isOwner }: { companyId: string; isOwner: boolean; canList?: boolean }) {
  const [version, setVersion] = useState(0);
  // Only owners and managers may list the users (the server answers 403 to others): others read why, not an error.
  const members = useLoad(
    (signal) => (canList ? api.get('/api/companies/{company_id}/members', { path: { company_id: companyId }, signal }) : Promise.resolve(null)),
    [companyId, version, canList],
  );
  const [form, setForm] = useState({ username: '', name: '', email: '', password: '', role: 'collector' as Role });
  const [removing, setRemoving] = useState<Schemas['CompanyMember'] | null>(null);
  const save = useSave();
  const reload = () => setVersion((v) => v + 1);
  return (
    <section className="card stack" aria-labelledby="users-title">
      <h2 id="users-title">Users and roles</h2>
      {!isOwner && (
        <p className="notice" role="status">
          {canList ? 'Only an owner of the company changes who has access.' : 'Only an owner or a manager of the company sees who has access, and only an owner changes it. Ask an owner.'}
        </p>
      )}
      {members.error !== null && <ErrorBox what="the users" error={members.error} onRetry={members.reload} />}
      {members.data && (
        <table className="data-table" data-testid="users-table">
          <thead>
            <tr>
              <th scope="col">User</th>
              <th scope="col">Role</th>
              <th scope="col">
                <span className="sr-only">Remove</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {members.data.members.map((m) => (
              <tr key={m.user_id}>
                <td>
                  {m.display_name || m.username} <span className="muted">({m.username})</span>
                </td>
                <td>
                  {isOwner ? (
                    <select
                      aria-label={`Role of ${m.username}`}
                      value={m.role}
                      disabled={save.busy}
                      onChange={async (e) => {
                        const role = e.target.value as Role;
                        if (await save.run(() => api.patch('/api/companies/{company_id}/members/{user_id}', { path: { company_id: companyId, user_id: m.user_id }, body: { role } }), `${m.username} is now ${ROLES[role].toLowerCase()}.`)) reload();
                      }}
                    >
                      {Object.entries(ROLES).map(([value, label]) => (
                        <option key={value} value={value}>
                          {label}
                        </option>
                      ))}
                    </select>
                  ) : (
                    ROLES[m.role]
                  )}
                </td>
                <td className="num">
                  {isOwner && (
                    <button type="button" className="btn btn-small btn-danger" onClick={() => setRemoving(m)} aria-label={`Remove ${m.username}`}>
                      Remove
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {removing && (
        <ConfirmDialog
          title={`Remove ${removing.username} from this company?`}
          confirmLabel="Remove"
          busy={save.busy}
          onCancel={() => setRemoving(null)}
          onConfirm={async () => {
            const target = removing;
            setRemoving(null);
            if (await save.run(() => api.delete('/api/companies/{company_id}/members/{user_id}', { path: { company_id: companyId, user_id: target.user_id } }), `${target.username} removed.`)) reload();
          }}
        >
          They can no longer sign in to this company; their other companies are unchanged.
        </ConfirmDialog>
      )}
      {isOwner && (
        <form
          className="form-cols"
          onSubmit={async (e) => {
            e.preventDefault();
            const body = {
              username: form.username.trim(),
              role: form.role,
              ...(form.name.trim() ? { name: form.name.trim() } : {}),
              ...(form.email.trim() ? { email: form.email.trim() } : {}),
              ...(form.password ? { password: form.password } : {}),
            };
            if (await save.run(() => api.post('/api/companies/{company_id}/members', { path: { company_id: companyId }, body }), `${body.username} added.`)) {
              setForm({ username: '', name: '', email: '', password: '', role: 'collector' });
              reload();
            }
          }}
        >
          <label className="form-row">
            Username
            <input value={form.username} required onChange={(e) => setForm({ ...form, username: e.target.value })} />
          </label>
          <label className="form-row">
            Full name
            <input value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} />
          </label>
          <label className="form-row">
            Email (an existing user: theirs)
            <input type="email" value={form.email} onChange={(e) => setForm({ ...form, email: e.target.value })} />
          </label>
          <label className="form-row">
            Password (new users)
            <input type="password" autoComplete="new-password" value={form.password} onChange={(e) => setForm({ ...form, password: e.target.value })} />
          </label>
          <label className="form-row">
            Role
            <select value={form.role} onChange={(e) => setForm({ ...form, role: e.target.value as Role })}>
              {Object.entries(ROLES).map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          </label>
          <div className="form-actions">
            <button type="submit" className="btn btn-primary" disabled={save.busy || !form.username.trim()}>
              Add user
            </button>
          </div>
        </form>
      )}
      <FormError error={save.error} />
    </section>
  );
}
