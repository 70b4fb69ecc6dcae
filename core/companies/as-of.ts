/**
 * A company's "as of" date: a ledger exported long ago (its newest invoice and payment months or
 * years old) reads as years past due when counted from today. While the company has an as-of date,
 * every page and figure counts from it instead (the invoice list, Customers, My work, actions, the
 * aging, metrics, the forecast, insights and proposals); cleared, they count from today again.
 * `workingDate` is the one "today" of a company: each reader asks it once, where it would have
 * asked the clock. The date is never before the ledger's last activity, so the balances the ledger
 * records are the balances on that date, the same on every page.
 */
import { today as todayOf } from '../clock';
import { isValidDate } from '../dates';
import { type Engine, runCommand, type Actor } from '../engine';
import { NotFoundError, ValidationError } from '../errors';

export interface CompanySettings {
  /** The date analytics and intelligence count from instead of today; null: today. */
  as_of_date: string | null;
}

/** The company's as-of date, or null. A synchronous read: the intelligence refresh asks it per run. */
export function asOfDate(engine: Pick<Engine, 'database'>, companyId: string): string | null {
  const row = engine.database.sqlite.prepare('SELECT as_of_date FROM companies WHERE id = ?').get(companyId) as { as_of_date: string | null } | undefined;
  return row?.as_of_date ?? null;
}

/** The date a company's analytics and intelligence count from: its as-of date, else today. */
export function workingDate(engine: Pick<Engine, 'database' | 'clock'>, companyId: string): string {
  return asOfDate(engine, companyId) ?? todayOf(engine.clock);
}

export async function companySettings(engine: Pick<Engine, 'db'>, companyId: string): Promise<CompanySettings> {
  const row = await engine.db.selectFrom('companies').select('as_of_date').where('id', '=', companyId).executeTakeFirst();
  if (!row) throw new NotFoundError('Company');
  return { as_of_date: row.as_of_date };
}

/**
 * The ledger's last activity: its newest invoice or payment date (as the stale-ledger notice counts
 * it), or null for an empty ledger.
 */
export function ledgerLastActivity(engine: Pick<Engine, 'database'>, companyId: string): string | null {
  const row = engine.database.sqlite
    .prepare(
      `SELECT max(d) AS d FROM (SELECT max(invoice_date) AS d FROM invoices WHERE company_id = :company
                                UNION ALL SELECT max(payment_date) FROM payments WHERE company_id = :company)`,
    )
    .get({ company: companyId }) as { d: string | null };
  return row.d;
}

/**
 * Sets (a date, not after today) or clears (null) the company's as-of date. A date before the
 * ledger's last activity is refused: the ledger already records what happened after it (a payment,
 * a newer invoice), and every page reads the balances the ledger records; working as of that date
 * would call money collected later still open on some figures and not on others.
 */
export async function setAsOfDate(engine: Pick<Engine, 'db' | 'clock' | 'database'>, scope: { companyId: string; actor: Actor }, date: string | null): Promise<CompanySettings> {
  if (date !== null) {
    if (!isValidDate(date)) throw new ValidationError('The as-of date is invalid', { as_of_date: ['Must be a date YYYY-MM-DD'] });
    if (date > todayOf(engine.clock)) throw new ValidationError('The as-of date is in the future', { as_of_date: ['Must be today or earlier'] });
    const last = ledgerLastActivity(engine, scope.companyId);
    if (last !== null && date < last) {
      throw new ValidationError(
        `The ledger records invoices or payments up to ${last}: work as of ${last} or later (to see an earlier date, pick it on Analytics)`,
        { as_of_date: [`Must be on or after the ledger's last activity, ${last}`] },
        'before_ledger_activity',
      );
    }
  }
  await runCommand(engine, 'set_company_as_of', scope, async (tx) => {
    await tx.db.updateTable('companies').set({ as_of_date: date, updated_at: tx.now }).where('id', '=', scope.companyId).execute();
    await tx.record('company', scope.companyId, 'update', { as_of_date: date });
  });
  return companySettings(engine, scope.companyId);
}
