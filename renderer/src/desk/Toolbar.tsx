import { useEffect, useRef, useState } from 'react';
import { describeError, ErrorBox } from '../components/ErrorBox';
import { useConnection } from '../state/connection';
import { api } from '../state/session';
import { toast } from '../state/toasts';
import { activeFilterCount, type DeskFilters, FOLLOW_UP_CHOICES, FOLLOW_UP_WINDOWS, type FollowUpWindow, parseFilters, STATUS_LABELS, STATUSES, toSearch } from './filters';
import { formatCount } from './format';
import { useDesk } from './store';

/** How long typing pauses before the search applies. */
const SEARCH_DEBOUNCE_MS = 250;

export function SearchBox({ value, onChange }: { value: string; onChange: (text: string) => void }) {
  const [text, setText] = useState(value);
  const input = useRef<HTMLInputElement>(null);
  const applied = useRef(value);

  useEffect(() => {
    // The URL changed underneath (back button, saved view): show what applies.
    if (value !== applied.current) {
      applied.current = value;
      setText(value);
    }
  }, [value]);

  useEffect(() => {
    if (text === applied.current) return;
    const timer = setTimeout(() => {
      applied.current = text;
      onChange(text);
    }, SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [text, onChange]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const target = e.target as HTMLElement | null;
      const typing = target && (target.tagName === 'INPUT' || target.tagName === 'TEXTAREA' || target.tagName === 'SELECT' || target.isContentEditable);
      if (e.key === '/' && !typing && !e.ctrlKey && !e.metaKey && !e.altKey) {
        e.preventDefault();
        input.current?.focus();
        input.current?.select();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  return (
    <label className="search">
      <span className="sr-only">Search invoices</span>
      <input
        ref={input}
        type="search"
        placeholder="Search invoice number or customer   /"
        title="Search invoice number or customer (press / to come here)"
        aria-label="Search invoices"
        value={text}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            setText('');
            e.currentTarget.blur();
          }
        }}
      />
    </label>
  );
}

/**
 * The status chips with the first page's facet counts. One status at a time: a chip replaces the
 * status filter, the active chip (or All) clears it; combinations are made in the Filters panel,
 * and then no single chip is active.
 */
export function StatusChips({ filters, onFilters }: { filters: DeskFilters; onFilters: (f: DeskFilters) => void }) {
  const facets = useDesk((s) => s.facets);
  const stale = useConnection((s) => !s.server);
  // `overdue` spans the past-due statuses, so the total counts only the others.
  const total = facets ? STATUSES.filter((s) => s !== 'overdue').reduce((sum, s) => sum + (facets[s] ?? 0), 0) : null;
  const single = filters.status.length === 1 ? filters.status[0] : null;
  return (
    <div className={stale ? 'status-chips stale' : 'status-chips'} role="group" aria-label="Status" title={stale ? 'Counts from before the server stopped answering' : undefined}>
      <button
        type="button"
        className={filters.status.length === 0 ? 'status-chip active' : 'status-chip'}
        aria-pressed={filters.status.length === 0}
        onClick={() => onFilters({ ...filters, status: [] })}
      >
        All <span className="facet">{total === null ? '' : formatCount(total)}</span>
      </button>
      {STATUSES.map((status) => {
        const on = single === status;
        const count = facets?.[status];
        return (
          <button
            key={status}
            type="button"
            data-status={status}
            className={`status-chip tone-${status}${on ? ' active' : ''}${count === 0 && !on ? ' zero' : ''}`}
            aria-pressed={on}
            onClick={() => onFilters({ ...filters, status: on ? [] : [status] })}
          >
            {STATUS_LABELS[status]} <span className="facet">{count === undefined ? '' : formatCount(count)}</span>
          </button>
        );
      })}
      {filters.status.length > 1 && <span className="muted small chips-note">{filters.status.length} statuses chosen in Filters</span>}
    </div>
  );
}

/** My work or every invoice; my portfolio or the whole company. */
export function ViewSwitch({ filters, onFilters }: { filters: DeskFilters; onFilters: (f: DeskFilters) => void }) {
  const choice = (on: boolean, label: string, next: Partial<DeskFilters>, hint: string) => (
    <button type="button" className={on ? 'seg active' : 'seg'} aria-pressed={on} title={hint} onClick={() => onFilters({ ...filters, ...next })}>
      {label}
    </button>
  );
  const mine = filters.ar_owner === 'me';
  return (
    <div className="view-switch">
      <div className="segmented" role="group" aria-label="View">
        {choice(filters.work, 'My work', { work: true, sort: '' }, 'Open invoices that need attention today, most at stake first')}
        {choice(!filters.work, 'All invoices', { work: false, sort: '' }, 'Every invoice, open or closed')}
      </div>
      <div className="segmented" role="group" aria-label="Portfolio">
        {choice(mine, 'Mine', { ar_owner: 'me' }, 'Customers whose AR owner is you')}
        {choice(filters.ar_owner === '', 'Everyone', { ar_owner: '' }, 'The whole company')}
      </div>
    </div>
  );
}

export function FollowUpSelect({ filters, onFilters }: { filters: DeskFilters; onFilters: (f: DeskFilters) => void }) {
  const value = filters.follow_up.join(',');
  const known = FOLLOW_UP_CHOICES.some((c) => c.value === value);
  return (
    <label className="follow-up-select">
      <span className="sr-only">Follow-ups</span>
      <select
        aria-label="Follow-ups"
        value={value}
        onChange={(e) => onFilters({ ...filters, follow_up: e.target.value.split(',').filter((v): v is FollowUpWindow => (FOLLOW_UP_WINDOWS as readonly string[]).includes(v)) })}
      >
        {FOLLOW_UP_CHOICES.map((c) => (
          <option key={c.value} value={c.value}>
            {c.label}
          </option>
        ))}
        {!known && <option value={value}>Follow-up: {value.replace(/,/g, ', ').replace(/_/g, ' ')}</option>}
      </select>
    </label>
  );
}

/** Saved views: apply one, save the current view under a name, delete one. Kept by the server. */
export function SavedViews({ companyId, filters, onFilters }: { companyId: string; filters: DeskFilters; onFilters: (f: DeskFilters) => void }) {
  const { views, viewsError, loadViews } = useDesk();
  const [open, setOpen] = useState(false);
  const [name, setName] = useState('');
  const button = useRef<HTMLButtonElement>(null);
  const current = toSearch(filters).replace(/^\?/, '');
  const close = () => {
    setOpen(false);
    button.current?.focus();
  };
  const active = views.find((v) => v.query === current);

  async function save() {
    try {
      const view = await api.post('/api/companies/{company_id}/saved-views', { path: { company_id: companyId }, body: { name, query: current } });
      toast.success(`Saved view “${view.name}”`);
      setName('');
      await loadViews();
    } catch (err) {
      toast.error(`Could not save the view: ${describeError(err)}`);
    }
  }

  async function remove(id: string, viewName: string) {
    try {
      await api.delete('/api/companies/{company_id}/saved-views/{view_id}', { path: { company_id: companyId, view_id: id } });
      toast.success(`Deleted view “${viewName}”`);
      await loadViews();
    } catch (err) {
      toast.error(`Could not delete the view: ${describeError(err)}`);
    }
  }

  return (
    <div
      className="popover-anchor"
      onKeyDown={(e) => {
        if (e.key === 'Escape' && open) {
          // Handled here: the invoice panel behind must not close too.
          e.preventDefault();
          close();
        }
      }}
    >
      <button ref={button} type="button" className="btn" aria-expanded={open} onClick={() => setOpen(!open)}>
        ☆ {active ? active.name : 'Views'}
      </button>
      {open && (
        <div className="popover views-menu" role="dialog" aria-label="Saved views">
          {viewsError !== null ? (
            <ErrorBox what="the saved views" error={viewsError} onRetry={() => void loadViews()} />
          ) : views.length === 0 ? (
            <p className="muted">No saved views yet.</p>
          ) : (
            <ul>
              {views.map((v) => (
                <li key={v.id} className={v.id === active?.id ? 'active' : undefined}>
                  <button
                    type="button"
                    className="linkish"
                    onClick={() => {
                      onFilters(parseFilters(v.query));
                      close();
                    }}
                  >
                    {v.name}
                  </button>
                  <button type="button" className="btn btn-ghost btn-small" aria-label={`Delete view ${v.name}`} onClick={() => void remove(v.id, v.name)}>
                    ×
                  </button>
                </li>
              ))}
            </ul>
          )}
          <form
            className="inline-form"
            onSubmit={(e) => {
              e.preventDefault();
              void save();
            }}
          >
            <input aria-label="View name" autoFocus placeholder="Name this view" value={name} maxLength={80} required onChange={(e) => setName(e.target.value)} />
            <button type="submit" className="btn btn-primary btn-small">
              Save
            </button>
          </form>
        </div>
      )}
    </div>
  );
}

export function FilterButton({ filters, open, onToggle }: { filters: DeskFilters; open: boolean; onToggle: () => void }) {
  const n = activeFilterCount({ ...filters, status: [] });
  return (
    <button type="button" className={open ? 'btn active' : 'btn'} aria-expanded={open} aria-controls="filter-panel" onClick={onToggle}>
      Filters{n ? ` · ${n}` : ''}
    </button>
  );
}
