import { ErrorBox } from '../components/ErrorBox';
import { LabelChip } from './cells';
import { BUCKET_LABELS, BUCKETS, DEFAULT_FILTERS, type DeskFilters, STATUS_LABELS, STATUSES, toggle } from './filters';
import { useDesk } from './store';
import './filter-overlay.css';

export function FilterPanel({ filters, onFilters }: { filters: DeskFilters; onFilters: (f: DeskFilters) => void }) {
  const { labels, team, lookupsError, loadLookups } = useDesk();
  const set = (patch: Partial<DeskFilters>) => onFilters({ ...filters, ...patch });
  const arOwners = team.filter((m) => m.role === 'ar' || m.role === 'manager' || m.id === filters.ar_owner);
  const salesOwners = team.filter((m) => m.role === 'sales' || m.role === 'manager' || m.id === filters.sales_owner);

  return (
    <section id="filter-panel" className="filter-panel" aria-label="Filters">
      {lookupsError !== null && <ErrorBox what="labels and team members" error={lookupsError} onRetry={() => void loadLookups()} />}
      <fieldset className="wide-field">
        <legend>Status</legend>
        <div className="check-grid">
          {STATUSES.map((s) => (
            <label key={s} className="check">
              <input type="checkbox" checked={filters.status.includes(s)} onChange={() => set({ status: toggle(filters.status, s, STATUSES) })} />
              {STATUS_LABELS[s]}
            </label>
          ))}
        </div>
      </fieldset>
      <fieldset>
        <legend>Aging bucket</legend>
        {BUCKETS.map((b) => (
          <label key={b} className="check">
            <input type="checkbox" checked={filters.aging_bucket.includes(b)} onChange={() => set({ aging_bucket: toggle(filters.aging_bucket, b, BUCKETS) })} />
            {BUCKET_LABELS[b]}
          </label>
        ))}
      </fieldset>
      <fieldset>
        <legend>Due date</legend>
        <label>
          From
          <input type="date" aria-label="Due from" value={filters.due_date_from} onChange={(e) => set({ due_date_from: e.target.value })} />
        </label>
        <label>
          To
          <input type="date" aria-label="Due to" value={filters.due_date_to} onChange={(e) => set({ due_date_to: e.target.value })} />
        </label>
      </fieldset>
      <fieldset>
        <legend>Owners</legend>
        <label>
          AR owner
          <select aria-label="AR owner" value={filters.ar_owner} onChange={(e) => set({ ar_owner: e.target.value })}>
            <option value="">Anyone</option>
            <option value="me">Me</option>
            {arOwners.map((m) => (
              <option key={m.id} value={m.id}>
                {m.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Sales owner
          <select aria-label="Sales owner" value={filters.sales_owner} onChange={(e) => set({ sales_owner: e.target.value })}>
            <option value="">Anyone</option>
            {salesOwners.map((m) => (
              <option key={m.id} value={m.id}>
                {m.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Customer type
          <select aria-label="Customer type" value={filters.is_person} onChange={(e) => set({ is_person: e.target.value as DeskFilters['is_person'] })}>
            <option value="">Companies and persons</option>
            <option value="false">Companies</option>
            <option value="true">Persons</option>
          </select>
        </label>
      </fieldset>
      <fieldset>
        <legend>Labels (any)</legend>
        <div className="label-picks">
          {labels.length === 0 && <span className="muted">No labels yet.</span>}
          {labels.map((l) => (
            <label key={l.id} className="check">
              <input type="checkbox" checked={filters.labels.includes(l.id)} onChange={() => set({ labels: filters.labels.includes(l.id) ? filters.labels.filter((id) => id !== l.id) : [...filters.labels, l.id] })} />
              <LabelChip label={l} />
            </label>
          ))}
        </div>
      </fieldset>
      <fieldset>
        <legend>Balance</legend>
        <label className="check">
          <input type="checkbox" checked={filters.overdue_only} onChange={(e) => set({ overdue_only: e.target.checked })} />
          Overdue only
        </label>
        <label className="check">
          <input type="checkbox" checked={filters.hide_zero_balance} onChange={(e) => set({ hide_zero_balance: e.target.checked })} />
          Hide zero balance
        </label>
      </fieldset>
      <div className="filter-actions">
        <button type="button" className="btn" onClick={() => onFilters({ ...DEFAULT_FILTERS, work: filters.work, ar_owner: filters.ar_owner, sort: filters.sort, order: filters.order, group_by: filters.group_by })}>
          Clear filters
        </button>
      </div>
    </section>
  );
}
