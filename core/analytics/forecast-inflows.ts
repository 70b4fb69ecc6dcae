/**
 * The forecast's expected inflows, kept per customer and week (forecast_inflows, 0300: a row per
 * customer holding its weeks). The intelligence refresh writes a customer's row as it writes the
 * customer's pay-date predictions, from the predictions it has in hand; the forecast then reads a
 * row per customer instead of looking up and parsing a prediction per open invoice (4-5 s at a
 * million invoices).
 *
 * A week is its Monday: the forecast's weeks are Monday weeks after a first week that ends on a
 * Sunday, and money expected before the window counts in its first week, so a Monday places an
 * amount in the same week as its date would. Amounts spread over the next 90 days depend on the
 * day the forecast is asked for; they are kept undated (week '').
 */
import type BetterSqlite3 from 'better-sqlite3';
import { addDays } from '../dates';
import { mondayOf } from './calendar';

/** An open invoice and its current pay-date prediction's payload (null without one). */
export interface PredictedInvoice {
  customerId: string;
  dueDate: string;
  balance: number; // minor units
  prediction: Record<string, unknown> | null;
}

export interface InflowRow {
  customer_id: string;
  week: string;
  amount: number;
  sq: number;
  sq2: number;
}

/** Lateness on paid invoices (customer_paid_lateness): total days late and how many. */
export interface Lateness {
  lateDays: number;
  paidCount: number;
}

const UNDATED = '';

/** Average whole days late, as SQLite's integer division gives it (the forecast's fallback). */
function averageLate(l: Lateness | undefined): number | null {
  return l && l.paidCount > 0 ? Math.trunc(l.lateDays / l.paidCount) : null;
}

/**
 * Each customer's expected inflows per week. An invoice contributes its balance times the
 * probability of each of its prediction's dated scenarios; when the prediction gives no date, its
 * collectible_90d (spread over 90 days, undated); without either, its whole balance on the due date
 * pushed by the customer's average lateness (the company's when the customer has paid nothing).
 * `sq` and `sq2` sum balance² x p and balance² x p², from which the forecast draws each week's range.
 */
export function expectedInflows(invoices: PredictedInvoice[], lateness: Map<string, Lateness>, companyLate: () => Lateness): InflowRow[] {
  const rows = new Map<string, InflowRow>();
  // A chunk's scenarios share a few hundred dates: each date's Monday is worked out once.
  const mondays = new Map<string, string>();
  const weekOf = (date: string) => {
    let monday = mondays.get(date);
    if (monday === undefined) mondays.set(date, (monday = mondayOf(date)));
    return monday;
  };
  const add = (customerId: string, week: string, b: number, p: number) => {
    const key = `${customerId}\u0000${week}`;
    let row = rows.get(key);
    if (!row) rows.set(key, (row = { customer_id: customerId, week, amount: 0, sq: 0, sq2: 0 }));
    row.amount += b * p;
    row.sq += b * b * p;
    row.sq2 += b * b * p * p;
  };
  for (const invoice of invoices) {
    const b = invoice.balance;
    if (b <= 0) continue;
    const payload = invoice.prediction;
    const date = (payload?.predicted_date as string | null | undefined) ?? null;
    const collectible = (payload?.collectible_90d as number | null | undefined) ?? null;
    if (date !== null) {
      for (const s of (payload!.alternative_scenarios as Array<{ date: string; probability: number }> | undefined) ?? []) add(invoice.customerId, weekOf(s.date), b, s.probability);
    } else if (collectible !== null) {
      add(invoice.customerId, UNDATED, b, collectible);
    } else {
      const late = averageLate(lateness.get(invoice.customerId)) ?? averageLate(companyLate()) ?? 0;
      add(invoice.customerId, weekOf(addDays(invoice.dueDate, late)), b, 1);
    }
  }
  return [...rows.values()];
}

/**
 * Writes forecast_inflows for a company, in the refresh's transactions: `replace` puts the rows of
 * the customers just refreshed in place of theirs, `complete` (after a full refresh) drops the rows
 * of customers it did not refresh (nothing open) and marks the company's inflows complete.
 */
export function forecastInflowsWriter(sqlite: BetterSqlite3.Database, companyId: string) {
  const remove = sqlite.prepare(`DELETE FROM forecast_inflows WHERE company_id = ? AND customer_id IN (SELECT value FROM json_each(?))`);
  const insert = sqlite.prepare(`INSERT INTO forecast_inflows (company_id, customer_id, weeks) VALUES (?, ?, ?)`);
  const lateOf = sqlite.prepare(
    `SELECT customer_id, late_days, paid_count FROM customer_paid_lateness WHERE company_id = ? AND customer_id IN (SELECT value FROM json_each(?))`,
  );
  let companyLate: Lateness | null = null;
  // Read only when an invoice needs it: a sum over every customer of the company, most of one payment's refresh otherwise.
  const companyLateness = () =>
    (companyLate ??= sqlite
      .prepare(`SELECT coalesce(sum(late_days), 0) AS lateDays, coalesce(sum(paid_count), 0) AS paidCount FROM customer_paid_lateness WHERE company_id = ?`)
      .get(companyId) as Lateness);
  return {
    replace(customerIds: string[], invoices: PredictedInvoice[]): void {
      const list = JSON.stringify(customerIds);
      const lateness = new Map<string, Lateness>();
      for (const r of lateOf.all(companyId, list) as Array<{ customer_id: string; late_days: number; paid_count: number }>) {
        lateness.set(r.customer_id, { lateDays: r.late_days, paidCount: r.paid_count });
      }
      remove.run(companyId, list);
      const byCustomer = new Map<string, Array<[string, number, number, number]>>();
      for (const row of expectedInflows(invoices, lateness, companyLateness)) {
        let weeks = byCustomer.get(row.customer_id);
        if (!weeks) byCustomer.set(row.customer_id, (weeks = []));
        weeks.push([row.week, row.amount, row.sq, row.sq2]);
      }
      for (const [customerId, weeks] of byCustomer) insert.run(companyId, customerId, JSON.stringify(weeks));
    },
    complete(refreshed: string[], at: string): void {
      sqlite
        .prepare(`DELETE FROM forecast_inflows WHERE company_id = ? AND customer_id NOT IN (SELECT value FROM json_each(?))`)
        .run(companyId, JSON.stringify(refreshed));
      sqlite.prepare(`INSERT INTO forecast_state (company_id, complete_at) VALUES (?, ?) ON CONFLICT (company_id) DO UPDATE SET complete_at = excluded.complete_at`).run(companyId, at);
    },
  };
}
