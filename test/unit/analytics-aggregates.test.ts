import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addDays } from '../../core/dates';
import { addCompany } from '../support/api';
import { type TestEngine, testEngine } from '../support/engine';
import { addCustomer, addInvoice, TODAY } from '../support/invoice-fixtures';

/** The analytics aggregates (0097, 0098) next to the same groupings recomputed from invoices and payments. */
const WRITTEN_OFF = `coalesce(CASE WHEN i.closing_reason IN ('credit_memo','written_off') THEN coalesce(i.closed_date, '') END, '9999-12-31')`;
const PAIRS = [
  {
    kept: `SELECT company_id, customer_id, paid_count, late_days FROM customer_paid_lateness WHERE paid_count <> 0 ORDER BY 1, 2`,
    recomputed: `SELECT company_id, customer_id, count(*) AS paid_count, sum(max(julianday(closed_date) - julianday(due_date), 0)) AS late_days
      FROM invoices WHERE closing_reason = 'paid' AND closed_date IS NOT NULL GROUP BY 1, 2 ORDER BY 1, 2`,
  },
  {
    kept: `SELECT company_id, invoice_date, due_date, written_off, total_amount FROM invoice_issue_totals WHERE total_amount <> 0 ORDER BY 1, 2, 3, 4`,
    recomputed: `SELECT i.company_id, i.invoice_date, i.due_date, ${WRITTEN_OFF} AS written_off, sum(i.total_amount) AS total_amount
      FROM invoices i GROUP BY 1, 2, 3, 4 HAVING sum(i.total_amount) <> 0 ORDER BY 1, 2, 3, 4`,
  },
  {
    kept: `SELECT company_id, invoice_date, due_date, written_off, payment_date, amount FROM payment_issue_totals WHERE amount <> 0 ORDER BY 1, 2, 3, 4, 5`,
    recomputed: `SELECT i.company_id, i.invoice_date, i.due_date, ${WRITTEN_OFF} AS written_off, p.payment_date, sum(p.amount) AS amount
      FROM invoices i JOIN payments p ON p.invoice_id = i.id WHERE p.status IN ('PAID','PARTIAL')
      GROUP BY 1, 2, 3, 4, 5 HAVING sum(p.amount) <> 0 ORDER BY 1, 2, 3, 4, 5`,
  },
];

describe('the analytics aggregates (kept by triggers)', () => {
  let engine: TestEngine;
  let company: string;
  let customers: string[];

  beforeEach(async () => {
    engine = await testEngine();
    company = await addCompany(engine, 'Acme Supply');
    customers = [];
    for (const name of ['Globex', 'Initech', 'Umbrella']) customers.push(await addCustomer(engine, company, { name }));
  });
  afterEach(() => engine.dispose());

  const check = () => {
    for (const { kept, recomputed } of PAIRS) expect(engine.database.sqlite.prepare(kept).all()).toEqual(engine.database.sqlite.prepare(recomputed).all());
  };

  it('match a recomputation after payments, voids, closings, write-offs, date moves, customer moves and deletes', async () => {
    const sqlite = engine.database.sqlite;
    // A fixed pseudo-random walk: the same operations every run.
    let state = 7;
    const next = (n: number) => {
      state = (state * 1103515245 + 12345) % 2 ** 31;
      return state % n;
    };
    const day = (spread: number) => addDays(TODAY, next(spread) - spread / 2);
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) {
      ids.push(await addInvoice(engine, company, customers[next(3)], { number: `N-${i}`, dueDate: day(200), total: 10 + next(500) }));
    }
    const payments: string[] = [];
    const pay = (invoice: string) => {
      const id = `pay-${payments.length}`;
      sqlite
        .prepare(
          `INSERT INTO payments (id, company_id, invoice_id, amount, payment_date, payment_method, payment_type, status, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, 'ACH', 'PAYMENT', ?, '2026-11-23T08:00:00.000Z', '2026-11-23T08:00:00.000Z')`,
        )
        .run(id, company, invoice, 100 + next(5000), day(120), ['PAID', 'PARTIAL', 'PENDING', 'FAILED'][next(4)]);
      payments.push(id);
    };
    for (let i = 0; i < 20; i++) pay(ids[next(ids.length)]);
    check();
    for (let step = 0; step < 300; step++) {
      const id = ids[next(ids.length)];
      switch (next(9)) {
        case 0:
          sqlite.prepare(`UPDATE invoices SET closing_reason = 'paid', closed_date = ? WHERE id = ?`).run(day(300), id);
          break;
        case 1:
          sqlite.prepare(`UPDATE invoices SET closing_reason = ?, closed_date = ? WHERE id = ?`).run(['credit_memo', 'written_off'][next(2)], next(5) === 0 ? null : day(100), id);
          break;
        case 2:
          sqlite.prepare('UPDATE invoices SET closing_reason = NULL, closed_date = NULL WHERE id = ?').run(id);
          break;
        case 3:
          sqlite.prepare('UPDATE invoices SET due_date = ?, invoice_date = ? WHERE id = ?').run(day(300), day(300), id);
          break;
        case 4:
          sqlite.prepare('UPDATE invoices SET customer_id = ? WHERE id = ?').run(customers[next(3)], id);
          break;
        case 5:
          sqlite.prepare('UPDATE invoices SET total_amount = total_amount + 100 WHERE id = ?').run(id);
          break;
        case 6:
          pay(id);
          break;
        case 7:
          sqlite.prepare(`UPDATE payments SET status = ?, amount = amount + 1, payment_date = ? WHERE id = ?`).run(['PAID', 'VOIDED'][next(2)], day(60), payments[next(payments.length)]);
          break;
        case 8:
          sqlite.prepare('UPDATE payments SET invoice_id = ? WHERE id = ?').run(id, payments[next(payments.length)]);
          break;
      }
    }
    check();
    // An invoice's delete takes its payments with it (ON DELETE CASCADE), and its share of every aggregate.
    for (const id of ids.slice(0, 15)) sqlite.prepare('DELETE FROM invoices WHERE id = ?').run(id);
    check();
    sqlite.prepare('DELETE FROM payments').run();
    check();
  });
});
