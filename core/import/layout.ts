/**
 * Reports as accounting systems export them, turned into a plain table before the mapping reads
 * it: title rows above the header, group headings (a customer's name on a row of its own),
 * subtotal and total rows, blank lines. Pure: the preview and the import shape the same way.
 */
import { type Cell, cellText, type Table, type TableRow } from './table';

export interface Layout {
  /** The header is the first row that holds every one of these names (title rows above it are skipped). */
  header_with?: string[];
  /** A row whose cell in this column is empty is no data row: a heading, a subtotal, a total. */
  data_when?: string;
  /** A heading row (one filled cell, not a total) names the group below it: kept as this extra column. */
  heading_as?: string;
  /** Rows of one invoice are its lines: their amounts add up to the invoice's total. */
  sum_lines?: boolean;
  /** A negative total is a credit note: the file writes credits that way (Odoo's signed totals, aging reports). */
  negative_is_credit?: boolean;
}

export interface ShapedTable {
  table: Table;
  /** Rows that were no data: titles, headings, subtotals. */
  skipped: number;
}

/** Rows looked at for the header: a report's title block is a few rows, never pages. */
export const HEADER_SEARCH_ROWS = 50;

const same = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

function holdsAll(cells: Cell[], names: string[]): boolean {
  const texts = cells.map((c) => cellText(c));
  return names.every((n) => texts.some((t) => same(t, n)));
}

function isHeading(cells: Cell[]): string | null {
  const filled = cells.map((c) => cellText(c).trim()).filter((t) => t !== '');
  if (filled.length !== 1 || /^total\b/i.test(filled[0])) return null;
  return filled[0];
}

/** The table as the layout says to read it; a table without a layout is given back as it is. */
export function shapeTable(table: Table, layout: Layout | undefined): ShapedTable {
  if (!layout) return { table, skipped: 0 };
  let headers = table.headers;
  let headerRow = table.headerRow;
  let rows: TableRow[] = table.rows;
  let skipped = 0;
  if (layout.header_with?.length && !holdsAll(headers, layout.header_with)) {
    const at = rows.slice(0, HEADER_SEARCH_ROWS).findIndex((r) => holdsAll(r.cells, layout.header_with!));
    if (at >= 0) {
      headers = rows[at].cells.map((c) => cellText(c).trim());
      headerRow = rows[at].row;
      skipped += at + 1;
      rows = rows.slice(at + 1);
    }
  }
  const key = layout.data_when === undefined ? -1 : headers.findIndex((h) => same(h, layout.data_when!));
  if (key < 0 && layout.heading_as === undefined) return { table: { headers, headerRow, rows }, skipped };
  const out: TableRow[] = [];
  let heading = '';
  for (const r of rows) {
    if (key >= 0 && cellText(r.cells[key] ?? null).trim() === '') {
      skipped++;
      const named = layout.heading_as !== undefined ? isHeading(r.cells) : null;
      if (named !== null) heading = named;
      continue;
    }
    out.push(layout.heading_as !== undefined ? { row: r.row, cells: [...headers.map((_, i) => r.cells[i] ?? null), heading] } : r);
  }
  return { table: { headers: layout.heading_as !== undefined ? [...headers, layout.heading_as] : headers, headerRow, rows: out }, skipped };
}
