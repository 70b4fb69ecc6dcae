/**
 * Each AR owner's book from its sums per day (team_book_days and team_book_dues, kept by the
 * triggers of migration 0470) and the few invoices those leave out (closed as overpaid, or by a
 * credit memo or write-off after payments, or with no closing date), read one by one. Pure: the
 * view reads the rows, this adds them up.
 */
import { monthOf } from '../dates';

export interface BookDay {
  owner: string;
  day: string;
  sales: number;
  collected: number;
  receivable: number;
}

/** A receivable change of a book dated `day`, of invoices due `due` (only the dues on or after a date are read). */
export interface BookDue {
  owner: string;
  due: string;
  day: string;
  receivable: number;
}

/** An invoice the days leave out, with one of its settled payments (null when it has none): one row per payment. */
export interface LeftOutRow {
  id: string;
  owner: string;
  invoice_date: string;
  due_date: string;
  closed_date: string | null;
  total_amount: number;
  payment_date: string | null;
  amount: number | null;
}

export interface Receivables {
  total: number;
  current: number;
}

export interface BookFigures {
  /** Open invoices' balances now, and the part due before as_of. */
  open: number;
  overdue: number;
  /** Settled payments dated within [from, asOf]. */
  collected: number;
  /** Credit sales by month, of invoices dated by as_of. */
  sales: Map<string, number>;
  /** Receivables at the end of `opening` (the day before as_of's month) and of as_of. */
  opening: number;
  closing: Receivables;
}

/**
 * What an invoice the days leave out owed at the end of `date` (the team view's rule): issued by
 * then, not closed by then, its total less the settled payments dated by then, counted when above 0.
 */
export function leftOutReceivable(invoice: { invoice_date: string; due_date: string; closed_date: string | null; total_amount: number; payments: Array<{ date: string; amount: number }> }, date: string): Receivables {
  if (invoice.invoice_date > date || (invoice.closed_date !== null && invoice.closed_date <= date)) return { total: 0, current: 0 };
  const owed = invoice.total_amount - invoice.payments.filter((p) => p.date <= date).reduce((sum, p) => sum + p.amount, 0);
  if (owed <= 0) return { total: 0, current: 0 };
  return { total: owed, current: invoice.due_date >= date ? owed : 0 };
}

/**
 * Every owner's figures. `dues` must hold every due row with a due date on or after as_of;
 * `leftOut` every left-out invoice issued by as_of and not closed by `opening`.
 */
export function bookFigures(days: BookDay[], dues: BookDue[], leftOut: LeftOutRow[], range: { from: string; asOf: string; opening: string }): Map<string, BookFigures> {
  const { from, asOf, opening } = range;
  const out = new Map<string, BookFigures>();
  const book = (owner: string) => {
    let figures = out.get(owner);
    if (!figures) {
      figures = { open: 0, overdue: 0, collected: 0, sales: new Map(), opening: 0, closing: { total: 0, current: 0 } };
      out.set(owner, figures);
    }
    return figures;
  };
  for (const d of days) {
    const b = book(d.owner);
    b.open += d.receivable;
    if (d.day <= opening) b.opening += d.receivable;
    if (d.day <= asOf) {
      b.closing.total += d.receivable;
      if (d.sales !== 0) b.sales.set(monthOf(d.day), (b.sales.get(monthOf(d.day)) ?? 0) + d.sales);
    }
    if (d.day >= from && d.day <= asOf) b.collected += d.collected;
  }
  // Overdue: the open balance less what is due on or after as_of (all of it, whatever its day).
  for (const b of out.values()) b.overdue = b.open;
  for (const d of dues) {
    if (d.due < asOf) continue;
    const b = book(d.owner);
    b.overdue -= d.receivable;
    if (d.day <= asOf) b.closing.current += d.receivable;
  }
  const invoices = new Map<string, LeftOutRow & { payments: Array<{ date: string; amount: number }> }>();
  for (const r of leftOut) {
    const invoice = invoices.get(r.id) ?? { ...r, payments: [] };
    if (r.payment_date !== null && r.amount !== null) invoice.payments.push({ date: r.payment_date, amount: r.amount });
    invoices.set(r.id, invoice);
  }
  for (const invoice of invoices.values()) {
    const b = book(invoice.owner);
    b.opening += leftOutReceivable(invoice, opening).total;
    const end = leftOutReceivable(invoice, asOf);
    b.closing.total += end.total;
    b.closing.current += end.current;
  }
  return out;
}
