/**
 * Maps the grid's block requests (rows startRow..startRow+size) onto the cursor API, which only
 * walks forward page by page. The cursor that starts each block is remembered, so scrolling back
 * or refreshing a block is one request; a jump past the known blocks walks forward from the
 * nearest known cursor (the API has no offset, by design: keyset pages stay stable and fast).
 */
export interface CursorPage<T> {
  items: T[];
  has_more: boolean;
  next_cursor: string | null;
  count?: number;
}

export type FetchPage<T> = (cursor: string | null, limit: number, signal?: AbortSignal) => Promise<CursorPage<T>>;

export class CursorPager<T> {
  /** The cursor that fetches the block starting at each row (null: the first page). */
  private readonly cursors = new Map<number, string | null>([[0, null]]);
  /** Where the list ends (its row count), once its last page has been seen. */
  private end: number | null = null;
  private count: number | null = null;
  /** The first page, asked for before the grid asked for it (prefetchFirst); it serves one request. */
  private early: Promise<CursorPage<T>> | null = null;

  constructor(
    private readonly fetchPage: FetchPage<T>,
    readonly blockSize: number,
  ) {}

  /**
   * Asks for the first page now. The grid asks for its first block only after setting itself up
   * and a debounce (a few hundred ms on a busy machine): the request runs meanwhile, and the
   * grid's first block takes its answer. Later requests of the first block ask again.
   */
  prefetchFirst(): void {
    if (this.early) return;
    this.early = this.fetchPage(null, this.blockSize);
    // A failure is the grid's to show when it takes this answer, not an unhandled rejection now.
    this.early.catch(() => undefined);
  }

  /** Forgets a first page asked for ahead that nobody took (the grid asked in another order): it would be stale later. */
  discardEarly(): void {
    this.early = null;
  }

  /** Rows of one block and, when known, the total row count (for the grid's scrollbar). */
  async block(startRow: number, signal?: AbortSignal): Promise<{ rows: T[]; lastRow: number | undefined }> {
    if (startRow % this.blockSize !== 0) throw new Error(`block start ${startRow} is not a multiple of ${this.blockSize}`);
    let start = this.nearestKnown(startRow);
    while (start < startRow) {
      if (this.end !== null && start >= this.end) return { rows: [], lastRow: this.end };
      await this.fetchAt(start, signal);
      start += this.blockSize;
      if (!this.cursors.has(start)) return { rows: [], lastRow: this.end ?? start };
    }
    const page = await this.fetchAt(startRow, signal);
    const lastRow = !page.has_more ? startRow + page.items.length : (this.count ?? undefined);
    return { rows: page.items, lastRow };
  }

  private nearestKnown(startRow: number): number {
    let best = 0;
    for (const start of this.cursors.keys()) if (start <= startRow && start > best) best = start;
    return best;
  }

  private async fetchAt(start: number, signal?: AbortSignal): Promise<CursorPage<T>> {
    const cursor = this.cursors.get(start);
    if (cursor === undefined) throw new Error(`no cursor known for row ${start}`);
    const early = cursor === null ? this.early : null;
    this.early = null;
    const page = await (early ?? this.fetchPage(cursor, this.blockSize, signal));
    if (cursor === null && typeof page.count === 'number') this.count = page.count;
    if (page.has_more && page.next_cursor) {
      this.cursors.set(start + this.blockSize, page.next_cursor);
      if (this.end !== null && this.end <= start) this.end = null;
    } else {
      this.end = start + page.items.length;
      for (const known of [...this.cursors.keys()]) if (known > start) this.cursors.delete(known);
    }
    return page;
  }
}
