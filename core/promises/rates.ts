/**
 * Promise-kept rates from the judged promises (promise_followups): per customer (its page) and per
 * company by month of the promised date (Analytics). Void promises count in neither.
 */
import type { Db } from '../db/connection';
import { NotFoundError } from '../errors';
import type { PromiseOutcome } from '../db/schema';
import { contactSettings } from '../contact/store';
import { keptRate } from './rules';

export interface CustomerPromise {
  invoice: string | null;
  invoice_number: string | null;
  promised_date: string;
  /** Major units; null when no amount was said. */
  promised_amount: number | null;
  outcome: PromiseOutcome;
  paid_amount: number;
  judged_at: string;
  /** The "promise broken" action, when one was made. */
  action: string | null;
}

export interface CustomerPromises {
  grace_days: number;
  kept_count: number;
  broken_count: number;
  /** Percent of the judged promises kept; null when none was judged yet. */
  kept_rate: number | null;
  /** Latest promised date first, at most 50. */
  promises: CustomerPromise[];
}

export async function customerPromises(db: Db, companyId: string, customerId: string): Promise<CustomerPromises> {
  const customer = await db.selectFrom('customers').select('id').where('company_id', '=', companyId).where('id', '=', customerId.toLowerCase()).executeTakeFirst();
  if (!customer) throw new NotFoundError('Customer', customerId);
  const rows = await db
    .selectFrom('promise_followups as f')
    .leftJoin('invoices as i', 'i.id', 'f.invoice_id')
    .select(['f.invoice_id', 'i.invoice_number', 'f.promised_date', 'f.promised_amount', 'f.outcome', 'f.paid_amount', 'f.judged_at', 'f.action_id'])
    .where('f.company_id', '=', companyId)
    .where('f.customer_id', '=', customerId.toLowerCase())
    .orderBy('f.promised_date', 'desc')
    .orderBy('f.id', 'desc')
    .execute();
  const outcomes = rows.map((r) => r.outcome);
  return {
    grace_days: (await contactSettings(db, companyId)).promiseGraceDays,
    kept_count: outcomes.filter((o) => o === 'kept').length,
    broken_count: outcomes.filter((o) => o === 'broken').length,
    kept_rate: keptRate(outcomes),
    promises: rows.slice(0, 50).map((r) => ({
      invoice: r.invoice_id,
      invoice_number: r.invoice_number,
      promised_date: r.promised_date,
      promised_amount: r.promised_amount === null ? null : r.promised_amount / 100,
      outcome: r.outcome,
      paid_amount: r.paid_amount / 100,
      judged_at: r.judged_at,
      action: r.action_id,
    })),
  };
}
