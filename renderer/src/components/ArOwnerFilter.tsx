import { api } from '../state/session';
import { useLoad } from './useLoad';

/** The AR owner filter of an outreach list: anyone, nobody (`__unassigned__`, as the API takes it) or a team member. */
export function ArOwnerFilter({ companyId, value, onChange }: { companyId: string; value: string; onChange: (value: string) => void }) {
  const team = useLoad((signal) => api.get('/api/companies/{company_id}/team-members', { path: { company_id: companyId }, signal }), [companyId]);
  return (
    <label>
      AR owner
      <select value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">Anyone</option>
        <option value="__unassigned__">Unassigned</option>
        {team.data?.data.map((m) => (
          <option key={m.id} value={m.id}>
            {m.name}
          </option>
        ))}
      </select>
    </label>
  );
}
