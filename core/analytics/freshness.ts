/**
 * Is the ledger fresh? A company whose newest invoice and newest payment are both more than 60
 * days before today holds history (an export cut months or years ago), and figures "as of today"
 * on it mislead: DSO in thousands of days, every open invoice years past due. The pages say so.
 */
import { asOfDate } from '../companies/as-of';
import { addDays } from '../dates';
import type { Engine } from '../engine';

/** Days since the newest invoice or payment after which the ledger is called stale. */
export const STALE_AFTER_DAYS = 60;

export interface LedgerFreshness {
  newest_invoice_date: string | null;
  newest_payment_date: string | null;
  /** The later of the two: the ledger's last activity. */
  last_activity_date: string | null;
  stale: boolean;
  stale_after_days: number;
  /** The company's as-of date (core/companies/as-of.ts): figures count from it while set. */
  as_of_date: string | null;
}

export function ledgerFreshness(engine: Pick<Engine, 'database'>, companyId: string, today: string): LedgerFreshness {
  const sqlite = engine.database.sqlite;
  const invoice = (sqlite.prepare('SELECT max(invoice_date) AS d FROM invoices WHERE company_id = ?').get(companyId) as { d: string | null }).d;
  const payment = (sqlite.prepare('SELECT max(payment_date) AS d FROM payments WHERE company_id = ?').get(companyId) as { d: string | null }).d;
  const last = invoice === null ? payment : payment === null || invoice > payment ? invoice : payment;
  return {
    newest_invoice_date: invoice,
    newest_payment_date: payment,
    last_activity_date: last,
    stale: last !== null && last < addDays(today, -STALE_AFTER_DAYS),
    stale_after_days: STALE_AFTER_DAYS,
    as_of_date: asOfDate(engine, companyId),
  };
}
