/** The ledger as the cash-in forecast reads it: invoices, the payments that settled them, payments said to be coming. */
import { addDays } from '../dates';
import type { Engine } from '../engine';
import { PAID_HOLD_DAYS } from '../portal/forms';
import type { CashHistory, CashPromise } from './cash-forecast';
import { type Communication, COMMUNICATION_COLUMNS, communicationOf, type CommunicationRow } from './facts';
import { promiseIn } from './promises';

/** A remittance advice (core/bank/remittance.ts): the customer says they paid `amount` for these invoices on `paidOn`. */
export interface AdviceRow {
  customerId: string;
  invoiceIds: string[];
  paidOn: string;
  amount: number;
  /** When it was recorded (an ISO timestamp). */
  createdAt: string;
}

/**
 * Every payment a customer said is coming, as the forecast weighs a promise:
 * - a promise to pay as the product reads one (core/intelligence/promises.ts): logged with a call,
 *   the portal's "I'll pay on DATE", or read from what the customer wrote (the reply reader's
 *   promises, "payment of $X scheduled for DATE" among them), about an invoice or the customer;
 * - a remittance advice (the portal's "I've paid"): money sent, expected from the later of the day
 *   paid and the day said, and standing as long as the portal holds the chase for it to arrive;
 *   its amount shared by the invoices it names in proportion to their totals.
 */
export function scheduledPayments(communications: Array<Communication & { customerId: string }>, advices: AdviceRow[], invoiceTotals: Map<string, number>): CashPromise[] {
  const out: CashPromise[] = [];
  for (const c of communications) {
    const p = promiseIn(c);
    if (p) out.push({ customerId: c.customerId, invoiceId: p.invoiceId, madeOn: p.madeAt.slice(0, 10), date: p.date, amount: p.amount, standsDays: 0 });
  }
  for (const a of advices) {
    const madeOn = a.createdAt.slice(0, 10);
    const date = a.paidOn > madeOn ? a.paidOn : madeOn;
    const ids = a.invoiceIds.filter((id) => invoiceTotals.has(id));
    const whole = ids.reduce((s, id) => s + invoiceTotals.get(id)!, 0);
    let given = 0;
    ids.forEach((id, i) => {
      const share = i === ids.length - 1 ? a.amount - given : Math.round((a.amount * invoiceTotals.get(id)!) / whole);
      given += share;
      out.push({ customerId: a.customerId, invoiceId: id, madeOn, date, amount: share, standsDays: PAID_HOLD_DAYS });
    });
  }
  return out;
}

/**
 * The company's cash history. With `since`, only what a forecast from then on needs: invoices
 * issued since, or still unpaid then, their payments, and what was said since; the rest of the
 * history is left out of the lateness it learns from (bounded memory on a large ledger).
 */
export function loadCashHistory(engine: Pick<Engine, 'database'>, companyId: string, options: { since?: string } = {}): CashHistory {
  const sqlite = engine.database.sqlite;
  const since = options.since ?? '0000-01-01';
  const kept = `i.company_id = ? AND i.total_amount > 0 AND (i.invoice_date >= ? OR i.closed_date IS NULL OR i.closed_date >= ?)`;
  const invoices = sqlite
    .prepare(`SELECT id, customer_id AS customerId, invoice_date AS invoiceDate, due_date AS dueDate, total_amount AS amount FROM invoices i WHERE ${kept}`)
    .all(companyId, since, since) as CashHistory['invoices'];
  const payments = sqlite
    .prepare(
      `SELECT p.invoice_id AS invoiceId, p.payment_date AS date, p.amount FROM payments p JOIN invoices i ON i.id = p.invoice_id
        WHERE p.company_id = ? AND p.status IN ('PAID', 'PARTIAL') AND p.amount > 0 AND ${kept} ORDER BY p.payment_date`,
    )
    .all(companyId, companyId, since, since) as CashHistory['payments'];
  // Only what can carry a promise: a logged date, a reading of one, or words from the customer not read yet.
  const rows = sqlite
    .prepare(
      `SELECT ${COMMUNICATION_COLUMNS}
         FROM communications WHERE company_id = ? AND occurred_at >= ?
          AND (promise_date IS NOT NULL OR reading_kind = 'promise' OR (reading_kind IS NULL AND direction != 'outbound'))
        ORDER BY occurred_at, id`,
    )
    .all(companyId, since) as CommunicationRow[];
  const communications = rows.map((r) => ({ ...communicationOf(r), customerId: r.customer_id }));
  const advices = (
    sqlite
      .prepare(`SELECT customer_id, invoice_ids, paid_on, amount, created_at FROM bank_remittance_advices WHERE company_id = ? AND created_at >= ?`)
      .all(companyId, options.since ? addDays(options.since, -PAID_HOLD_DAYS) : '') as Array<{ customer_id: string; invoice_ids: string; paid_on: string; amount: number; created_at: string }>
  ).map((a) => ({ customerId: a.customer_id, invoiceIds: JSON.parse(a.invoice_ids) as string[], paidOn: a.paid_on, amount: a.amount, createdAt: a.created_at }));
  const totals = new Map(invoices.map((i) => [i.id, i.amount]));
  return { invoices, payments, promises: scheduledPayments(communications, advices, totals) };
}
