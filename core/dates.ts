/** Calendar arithmetic on YYYY-MM-DD strings, in UTC so no time zone shifts a date. */

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * Every date the app accepts lies in this range: wide enough for any real ledger, narrow enough
 * that date arithmetic (a step offset of years, a due date from payment terms) stays a valid date.
 */
export const MIN_DATE = '1900-01-01';
export const MAX_DATE = '2999-12-31';

/** A real calendar date YYYY-MM-DD within MIN_DATE..MAX_DATE. */
export function isValidDate(value: string): boolean {
  const m = DATE_RE.exec(value);
  if (!m || value < MIN_DATE || value > MAX_DATE) return false;
  const d = new Date(Date.UTC(+m[1], +m[2] - 1, +m[3]));
  return d.getUTCFullYear() === +m[1] && d.getUTCMonth() === +m[2] - 1 && d.getUTCDate() === +m[3];
}

/** Days since 1970-01-01 (UTC), by arithmetic on the digits (hot in the intelligence engine). */
export function toEpochDay(date: string): number {
  const y0 = +date.slice(0, 4);
  const m = +date.slice(5, 7);
  const d = +date.slice(8, 10);
  // Days from civil (H. Hinnant): March-based years put the leap day last.
  const y = m <= 2 ? y0 - 1 : y0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** YYYY-MM-DD of a day number since 1970-01-01. */
export function fromEpochDay(day: number): string {
  const z = day + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  return `${String(y).padStart(4, '0')}-${m < 10 ? '0' : ''}${m}-${d < 10 ? '0' : ''}${d}`;
}

/** Whole days from `from` to `to` (negative when `to` is earlier). */
export function daysBetween(from: string, to: string): number {
  return toEpochDay(to) - toEpochDay(from);
}

export function addDays(date: string, days: number): string {
  return fromEpochDay(toEpochDay(date) + days);
}

/** The month of a date, 'YYYY-MM'. */
export function monthOf(date: string): string {
  return date.slice(0, 7);
}

/** The month `n` months after `month` ('YYYY-MM'; n may be negative). */
export function addMonths(month: string, n: number): string {
  const index = Number(month.slice(0, 4)) * 12 + Number(month.slice(5, 7)) - 1 + n;
  return `${String(Math.floor(index / 12)).padStart(4, '0')}-${String((index % 12) + 1).padStart(2, '0')}`;
}

export function monthStart(month: string): string {
  return `${month}-01`;
}

export function monthEnd(month: string): string {
  return addDays(monthStart(addMonths(month, 1)), -1);
}

const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/**
 * A date as customers read it in an email: "December 1, 2026". The month in words reads the same
 * in every English-speaking country, where 12/01/2026 does not.
 */
export function longDate(date: string): string {
  return `${MONTH_NAMES[+date.slice(5, 7) - 1]} ${+date.slice(8, 10)}, ${date.slice(0, 4)}`;
}
