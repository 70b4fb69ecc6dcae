/**
 * One page of a list, the way every paged reader of the API reads it: how many rows match the
 * filter, and the rows of one window of them in the reader's order.
 */
import type { SelectQueryBuilder } from 'kysely';

/** Which rows a page holds: `limit` of them after the first `offset`. */
export interface RowWindow {
  limit: number;
  offset: number;
}

/** The spec's page/page_size (pages count from 1) as a window of rows. */
export function pageWindow(page: number, pageSize: number): RowWindow {
  return { limit: pageSize, offset: (page - 1) * pageSize };
}

/**
 * Counts what `matching` selects (the filter alone, without the columns a row needs) and reads the
 * window of `ordered` (the same filter with its columns and order). The order must end with a
 * unique key, so consecutive pages never overlap nor skip a row.
 */
export async function readPage<DB, TB extends keyof DB, O>(
  matching: SelectQueryBuilder<any, any, any>,
  ordered: SelectQueryBuilder<DB, TB, O>,
  window: RowWindow,
): Promise<{ count: number; rows: O[] }> {
  const { n } = await matching
    .clearSelect()
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  const rows = await ordered.limit(window.limit).offset(window.offset).execute();
  return { count: Number(n), rows };
}

/**
 * readPage for rows whose columns cost more than their order: orders and windows the ids alone
 * (`orderedIds`, the filter with its order and an `id` column), then reads the window's rows by id
 * with `rowsOf`, in the ids' order. A sort that cannot use an index otherwise computes every
 * column of every matching row before it keeps one page.
 */
export async function readPageById<R extends { id: string }>(
  matching: SelectQueryBuilder<any, any, any>,
  orderedIds: SelectQueryBuilder<any, any, { id: string }>,
  window: RowWindow,
  rowsOf: (ids: string[]) => Promise<R[]>,
): Promise<{ count: number; rows: R[] }> {
  const { count, rows: page } = await readPage(matching, orderedIds, window);
  const ids = page.map((r) => r.id);
  const byId = new Map((ids.length ? await rowsOf(ids) : []).map((r) => [r.id, r]));
  return { count, rows: ids.flatMap((id) => byId.get(id) ?? []) };
}
