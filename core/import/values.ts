/**
 * Cell values to typed values, by the mapping's formats. Each parser returns a value or a message
 * for the row error; none throws.
 */
import { addDays, isValidDate } from '../dates';
import { hasAtMostTwoDecimals, toMinor } from '../money';
import type { DateFormat } from './fields';
import { type Cell, cellText } from './table';

export { DATE_FORMATS, type DateFormat } from './fields';
export type DecimalSeparator = '.' | ',';

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

const ok = <T>(value: T): Parsed<T> => ({ ok: true, value });
const fail = (message: string): Parsed<never> => ({ ok: false, message });

const ISO_RE = /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[ T]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;
const SLASH_RE = /^(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})$/;
/** Excel stores dates as days since 1899-12-30 (its 1900 leap-year bug folded in). */
const EXCEL_EPOCH = '1899-12-30';
const EXCEL_MAX_SERIAL = 2_958_465;

function ymd(year: string, month: string, day: string): string {
  return `${year}-${month.padStart(2, '0')}-${day.padStart(2, '0')}`;
}

/**
 * A date in the mapping's format. ISO dates (YYYY-MM-DD) are unambiguous and accepted whatever the
 * format; workbook date cells and Excel serial numbers are dates already.
 */
export function parseDate(cell: Cell, format: DateFormat): Parsed<string> {
  if (cell instanceof Date) {
    return Number.isNaN(cell.getTime()) ? fail('is not a valid date') : ok(cell.toISOString().slice(0, 10));
  }
  if (typeof cell === 'number') {
    if (!Number.isFinite(cell) || cell < 1 || cell > EXCEL_MAX_SERIAL) return fail(`${cell} is not a date`);
    return ok(addDays(EXCEL_EPOCH, Math.floor(cell)));
  }
  const text = cellText(cell);
  let date: string | null = null;
  const iso = ISO_RE.exec(text);
  if (iso) date = ymd(iso[1], iso[2], iso[3]);
  else if (format !== 'YYYY-MM-DD') {
    const m = SLASH_RE.exec(text);
    if (m) date = format === 'M/D/YYYY' ? ymd(m[3], m[1], m[2]) : ymd(m[3], m[2], m[1]);
  }
  if (date === null || !isValidDate(date)) return fail(`"${text}" is not a date in the format ${format}`);
  return ok(date);
}

/**
 * Money as integer minor units, read from the text exactly (no float on the way). Accepts a
 * leading currency symbol, thousands separators in groups of three (the other of . and , or a
 * space), and negatives written -12.50, (12.50) or 12.50-.
 */
export function parseAmount(cell: Cell, decimal: DecimalSeparator): Parsed<number> {
  if (typeof cell === 'number') {
    if (!Number.isFinite(cell)) return fail('is not a number');
    if (!hasAtMostTwoDecimals(cell)) return fail(`${cell} has more than two decimals`);
    const minor = toMinor(cell);
    return Number.isSafeInteger(minor) ? ok(minor) : fail(`${cell} is too large`);
  }
  const text = cellText(cell);
  let body = text.replace(/[\s\u00a0\u202f]/g, '');
  let negative = false;
  if (/^\(.*\)$/.test(body)) {
    negative = true;
    body = body.slice(1, -1);
  }
  if (body.startsWith('-')) {
    negative = !negative;
    body = body.slice(1);
  }
  // SAP writes a credit with the minus after the number (1.190,00-).
  if (body.endsWith('-') && body.length > 1) {
    negative = !negative;
    body = body.slice(0, -1);
  }
  body = body.replace(/^[$€£¥]/, '');
  const thousands = decimal === '.' ? ',' : '.';
  const d = decimal === '.' ? '\\.' : ',';
  const t = thousands === '.' ? '\\.' : ',';
  const m = new RegExp(`^(\\d{1,3}(?:${t}\\d{3})+|\\d+)(?:${d}(\\d+))?$`).exec(body);
  if (!m) return fail(`"${text}" is not an amount (decimal separator "${decimal}")`);
  const fraction = m[2] ?? '';
  if (fraction.length > 2) return fail(`"${text}" has more than two decimals`);
  const minor = Number(m[1].split(thousands).join('') + fraction.padEnd(2, '0'));
  if (!Number.isSafeInteger(minor)) return fail(`"${text}" is too large`);
  return ok(negative && minor !== 0 ? -minor : minor);
}

export interface BooleanWords {
  true: string[];
  false: string[];
}

export const DEFAULT_BOOLEAN_WORDS: BooleanWords = { true: ['yes', 'y', 'true', '1', 'x'], false: ['no', 'n', 'false', '0'] };

/** A yes/no value by the mapping's words (case-insensitive); workbook booleans and 1/0 numbers too. */
export function parseBoolean(cell: Cell, words: BooleanWords): Parsed<boolean> {
  if (typeof cell === 'boolean') return ok(cell);
  if (cell === 1 || cell === 0) return ok(cell === 1);
  const text = cellText(cell).toLowerCase();
  if (words.true.some((w) => w.toLowerCase() === text)) return ok(true);
  if (words.false.some((w) => w.toLowerCase() === text)) return ok(false);
  return fail(`"${cellText(cell)}" is not one of ${[...words.true, ...words.false].join(', ')}`);
}

export function parseWholeNumber(cell: Cell, max: number): Parsed<number> {
  const text = cellText(cell);
  if (!/^\d+$/.test(text) || Number(text) > max) return fail(`"${text}" is not a whole number from 0 to ${max}`);
  return ok(Number(text));
}
