import { useEffect, useId, useState } from 'react';
import { useLoad } from './useLoad';
import { api } from '../state/session';
import './outreach.css';

export interface PickedCustomer {
  id: string;
  name: string;
}

/** Search the company's customers by name; each match has a button that hands it to `onPick`. */
export function CustomerPicker({ companyId, label, actionLabel, onPick }: { companyId: string; label: string; actionLabel: string; onPick: (customer: PickedCustomer) => void }) {
  const id = useId();
  const [typed, setTyped] = useState('');
  const [search, setSearch] = useState('');
  useEffect(() => {
    const t = setTimeout(() => setSearch(typed.trim()), 250);
    return () => clearTimeout(t);
  }, [typed]);
  const results = useLoad(
    (signal) => (search ? api.get('/api/companies/{company_id}/customers', { path: { company_id: companyId }, query: { search, limit: 8 }, signal }) : Promise.resolve(null)),
    [companyId, search],
  );
  return (
    <div className="stack">
      <label className="wide-field" htmlFor={id}>
        {label}
      </label>
      <input id={id} type="search" placeholder="Type a customer name…" value={typed} onChange={(e) => setTyped(e.target.value)} autoComplete="off" />
      {results.data && results.data.data.length === 0 && <p className="muted">No customer matches “{search}”.</p>}
      {results.data && results.data.data.length > 0 && (
        <ul className="contacts" aria-label="Matching customers">
          {results.data.data.map((c) => (
            <li key={c.id} className="toolbar-row">
              <span>{c.name}</span>
              <button type="button" className="btn btn-small" onClick={() => onPick({ id: c.id, name: c.name })}>
                {actionLabel}
                <span className="sr-only"> {c.name}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
