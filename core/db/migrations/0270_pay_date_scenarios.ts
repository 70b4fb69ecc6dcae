/**
 * The pay-date predictions' scenarios as rows (issue 25: the Actions inbox and the cash-flow
 * forecast at a million invoices). Both read, per open invoice, the dates its active prediction
 * gives and the probability of each; parsing every prediction's JSON for that took seconds (the
 * inbox's value at risk 2.4 s for one page, the forecast 7 s). Triggers keep one row per scenario
 * of each active prediction, in the same transaction as the insight's write, whoever writes it
 * (the engine, the API, a sync pull); a prediction without a date keeps one row with no date whose
 * probability is its collectible_90d, the share the forecast spreads over 90 days. An invoice with
 * no row has no usable prediction, and the forecast falls back to its due date pushed by the
 * customer's lateness. Derived like the aggregates: never synced, rebuilt after a bulk download
 * (core/sync/derived.ts).
 */
import { type Kysely, sql } from 'kysely';

const PREDICTION = 'invoice_pay_date_prediction';

/** `r` is an active pay-date prediction of an invoice. */
export const active = (r: string) => `${r}.insight_type = '${PREDICTION}' AND ${r}.valid_to IS NULL AND ${r}.invoice_id IS NOT NULL`;

/**
 * The scenario rows of the active predictions `r` (NEW in a trigger, or `n` with `from` naming
 * insights n), those meeting `where` besides.
 */
export function scenarioRowsSql(r: string, from = '', where = active(r)): string {
  const predicted = `json_extract(${r}.payload_json, '$.predicted_date')`;
  const collectible = `json_extract(${r}.payload_json, '$.collectible_90d')`;
  return `SELECT ${r}.company_id, ${r}.invoice_id, ${r}.id, CAST(s.key AS INTEGER), json_extract(s.value, '$.date'), json_extract(s.value, '$.probability')
    FROM ${from ? `${from}, ` : ''}json_each(${r}.payload_json, '$.alternative_scenarios') s
    WHERE ${where} AND ${predicted} IS NOT NULL AND json_extract(s.value, '$.probability') IS NOT NULL
    UNION ALL
    SELECT ${r}.company_id, ${r}.invoice_id, ${r}.id, -1, NULL, ${collectible}${from ? ` FROM ${from}` : ''}
    WHERE ${where} AND ${predicted} IS NULL AND ${collectible} IS NOT NULL`;
}

const insertRows = (rows: string) => `INSERT INTO pay_date_scenarios (company_id, invoice_id, insight_id, position, date, probability) ${rows};`;
const deleteRows = `DELETE FROM pay_date_scenarios WHERE company_id = OLD.company_id AND invoice_id = OLD.invoice_id AND insight_id = OLD.id;`;

const statements = [
  `CREATE TABLE pay_date_scenarios (
  company_id TEXT NOT NULL,
  invoice_id TEXT NOT NULL,
  insight_id TEXT NOT NULL,
  position INTEGER NOT NULL,
  date TEXT,
  probability REAL NOT NULL,
  PRIMARY KEY (company_id, invoice_id, insight_id, position)
) WITHOUT ROWID`,
  insertRows(scenarioRowsSql('n', 'insights n')),
  `CREATE TRIGGER insights_scenarios_insert AFTER INSERT ON insights WHEN ${active('NEW')} BEGIN
  ${insertRows(scenarioRowsSql('NEW'))}
END`,
  `CREATE TRIGGER insights_scenarios_update AFTER UPDATE OF company_id, invoice_id, insight_type, payload_json, valid_to ON insights
  WHEN (${active('OLD')}) OR (${active('NEW')}) BEGIN
  ${deleteRows}
  ${insertRows(scenarioRowsSql('NEW'))}
END`,
  `CREATE TRIGGER insights_scenarios_delete AFTER DELETE ON insights WHEN ${active('OLD')} BEGIN
  ${deleteRows}
END`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
