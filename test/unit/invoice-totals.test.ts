import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addDays } from '../../core/dates';
import { addCompany } from '../support/api';
import { type TestEngine, testEngine } from '../support/engine';
import { addCustomer, addInvoice } from '../support/invoice-fixtures';

/** customer_invoice_totals as it should be: recomputed from the invoices. */
const RECOMPUTED = `SELECT company_id, customer_id, max(customer_name) AS customer_name, count(*) AS invoice_count, sum(total_amount) AS total_amount,
  sum(balance) AS balance, min(due_date) AS oldest_due_date, min(CASE WHEN closing_reason IS NULL AND balance > 0 THEN due_date END) AS oldest_open_due_date
  FROM invoices GROUP BY company_id, customer_id ORDER BY company_id, customer_id`;
const KEPT = `SELECT company_id, customer_id, customer_name, invoice_count, total_amount, balance, oldest_due_date, oldest_open_due_date
  FROM customer_invoice_totals ORDER BY company_id, customer_id`;

describe('customer_invoice_totals (kept by triggers)', () => {
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

  const check = () => expect(engine.database.sqlite.prepare(KEPT).all()).toEqual(engine.database.sqlite.prepare(RECOMPUTED).all());

  it('matches a recomputation after inserts, payments, closings, due-date moves, customer moves, renames and deletes', async () => {
    const sqlite = engine.database.sqlite;
    // A fixed pseudo-random walk: the same operations every run.
    let state = 42;
    const next = (n: number) => {
      state = (state * 1103515245 + 12345) % 2 ** 31;
      return state % n;
    };
    const ids: string[] = [];
    for (let i = 0; i < 40; i++) {
      ids.push(await addInvoice(engine, company, customers[next(3)], { number: `N-${i}`, dueDate: addDays('2026-11-23', next(200) - 100), total: 10 + next(500) }));
    }
    check();
    for (let step = 0; step < 200; step++) {
      const id = ids[next(ids.length)];
      switch (next(6)) {
        case 0:
          sqlite.prepare('UPDATE invoices SET paid_amount = total_amount, balance = 0, closing_reason = ? WHERE id = ?').run('paid', id);
          break;
        case 1:
          sqlite.prepare('UPDATE invoices SET paid_amount = 0, balance = total_amount, closing_reason = NULL WHERE id = ?').run(id);
          break;
        case 2:
          sqlite.prepare('UPDATE invoices SET due_date = ? WHERE id = ?').run(addDays('2026-11-23', next(300) - 150), id);
          break;
        case 3: {
          const customer = customers[next(3)];
          const name = sqlite.prepare('SELECT name FROM customers WHERE id = ?').pluck().get(customer);
          sqlite.prepare('UPDATE invoices SET customer_id = ?, customer_name = ? WHERE id = ?').run(customer, name, id);
          break;
        }
        case 4:
          sqlite.prepare('UPDATE invoices SET total_amount = total_amount + 100, balance = balance + 100 WHERE id = ?').run(id);
          break;
        case 5:
          sqlite.prepare('UPDATE customers SET name = ? WHERE id = ?').run(`Renamed ${step}`, customers[next(3)]);
          break;
      }
    }
    check();
    for (const id of ids.slice(0, 30)) sqlite.prepare('DELETE FROM invoices WHERE id = ?').run(id);
    check();
    for (const id of ids.slice(30)) sqlite.prepare('DELETE FROM invoices WHERE id = ?').run(id);
    expect(sqlite.prepare('SELECT count(*) FROM customer_invoice_totals').pluck().get()).toBe(0);
  });
});
