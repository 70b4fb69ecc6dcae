import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agingBucketRows } from '../../core/analytics/aging';
import { addDays } from '../../core/dates';
import { activeCustomerIds, FIT_PAGE_ROWS, fitPayDateModel, loadSettledOf } from '../../core/intelligence/facts';
import { PayDateModel } from '../../core/intelligence/pay-date';
import { portfolioFigures } from '../../core/intelligence/portfolio';
import { refreshIntelligence } from '../../core/intelligence/runner';
import { SIGNAL_THRESHOLDS } from '../../core/intelligence/signals';
import { seedDatabase } from '../../core/seed';
import { yieldToEventLoop } from '../../core/yielding';
import { type TestEngine, testEngine } from '../support/engine';

const TODAY = '2026-11-23';

/**
 * The refresh reads a large portfolio in pages: what it reads that way must be exactly what one
 * query reads. A generated ledger of 6,000 invoices spans several pages of the fit; the portfolio
 * figures must equal the whole-ledger aging and sales.
 */
describe('the intelligence refresh reads in pages, with the same result', () => {
  let engine: TestEngine;
  let company: string;
  beforeAll(async () => {
    engine = await testEngine(`${TODAY}T12:00:00.000Z`);
    const report = await seedDatabase(engine, { demo: false, invoices: 6_000, customers: 700, seed: 5 });
    company = report.companies[0].id;
  });
  afterAll(() => engine.dispose());

  it('fits the pay-date model page by page on every settled invoice, as the per-customer reads do', async () => {
    let pauses = 0;
    const model = await fitPayDateModel(engine, company, TODAY, async () => {
      pauses += 1;
      await yieldToEventLoop();
    });
    const settled = (
      engine.database.sqlite
        .prepare(`SELECT count(*) AS n FROM invoices WHERE company_id = ? AND closing_reason IN ('paid', 'overpaid') AND closed_date < ?`)
        .get(company, TODAY) as { n: number }
    ).n;
    expect(pauses).toBeGreaterThan(0);
    expect(model.observationCount).toBe(settled);
    const customers = (engine.database.sqlite.prepare('SELECT id FROM customers WHERE company_id = ?').all(company) as { id: string }[]).map((r) => r.id);
    const reference = new PayDateModel();
    for (const s of loadSettledOf(engine, company, customers, TODAY)) reference.observe(s);
    // The same observations whatever the order they were read in.
    const asSet = (rows: object[]) => rows.map((r) => JSON.stringify(r)).sort();
    for (const id of customers) expect(asSet(model.daysLateOf(id))).toEqual(asSet(reference.daysLateOf(id)));
  });

  it('sums the portfolio figures to the whole-ledger aging and sales', () => {
    const figures = portfolioFigures(engine, company, 'USD', TODAY);
    const past = addDays(TODAY, -SIGNAL_THRESHOLDS.portfolioWindowDays);
    const totals = (asOf: string) => {
      const rows = agingBucketRows(engine, company, asOf, TODAY);
      return { open: rows.reduce((s, r) => s + r.balance, 0), overdue: rows.filter((r) => r.bucket !== 'current').reduce((s, r) => s + r.balance, 0) };
    };
    const now = totals(TODAY);
    const then = totals(past);
    expect(now.overdue).toBeGreaterThan(0);
    expect(then.open).toBeGreaterThan(0);
    expect(figures).toMatchObject({ openBalance: now.open, overdueBalance: now.overdue, pastOpenBalance: then.open, pastOverdueBalance: then.overdue });
    const sales = (asOf: string) =>
      (
        engine.database.sqlite
          .prepare('SELECT sum(total_amount) AS s FROM invoices WHERE company_id = ? AND invoice_date > ? AND invoice_date <= ?')
          .get(company, addDays(asOf, -SIGNAL_THRESHOLDS.dsoSalesDays), asOf) as { s: number }
      ).s;
    expect(figures.dso).toBeCloseTo((now.open / sales(TODAY)) * SIGNAL_THRESHOLDS.dsoSalesDays, 9);
    expect(figures.pastDso).toBeCloseTo((then.open / sales(past)) * SIGNAL_THRESHOLDS.dsoSalesDays, 9);
  });

  it('lists the active customers page by page as one union of balances, communications and insights', async () => {
    const union = () =>
      (
        engine.database.sqlite
          .prepare(
            `SELECT customer_id AS id FROM customer_invoice_totals WHERE company_id = ? AND balance != 0
             UNION SELECT customer_id FROM communications WHERE company_id = ?
             UNION SELECT customer_id FROM insights WHERE company_id = ? AND valid_to IS NULL AND customer_id IS NOT NULL ORDER BY 1`,
          )
          .all(company, company, company) as { id: string }[]
      ).map((r) => r.id);
    expect(await activeCustomerIds(engine, company, yieldToEventLoop)).toEqual(union());
  });

  it('lets the event loop turn between its pages and chunks while it refreshes', async () => {
    let turns = 0;
    let running = true;
    const tick = () => {
      turns += 1;
      if (running) setImmediate(tick);
    };
    setImmediate(tick);
    let chunks = 0;
    const report = await refreshIntelligence(engine, company, {
      // Once per chunk of customers: not the opening report (0 done) nor the closing portfolio step.
      onProgress: (p) => {
        if (p.done > 0 && p.done < p.total) chunks += 1;
      },
    });
    running = false;
    expect(report.customers).toBeGreaterThan(100);
    const settled = (engine.database.sqlite.prepare(`SELECT count(*) AS n FROM invoices WHERE company_id = ? AND closing_reason IN ('paid', 'overpaid') AND closed_date < ?`).get(company, TODAY) as { n: number }).n;
    const fitPages = Math.ceil(settled / FIT_PAGE_ROWS);
    expect(chunks).toBeGreaterThan(1);
    expect(fitPages).toBeGreaterThan(1);
    // At least one turn between two pages of the fit, and after each chunk of customers.
    expect(turns).toBeGreaterThanOrEqual(fitPages - 1 + chunks);
  });
});
