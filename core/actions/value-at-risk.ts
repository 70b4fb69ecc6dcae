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
 * The values at risk of the actions of `which` on `today` that differ from the stored ones, as SQL. An invoice's value at risk is its
 * balance x (1 + days past due / LATENESS_DAYS) x the model's chance that it is not paid within
 * PAID_SOON_DAYS (1 - the probability its current pay-date prediction puts on dates up to then; 1
 * without a prediction). A customer action (no invoice)
 * sums what it covers, each invoice weighed the same way: the invoices its metadata lists
 * (`invoice_ids`: a statement, a review of old balances), else the customer's open invoices.
 * Weighing the whole balance by the oldest invoice's lateness, with no model, put every customer
 * action at the top.
 *
 * Each open invoice of the customers concerned is weighed once (`weighed`), and an action sums the
 * invoices it covers from that, its list driving and each listed invoice found by key: testing each
 * of the customer's open invoices against the list, and weighing them again per action, was
 * quadratic in one customer's invoices (20,000 of them held the write lock for minutes, issue 37).
 */
function assessedSql(companyId: string, today: string, which: Which) {
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
  const target = (a: 'a' | 't') =>
    'customerIds' in which
      ? sql`${sql.ref(`${a}.status`)} = 'proposed' AND ${sql.ref(`${a}.customer_id`)} IN (SELECT value FROM json_each(${JSON.stringify(which.customerIds)}))`
      : sql`${sql.ref(`${a}.id`)} IN (SELECT value FROM json_each(${JSON.stringify(which.actionIds)}))`;
  const ofInvoice = sql<number | null>`(SELECT ${atRisk('i')} FROM invoices i WHERE i.id = a.invoice_id)`;
  // Joins, not correlated subqueries: SQLite indexes each materialized table once per statement.
  return sql`WITH weighed AS MATERIALIZED (
      SELECT o.id, o.customer_id, ${atRisk('o')} AS value FROM invoices o INDEXED BY invoices_open_forecast
       WHERE o.company_id = ${companyId} AND o.closing_reason IS NULL AND o.balance > 0
         AND o.customer_id IN (SELECT t.customer_id FROM actions t WHERE t.company_id = ${companyId} AND t.invoice_id IS NULL AND ${target('t')})),
    listed AS MATERIALIZED (
      SELECT l.action_id, sum(w.value) AS value
        FROM (SELECT DISTINCT t.id AS action_id, t.customer_id, j.value AS invoice_id FROM actions t, json_each(t.metadata, '$.invoice_ids') j
               WHERE t.company_id = ${companyId} AND t.invoice_id IS NULL AND ${target('t')}) l
        JOIN weighed w ON w.id = l.invoice_id AND w.customer_id = l.customer_id
       GROUP BY l.action_id),
    owed AS MATERIALIZED (SELECT customer_id, sum(value) AS value FROM weighed GROUP BY customer_id),
    assessed AS MATERIALIZED (
      SELECT a.id, a.value_at_risk AS stored,
        CAST(round(CASE WHEN a.invoice_id IS NOT NULL THEN ${ofInvoice} WHEN json_type(a.metadata, '$.invoice_ids') = 'array' THEN listed.value ELSE owed.value END) AS INTEGER) AS value
      FROM actions a LEFT JOIN listed ON listed.action_id = a.id LEFT JOIN owed ON owed.customer_id = a.customer_id
      WHERE a.company_id = ${companyId} AND ${target('a')})
    SELECT id, value FROM assessed WHERE stored IS NOT value`;
}

type Which = { customerIds: string[] } | { actionIds: string[] };

/**
 * Stores the value at risk on `today`: of these customers' proposed actions (a refresh), or of
 * these actions whatever their status (their creation). Only a value that changed is written: a
 * daily refresh assesses every proposal (90k at a million invoices), most come out the same, and
 * each write moves an index entry and, on a team server, sends the row to every desktop.
 */
export async function assessValueAtRisk(db: Db, companyId: string, today: string, which: Which): Promise<void> {
  await storeValuesAtRisk(db, await changedValuesAtRisk(db, companyId, today, which), 'customerIds' in which);
}

/**
 * The values at risk of `which` that differ from the stored ones, read without writing: a refresh
 * of a customer with tens of thousands of invoices reads them outside its write transactions (a
 * second of work that would hold every other write) and writes only the changes after.
 */
export async function changedValuesAtRisk(db: Db, companyId: string, today: string, which: Which): Promise<Array<{ id: string; value: number | null }>> {
  const { rows } = await assessedSql(companyId, today, which).execute(db);
  return rows as Array<{ id: string; value: number | null }>;
}

/**
 * Writes values read by changedValuesAtRisk. `proposedOnly`: a refresh's values go only to actions
 * still proposed (one decided since keeps the value it had).
 */
export async function storeValuesAtRisk(db: Db, values: Array<{ id: string; value: number | null }>, proposedOnly = true): Promise<void> {
  for (const v of values) {
    let update = db.updateTable('actions').set({ value_at_risk: v.value }).where('id', '=', v.id);
    if (proposedOnly) update = update.where('status', '=', 'proposed');
    await update.execute();
  }
}
