/**
 * The cash flow forecast's expected inflows, kept per customer and week by the intelligence
 * refresh as it writes the pay-date predictions (core/analytics/forecast-inflows.ts). Read as the
 * forecast is asked for, they cost the answer 4-5 s at a million invoices: every open invoice's
 * prediction looked up among the insights and its scenarios parsed from JSON. Both tables belong
 * to the database whose refresh writes them and never sync (a replica, which does not refresh,
 * reads the predictions it received). The refresh owed fills them at the next start.
 */
import { type Kysely, sql } from 'kysely';

const statements = [
  // weeks: JSON [[week, amount, sq, sq2], ...], week the Monday of the week the money is expected
  // in or '' when spread over the next 90 days. One row per customer, not per week: a refresh
  // rewrites every row it keeps, and five times the rows cost it seconds at 1M.
  `CREATE TABLE forecast_inflows (
    company_id TEXT NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
    customer_id TEXT NOT NULL,
    weeks TEXT NOT NULL,
    PRIMARY KEY (company_id, customer_id)
  ) WITHOUT ROWID`,
  // A company's forecast_inflows are complete once a full refresh has written them.
  `CREATE TABLE forecast_state (
    company_id TEXT PRIMARY KEY REFERENCES companies(id) ON DELETE CASCADE,
    complete_at TEXT NOT NULL
  )`,
  `UPDATE intelligence_state SET last_full_refresh_date = NULL`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
