/**
 * A company's "as of" date: a ledger exported long ago (its newest invoice and payment months or
 * years old) reads as years past due when counted from today. While the company has an as-of date,
 * analytics, predictions, signals and proposals count from it instead; cleared, they count from
 * today again. Each reader asks `workingDate` once, where it would have asked the clock.
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

/** Sets (a date, not after today) or clears (null) the company's as-of date. */
export async function setAsOfDate(engine: Pick<Engine, 'db' | 'clock'>, scope: { companyId: string; actor: Actor }, date: string | null): Promise<CompanySettings> {
  if (date !== null) {
    if (!isValidDate(date)) throw new ValidationError('The as-of date is invalid', { as_of_date: ['Must be a date YYYY-MM-DD'] });
    if (date > todayOf(engine.clock)) throw new ValidationError('The as-of date is in the future', { as_of_date: ['Must be today or earlier'] });
  }
  await runCommand(engine, 'set_company_as_of', scope, async (tx) => {
    await tx.db.updateTable('companies').set({ as_of_date: date, updated_at: tx.now }).where('id', '=', scope.companyId).execute();
    await tx.record('company', scope.companyId, 'update', { as_of_date: date });
  });
  return companySettings(engine, scope.companyId);
}
