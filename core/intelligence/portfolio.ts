/**
 * The portfolio's figures for its signal: overdue share and DSO today and a window ago, and the
 * largest balances. Each sum is one statement over the whole company. They read every invoice (the
 * aging a window ago every payment too: about 2 s at 1M invoices), which is why the refresh runs
 * them in its own process, never on the loop that answers requests. Summed 200 customers at a
 * time, the aging a window ago took 17.5 s at 1M instead: through the customer index every invoice
 * and its payments were a random read.
 */
import { addDays } from '../dates';
import type { Engine } from '../engine';
import { agingBucketRows } from '../analytics/aging';
import { type PortfolioFigures, SIGNAL_THRESHOLDS } from './signals';

interface Sums {
  open: number;
  overdue: number;
  sales: number;
}

export function portfolioFigures(engine: Pick<Engine, 'database'>, companyId: string, currency: string, today: string): PortfolioFigures {
  const t = SIGNAL_THRESHOLDS;
  const past = addDays(today, -t.portfolioWindowDays);
  const sqlite = engine.database.sqlite;
  const sales = sqlite.prepare(`SELECT coalesce(sum(total_amount), 0) AS s FROM invoices WHERE company_id = :company AND invoice_date > :since AND invoice_date <= :asOf`);
  const sums = (asOf: string): Sums => {
    const sum: Sums = { open: 0, overdue: 0, sales: 0 };
    for (const r of agingBucketRows(engine as Engine, companyId, asOf, today)) {
      sum.open += r.balance;
      if (r.bucket !== 'current') sum.overdue += r.balance;
    }
    sum.sales = (sales.get({ company: companyId, since: addDays(asOf, -t.dsoSalesDays), asOf }) as { s: number }).s;
    return sum;
  };
  const now = sums(today);
  const then = sums(past);
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
