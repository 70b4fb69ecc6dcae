/**
 * The list's sort: due_date (default), balance, amount or customer_name, optionally suffixed _asc or
 * _desc; `order` (default desc) applies only when the sort has no suffix. Ties break on the id in
 * the same direction, which makes (key, id) a total order for keyset paging.
 */
export const SORT_KEYS = ['due_date', 'balance', 'amount', 'customer_name'] as const;
export type SortKey = (typeof SORT_KEYS)[number];
export type SortDir = 'asc' | 'desc';

/**
 * Every order the list accepts: the column sorts, plus days_past_due (the due date the other way
 * round), attention (the worklist's order, with attention=true) and overdue_balance (customer
 * groups only).
 */
export const ORDER_KEYS = [...SORT_KEYS, 'days_past_due', 'attention', 'overdue_balance'] as const;
export type OrderKey = (typeof ORDER_KEYS)[number];

export const SORT_VALUES = ORDER_KEYS.flatMap((k) => [k, `${k}_asc`, `${k}_desc`] as const);
export type SortValue = (typeof SORT_VALUES)[number];

/** The invoices column each sort key orders by. */
export const SORT_COLUMN: Record<SortKey, string> = {
  due_date: 'due_date',
  balance: 'balance',
  amount: 'total_amount',
  customer_name: 'customer_name',
};

/** The (company_id, key, id) index each sort key walks. */
export const SORT_INDEX: Record<SortKey, string> = {
  due_date: 'invoices_due',
  balance: 'invoices_balance',
  amount: 'invoices_amount',
  customer_name: 'invoices_customer_name',
};

export function parseSort(sort: SortValue | undefined, order: SortDir | undefined, fallback: OrderKey = 'due_date'): { key: OrderKey; dir: SortDir } {
  const value = sort ?? fallback;
  const m = /^(.*)_(asc|desc)$/.exec(value);
  if (m && (ORDER_KEYS as readonly string[]).includes(m[1])) return { key: m[1] as OrderKey, dir: m[2] as SortDir };
  return { key: value as OrderKey, dir: order ?? 'desc' };
}

/** Most days past due first is the earliest due date first. */
export function flipDir(dir: SortDir): SortDir {
  return dir === 'desc' ? 'asc' : 'desc';
}

export function sortKeyType(key: OrderKey): 'string' | 'integer' {
  return key === 'due_date' || key === 'customer_name' || key === 'days_past_due' ? 'string' : 'integer';
}

/** The SQL condition on (key, id) that keeps only the rows after the keyset position `(?, ?)` in this direction. */
export function afterPosition(key: string, id: string, dir: SortDir): string {
  return `(${key}, ${id}) ${dir === 'desc' ? '<' : '>'} (?, ?)`;
}
