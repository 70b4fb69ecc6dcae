/** Width rules of the invoice grid's columns. Pure. */

/** The columns a collector keeps in view beside the customer, also with the detail panel open. */
export const KEPT_IN_VIEW: ReadonlySet<string> = new Set(['invoice_number', 'balance', 'days_past_due', 'status']);

/** Room for the grid's vertical scroll bar. */
const SCROLL_BAR = 16;

/**
 * The customer column's least width: what the grid has left beside the selection box and the
 * columns kept in view, from 100 px (a 1024 px laptop with the panel open still shows the status)
 * to 220 px (most names whole). A flex column gets nothing once the other columns overflow the
 * grid, so a fixed least width cut names short on a wide screen ("Northstar…").
 */
export function customerMinWidth(gridWidth: number, keptWidth: number): number {
  return Math.max(100, Math.min(220, gridWidth - keptWidth - SCROLL_BAR));
}

/** The width of the columns kept in view (their fixed widths) plus the selection box. */
export function keptWidth(columns: ReadonlyArray<{ colId?: string; width?: number }>, selectionWidth: number): number {
  return columns.reduce((sum, c) => sum + (c.colId && KEPT_IN_VIEW.has(c.colId) ? (c.width ?? 0) : 0), selectionWidth);
}
