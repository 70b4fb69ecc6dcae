/**
 * The Actions inbox's default order: what the collector stands to lose by not acting. It is
 * assessed and stored on the action (actions.value_at_risk), not computed as the inbox is read:
 * the inbox sorts every proposal of the company by it (45k at a million invoices), and computing
 * each from its invoices and their predictions took seconds per page. The intelligence refresh
 * assesses the proposals of every customer it refreshes (daily, and after each change to the
 * customer), and creating an action assesses it; once decided, an action keeps the value it had.
 */
import { sql } from 'kysely';
import { addDays } from '../dates';
import type { Db } from '../db/connection';

/** How many days of lateness double the weight of a balance in the value at risk. */
export const LATENESS_DAYS = 30;
/** The horizon of "paid soon": the value at risk counts the chance of no payment within it. */
export const PAID_SOON_DAYS = 30;

/**
 * The value at risk of the action row `a` on `today`, as SQL. An invoice's value at risk is its
 * balance x (1 + days past due / LATENESS_DAYS) x the model's chance that it is not paid within
 * PAID_SOON_DAYS (1 - the probability its current pay-date prediction puts on dates up to then; 1
 * without a prediction). A customer action (no invoice)
 * sums what it covers, each invoice weighed the same way: the invoices its metadata lists
 * (`invoice_ids`: a statement, a review of old balances), else the customer's open invoices.
 * Weighing the whole balance by the oldest invoice's lateness, with no model, put every customer
 * action at the top.
 */
function valueAtRiskSql(today: string) {
  const soon = addDays(today, PAID_SOON_DAYS);
  const atRisk = (inv: 'i' | 'o') => {
    const ref = (column: string) => sql.ref(`${inv}.${column}`);
    const unpaidSoon = sql<number>`(1.0 - coalesce((
      SELECT sum(json_extract(s.value, '$.probability')) FROM insights n, json_each(n.payload_json, '$.alternative_scenarios') s
       WHERE n.company_id = ${ref('company_id')} AND n.target_type = 'invoice' AND n.target_id = ${ref('id')}
         AND n.insight_type = 'invoice_pay_date_prediction' AND n.valid_to IS NULL AND json_extract(s.value, '$.date') <= ${soon}), 0))`;
    const late = sql<number>`max(0, CAST(julianday(${today}) - julianday(${ref('due_date')}) AS INTEGER))`;
    return sql<number>`(${ref('balance')} * (1.0 + ${late} * 1.0 / ${sql.lit(LATENESS_DAYS)}) * max(0.0, ${unpaidSoon}))`;
  };
  const ofInvoice = sql<number | null>`(SELECT ${atRisk('i')} FROM invoices i WHERE i.id = a.invoice_id)`;
  const covered = sql<number | null>`(SELECT sum(${atRisk('o')}) FROM invoices o INDEXED BY invoices_open_forecast
    WHERE o.company_id = a.company_id AND o.customer_id = a.customer_id AND o.closing_reason IS NULL AND o.balance > 0
      AND (json_type(a.metadata, '$.invoice_ids') IS NOT 'array' OR o.id IN (SELECT value FROM json_each(a.metadata, '$.invoice_ids'))))`;
  return sql<number | null>`CAST(round(CASE WHEN a.invoice_id IS NULL THEN ${covered} ELSE ${ofInvoice} END) AS INTEGER)`;
}

/**
 * Stores the value at risk on `today`: of these customers' proposed actions (a refresh), or of
 * these actions whatever their status (their creation). Only a value that changed is written: a
 * daily refresh assesses every proposal (90k at a million invoices), most come out the same, and
 * each write moves an index entry and, on a team server, sends the row to every desktop.
 */
export async function assessValueAtRisk(db: Db, companyId: string, today: string, which: { customerIds: string[] } | { actionIds: string[] }): Promise<void> {
  const target =
    'customerIds' in which
      ? sql`a.status = 'proposed' AND a.customer_id IN (SELECT value FROM json_each(${JSON.stringify(which.customerIds)}))`
      : sql`a.id IN (SELECT value FROM json_each(${JSON.stringify(which.actionIds)}))`;
  await sql`UPDATE actions SET value_at_risk = assessed.value
    FROM (SELECT a.id, ${valueAtRiskSql(today)} AS value FROM actions a WHERE a.company_id = ${companyId} AND ${target}) AS assessed
    WHERE actions.id = assessed.id AND actions.value_at_risk IS NOT assessed.value`.execute(db);
}
