import type { ReactNode } from 'react';

/**
 * A table header that sorts by its column: a button (keyboard and screen readers) inside a th
 * whose aria-sort says the current order. A first click sorts the column its natural way.
 */
export function SortHeader<K extends string>({
  column,
  sort,
  order,
  onSort,
  firstOrder = 'asc',
  numeric,
  className,
  children,
}: {
  column: K;
  sort: K;
  order: 'asc' | 'desc';
  onSort: (column: K, order: 'asc' | 'desc') => void;
  firstOrder?: 'asc' | 'desc';
  numeric?: boolean;
  className?: string;
  children: ReactNode;
}) {
  const active = sort === column;
  return (
    <th scope="col" className={[numeric ? 'num' : '', className ?? ''].filter(Boolean).join(' ') || undefined} aria-sort={active ? (order === 'asc' ? 'ascending' : 'descending') : 'none'}>
      <button type="button" className="sort-button" onClick={() => onSort(column, active ? (order === 'asc' ? 'desc' : 'asc') : firstOrder)}>
        {children}
        <span aria-hidden="true" className="sort-mark">
          {active ? (order === 'asc' ? '▲' : '▼') : ''}
        </span>
      </button>
    </th>
  );
}

/** "1–50 of 50,000" with previous and next page buttons. */
export function Pager({ offset, limit, count, onOffset, what }: { offset: number; limit: number; count: number; onOffset: (offset: number) => void; what: string }) {
  const nf = new Intl.NumberFormat();
  return (
    <nav className="pager" aria-label={`Pages of ${what}`}>
      <span className="muted">
        {count === 0 ? `No ${what}` : `${nf.format(offset + 1)}–${nf.format(Math.min(offset + limit, count))} of ${nf.format(count)} ${what}`}
      </span>
      <button type="button" className="btn btn-small" disabled={offset === 0} onClick={() => onOffset(Math.max(0, offset - limit))}>
        Previous
      </button>
      <button type="button" className="btn btn-small" disabled={offset + limit >= count} onClick={() => onOffset(offset + limit)}>
        Next
      </button>
    </nav>
  );
}
