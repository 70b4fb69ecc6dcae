/** The ledger as the cash-in forecast's backtest reads it: invoices, the payments that settled them, promises. */
import type { Engine } from '../engine';
import type { CashHistory } from './cash-forecast';

export function loadCashHistory(engine: Pick<Engine, 'database'>, companyId: string): CashHistory {
  const sqlite = engine.database.sqlite;
  const invoices = sqlite
    .prepare(`SELECT id, customer_id AS customerId, invoice_date AS invoiceDate, due_date AS dueDate, total_amount AS amount FROM invoices WHERE company_id = ? AND total_amount > 0`)
    .all(companyId) as CashHistory['invoices'];
  const payments = sqlite
    .prepare(`SELECT invoice_id AS invoiceId, payment_date AS date, amount FROM payments WHERE company_id = ? AND status IN ('PAID', 'PARTIAL') AND amount > 0 ORDER BY payment_date`)
    .all(companyId) as CashHistory['payments'];
  const promises = sqlite
    .prepare(
      `SELECT invoice_id AS invoiceId, substr(occurred_at, 1, 10) AS madeOn, promise_date AS date, promise_amount AS amount
         FROM communications WHERE company_id = ? AND invoice_id IS NOT NULL AND promise_date IS NOT NULL`,
    )
    .all(companyId) as CashHistory['promises'];
  return { invoices, payments, promises };
}
