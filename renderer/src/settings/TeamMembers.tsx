import { useState } from 'react';
import type { Schemas } from '../api/client';
import { ErrorBox } from '../components/ErrorBox';
import { useLoad } from '../components/useLoad';
import { api } from '../state/session';
import { FormError, useSave } from '../components/useSave';
import { ACCESS_ROLES, InviteDialog } from '../onboarding/Invite';

type Member = Schemas['TeamMember'];
type Role = Member['role'];
export const TEAM_ROLES: Record<Role, string> = { ar: 'Accounts receivable', sales: 'Sales', manager: 'Manager' };

function MemberForm({ initial, submitLabel, onSubmit, onCancel }: { initial: Partial<Member>; submitLabel: string; onSubmit: (v: { name: string; email: string | null; role: Role; is_active: boolean }) => Promise<boolean>; onCancel?: () => void }) {
  const [name, setName] = useState(initial.name ?? '');
  const [email, setEmail] = useState(initial.email ?? '');
  const [role, setRole] = useState<Role>(initial.role ?? 'ar');
  const [active, setActive] = useState(initial.is_active ?? true);
  return (
    <form
      className="form-cols"
      onSubmit={async (e) => {
        e.preventDefault();
        if ((await onSubmit({ name: name.trim(), email: email.trim() || null, role, is_active: active })) && !initial.id) {
          setName('');
          setEmail('');
        }
      }}
    >
      <label className="form-row">
        Name
        <input value={name} required maxLength={200} onChange={(e) => setName(e.target.value)} />
      </label>
      <label className="form-row">
        Email
        <input type="email" value={email} maxLength={254} onChange={(e) => setEmail(e.target.value)} />
      </label>
      <label className="form-row">
        Role
        <select value={role} onChange={(e) => setRole(e.target.value as Role)}>
          {Object.entries(TEAM_ROLES).map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </label>
      <label className="check">
        <input type="checkbox" checked={active} onChange={(e) => setActive(e.target.checked)} /> Active
      </label>
      <div className="form-actions">
        {onCancel && (
          <button type="button" className="btn" onClick={onCancel}>
            Cancel
          </button>
        )}
        <button type="submit" className="btn btn-primary" disabled={!name.trim()}>
          {submitLabel}
        </button>
      </div>
    </form>
  );
}

/**
 * The people customers are assigned to (AR and sales owners) and who approve actions; those who
 * sign in are linked to their user, and an owner invites new ones from here.
 */
export function TeamMembers({ companyId, isOwner }: { companyId: string; isOwner: boolean }) {
  const [version, setVersion] = useState(0);
  const [editing, setEditing] = useState<string | null>(null);
  const [inviting, setInviting] = useState(false);
  const members = useLoad((signal) => api.get('/api/companies/{company_id}/team-members', { path: { company_id: companyId }, signal }), [companyId, version]);
  // Users who sign in but are not on the team yet (added before users and team members were one).
  const users = useLoad((signal) => (isOwner ? api.get('/api/companies/{company_id}/members', { path: { company_id: companyId }, signal }) : Promise.resolve(null)), [companyId, version, isOwner]);
  const onTeam = new Set((members.data?.data ?? []).map((m) => m.user_id));
  const offTeam = (users.data?.members ?? []).filter((u) => u.role !== 'viewer' && !onTeam.has(u.user_id));
  const save = useSave();
  const reload = () => setVersion((v) => v + 1);
  return (
    <section className="card" aria-labelledby="team-title">
      <div className="section-head">
        <h2 id="team-title">Team members</h2>
        {isOwner && (
          <button type="button" className="btn btn-primary" onClick={() => setInviting(true)}>
            Invite a teammate
          </button>
        )}
      </div>
      <p className="muted">
        The people customers are assigned to as AR or sales owners. Everyone who signs in to collect is here, with their user; a salesperson without a login can be added by name below.
      </p>
      {inviting && <InviteDialog companyId={companyId} onClose={() => setInviting(false)} onInvited={() => setVersion((v) => v + 1)} />}
      {members.data && offTeam.length > 0 && (
        <div className="notice" role="status" data-testid="off-team">
          <span>These users sign in but are not on the team, so no customer can be assigned to them:</span>
          <ul>
            {offTeam.map((u) => (
              <li key={u.user_id}>
                {u.display_name} ({u.username}, {ACCESS_ROLES[u.role].toLowerCase()}){' '}
                <button
                  type="button"
                  className="btn btn-small"
                  disabled={save.busy}
                  onClick={async () => {
                    if (await save.run(() => api.post('/api/companies/{company_id}/team-members/from-user', { path: { company_id: companyId }, body: { user_id: u.user_id } }), `${u.display_name} is on the team.`)) reload();
                  }}
                >
                  Put on the team
                </button>
              </li>
            ))}
          </ul>
        </div>
      )}
      {members.error !== null && <ErrorBox what="the team" error={members.error} onRetry={members.reload} />}
      {members.data && (
        <table className="data-table" data-testid="team-table">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Email</th>
              <th scope="col">Role</th>
              <th scope="col">Signs in as</th>
              <th scope="col">Status</th>
              <th scope="col">
                <span className="sr-only">Changes</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {members.data.data.map((m) =>
              editing === m.id ? (
                <tr key={m.id}>
                  <td colSpan={6}>
                    <MemberForm
                      initial={m}
                      submitLabel="Save"
                      onCancel={() => setEditing(null)}
                      onSubmit={async (body) => {
                        const ok = await save.run(() => api.patch('/api/companies/{company_id}/team-members/{member_id}', { path: { company_id: companyId, member_id: m.id }, body }), `${body.name} saved.`);
                        if (ok) {
                          setEditing(null);
                          reload();
                        }
                        return ok;
                      }}
                    />
                  </td>
                </tr>
              ) : (
                <tr key={m.id}>
                  <td>{m.name}</td>
                  <td>{m.email ?? <span className="muted">No email</span>}</td>
                  <td>{TEAM_ROLES[m.role]}</td>
                  <td>{m.username ? `${m.username} · ${m.access ? ACCESS_ROLES[m.access] : 'no longer a user here'}` : <span className="muted">Does not sign in</span>}</td>
                  <td>{m.is_active ? 'Active' : 'Inactive'}</td>
                  <td className="num">
                    <button type="button" className="btn btn-small" onClick={() => setEditing(m.id)} aria-label={`Edit ${m.name}`}>
                      Edit
                    </button>
                  </td>
                </tr>
              ),
            )}
          </tbody>
        </table>
      )}
      <h3>Add a team member who does not sign in</h3>
      <MemberForm
        initial={{}}
        submitLabel="Add team member"
        onSubmit={async (body) => {
          const ok = await save.run(() => api.post('/api/companies/{company_id}/team-members', { path: { company_id: companyId }, body }), `${body.name} added.`);
          if (ok) reload();
          return ok;
        }}
      />
      <FormError error={save.error} />
    </section>
  );
}
