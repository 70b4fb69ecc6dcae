/**
 * The portfolio's figures for its signal: overdue share and DSO today and a window ago, and the
 * largest balances. The aging and sales sums read every invoice of the company (the aging a window
 * ago every payment too, seconds at 1M invoices), so they are summed a slice of customers at a
 * time, letting the event loop run between slices: the refresh shares it with the API.
 */
import { addDays } from '../dates';
import type { Engine } from '../engine';
import { agingBucketRows, type CustomerSlice } from '../analytics/aging';
import { type PortfolioFigures, SIGNAL_THRESHOLDS } from './signals';

/** Customers per slice: about 20 invoices each in the generated ledgers, a few tens of milliseconds. */
const SLICE_CUSTOMERS = 200;

interface Sums {
  open: number;
  overdue: number;
  sales: number;
}

export async function portfolioFigures(engine: Pick<Engine, 'database'>, companyId: string, currency: string, today: string, pause: () => Promise<void>): Promise<PortfolioFigures> {
  const t = SIGNAL_THRESHOLDS;
  const past = addDays(today, -t.portfolioWindowDays);
  const sqlite = engine.database.sqlite;
  const ids = (sqlite.prepare('SELECT id FROM customers WHERE company_id = ? ORDER BY id').all(companyId) as { id: string }[]).map((r) => r.id);
  const sales = sqlite.prepare(
    `SELECT coalesce(sum(total_amount), 0) AS s FROM invoices INDEXED BY invoices_customer
     WHERE company_id = :company AND customer_id BETWEEN :from AND :to AND invoice_date > :since AND invoice_date <= :asOf`,
  );
  const now: Sums = { open: 0, overdue: 0, sales: 0 };
  const then: Sums = { open: 0, overdue: 0, sales: 0 };
  const add = (sums: Sums, asOf: string, slice: CustomerSlice) => {
    for (const r of agingBucketRows(engine as Engine, companyId, asOf, today, slice)) {
      sums.open += r.balance;
      if (r.bucket !== 'current') sums.overdue += r.balance;
    }
    sums.sales += (sales.get({ company: companyId, ...slice, since: addDays(asOf, -t.dsoSalesDays), asOf }) as { s: number }).s;
  };
  for (let i = 0; i < ids.length; i += SLICE_CUSTOMERS) {
    const slice = { from: ids[i], to: ids[Math.min(i + SLICE_CUSTOMERS, ids.length) - 1] };
    add(now, today, slice);
    add(then, past, slice);
    await pause();
  }
  const dso = (sums: Sums) => (sums.sales > 0 ? (sums.open / sums.sales) * t.dsoSalesDays : null);
  // Open invoices only (a closed invoice counts 0, though a credit memo or write-off can leave its
  // balance field non-zero): the same figures as the aging on Analytics. From the covering index
  // of open invoices, grouped per customer.
  const perCustomer = sqlite
    .prepare(
      `SELECT customer_id AS id, customer_name AS name, sum(balance) AS balance FROM invoices INDEXED BY invoices_open_forecast
       WHERE company_id = ? AND closing_reason IS NULL AND balance > 0 GROUP BY customer_id, customer_name ORDER BY balance DESC`,
    )
    .all(companyId) as { id: string; name: string; balance: number }[];
  const top = perCustomer.slice(0, t.topCustomers);
  const withBalance = perCustomer.length;
  return {
    today,
    currency,
    openBalance: now.open,
    overdueBalance: now.overdue,
    pastOpenBalance: then.open,
    pastOverdueBalance: then.overdue,
    dso: dso(now),
    pastDso: dso(then),
    topCustomers: top,
    customersWithBalance: withBalance,
  };
}
