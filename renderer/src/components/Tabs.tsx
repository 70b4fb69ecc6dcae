import { formatCount } from '../desk/format';
import './outreach.css';

export interface TabDef<K extends string> {
  key: K;
  label: string;
  /** Shown beside the label; null while loading or when the tab has no count. */
  count?: number | null;
}

/** A row of tabs (ARIA tablist) with optional counts; arrow keys move between tabs. */
export function Tabs<K extends string>({ label, tabs, active, onChange }: { label: string; tabs: TabDef<K>[]; active: K; onChange: (key: K) => void }) {
  return (
    <div className="tabs" role="tablist" aria-label={label}>
      {tabs.map((tab, i) => (
        <button
          key={tab.key}
          type="button"
          role="tab"
          className="tab"
          id={`tab-${tab.key}`}
          aria-selected={tab.key === active}
          tabIndex={tab.key === active ? 0 : -1}
          data-testid={`tab-${tab.key}`}
          onClick={() => onChange(tab.key)}
          onKeyDown={(e) => {
            if (e.key !== 'ArrowRight' && e.key !== 'ArrowLeft') return;
            const next = tabs[(i + (e.key === 'ArrowRight' ? 1 : tabs.length - 1)) % tabs.length];
            onChange(next.key);
            document.getElementById(`tab-${next.key}`)?.focus();
          }}
        >
          {tab.label}
          {tab.count !== undefined && tab.count !== null && <span className="count">{formatCount(tab.count)}</span>}
        </button>
      ))}
    </div>
  );
}

/** Previous/next page buttons with "41-60 of 230". */
export function PageFooter({ page, pageSize, count, onPage }: { page: number; pageSize: number; count: number; onPage: (page: number) => void }) {
  const first = count === 0 ? 0 : (page - 1) * pageSize + 1;
  const last = Math.min(count, page * pageSize);
  return (
    <div className="list-footer" data-testid="list-footer">
      <span>
        {formatCount(first)}–{formatCount(last)} of {formatCount(count)}
      </span>
      <span className="spacer" />
      <button type="button" className="btn btn-small" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Previous
      </button>
      <button type="button" className="btn btn-small" disabled={last >= count} onClick={() => onPage(page + 1)}>
        Next
      </button>
    </div>
  );
}
