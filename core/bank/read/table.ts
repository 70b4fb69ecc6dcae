/**
 * A bank's CSV or XLSX export through a column mapping: which column holds the date, the amount
 * (one signed column, or a credit and a debit column), the payer and the reference text. The rows
 * come already read as a table (core/import reads CSV and XLSX with its limits; the composition
 * root hands the table here), so this file only turns cells into entries, naming the row of any
 * cell it cannot read. Storing a mapping for next time is the caller's business.
 */
// zod as @hono/zod-openapi extends it, so the HTTP layer can name this schema in the OpenAPI document.
import { z } from '@hono/zod-openapi';
import { addDays, isValidDate } from '../../dates';
import { hasAtMostTwoDecimals, toMinor } from '../../money';
import type { ParsedStatement, StatementEntry } from '../statement';
import { READ_LIMITS, clean, malformed, tooManyEntries } from './values';

export const BANK_DATE_FORMATS = ['YYYY-MM-DD', 'DD.MM.YYYY', 'DD/MM/YYYY', 'MM/DD/YYYY', 'YYYYMMDD'] as const;

const column = z.string().trim().min(1).max(200);

export const BankMappingSchema = z
  .object({
    /** The account the export is of (exports rarely repeat it on every row). */
    account: z.string().trim().min(1).max(64),
    /** ISO 4217 code of the account; a currency column, when mapped, wins per row. */
    currency: z.string().regex(/^[A-Z]{3}$/),
    date: column,
    value_date: column.optional(),
    /** One signed column (negative = money out)... */
    amount: column.optional(),
    /** ...or a column each for money in and money out. */
    credit: column.optional(),
    debit: column.optional(),
    currency_column: column.optional(),
    payer: column.optional(),
    payer_account: column.optional(),
    /** Columns joined into the remittance text, in this order. */
    reference: z.array(column).max(10).default([]),
    bank_reference: column.optional(),
    date_format: z.enum(BANK_DATE_FORMATS),
    decimal: z.enum(['.', ',']).default('.'),
  })
  .strict()
  .refine((m) => (m.amount !== undefined) !== (m.credit !== undefined || m.debit !== undefined), {
    message: 'Map either one amount column or credit and debit columns',
    path: ['amount'],
  });

export type BankMapping = z.infer<typeof BankMappingSchema>;

export type TableCell = string | number | boolean | Date | null;

/** The shape core/import's readTable returns. */
export interface StatementTable {
  headers: string[];
  rows: Array<{ row: number; cells: TableCell[] }>;
}

export function readMappedStatement(table: StatementTable, mapping: BankMapping, format: 'csv' | 'xlsx'): ParsedStatement {
  const index = (name: string | undefined): number | null => {
    if (name === undefined) return null;
    const i = table.headers.findIndex((h) => h.trim().toLowerCase() === name.toLowerCase());
    if (i === -1) throw malformed(`The file has no column "${name}"; its columns are: ${table.headers.filter((h) => h.trim()).join(', ')}`);
    return i;
  };
  const at = {
    date: index(mapping.date) as number,
    valueDate: index(mapping.value_date),
    amount: index(mapping.amount),
    credit: index(mapping.credit),
    debit: index(mapping.debit),
    currency: index(mapping.currency_column),
    payer: index(mapping.payer),
    payerAccount: index(mapping.payer_account),
    reference: mapping.reference.map((r) => index(r) as number),
    bankReference: index(mapping.bank_reference),
  };
  const entries: StatementEntry[] = [];
  for (const { row, cells } of table.rows) {
    const cell = (i: number | null): TableCell => (i === null ? null : (cells[i] ?? null));
    const used = [at.date, at.amount, at.credit, at.debit].map(cell);
    if (used.every((c) => c === null || String(c).trim() === '')) continue;
    const booked = dateOf(cell(at.date), mapping.date_format);
    if (!booked) throw malformed(`Row ${row}: the date "${text(cell(at.date))}" is not a date in the format ${mapping.date_format}`);
    const valueOn = at.valueDate === null ? null : dateOf(cell(at.valueDate), mapping.date_format);
    const signed = signedAmount(cell, at, mapping.decimal, row);
    if (signed === 0) continue;
    const currency = clean(text(cell(at.currency)))?.toUpperCase() ?? mapping.currency;
    if (!/^[A-Z]{3}$/.test(currency)) throw malformed(`Row ${row}: the currency "${currency}" is not an ISO 4217 code`);
    entries.push({
      booked_on: booked,
      value_on: valueOn,
      amount_cents: Math.abs(signed),
      direction: signed > 0 ? 'credit' : 'debit',
      currency,
      bank_reference: clean(text(cell(at.bankReference))),
      end_to_end_id: null,
      structured_reference: null,
      remittance_text: clean(at.reference.map((i) => text(cell(i))).join(' ')) ?? '',
      counterparty_name: clean(text(cell(at.payer))),
      counterparty_account: clean(text(cell(at.payerAccount)))?.replace(/\s+/g, '') ?? null,
      bank_code: null,
    });
    if (entries.length > READ_LIMITS.entries) throw tooManyEntries();
  }
  const dates = entries.map((e) => e.booked_on).sort();
  return {
    format,
    statement_id: null,
    account: mapping.account.replace(/\s+/g, ''),
    currency: mapping.currency,
    period_start: dates[0] ?? null,
    period_end: dates[dates.length - 1] ?? null,
    opening_balance_cents: null,
    closing_balance_cents: null,
    entries,
    warnings: [],
  };
}

function text(cell: TableCell): string {
  if (cell === null) return '';
  if (cell instanceof Date) return cell.toISOString().slice(0, 10);
  return String(cell).trim();
}

const EXCEL_EPOCH = '1899-12-30';

function dateOf(cell: TableCell, format: BankMapping['date_format']): string | null {
  if (cell instanceof Date) return Number.isNaN(cell.getTime()) ? null : cell.toISOString().slice(0, 10);
  // A workbook date stored as a number: days since 1899-12-30.
  if (typeof cell === 'number') return cell >= 1 && cell < 2_958_466 ? addDays(EXCEL_EPOCH, Math.floor(cell)) : null;
  const t = text(cell);
  const parts: Record<BankMapping['date_format'], RegExp> = {
    'YYYY-MM-DD': /^(?<y>\d{4})-(?<m>\d{1,2})-(?<d>\d{1,2})/,
    'DD.MM.YYYY': /^(?<d>\d{1,2})\.(?<m>\d{1,2})\.(?<y>\d{4})$/,
    'DD/MM/YYYY': /^(?<d>\d{1,2})\/(?<m>\d{1,2})\/(?<y>\d{4})$/,
    'MM/DD/YYYY': /^(?<m>\d{1,2})\/(?<d>\d{1,2})\/(?<y>\d{4})$/,
    YYYYMMDD: /^(?<y>\d{4})(?<m>\d{2})(?<d>\d{2})$/,
  };
  const g = parts[format].exec(t)?.groups;
  if (!g) return null;
  const day = `${g.y}-${g.m.padStart(2, '0')}-${g.d.padStart(2, '0')}`;
  return isValidDate(day) ? day : null;
}

/** The row's amount in signed cents (credit positive); 0 when the row moves no money. */
function signedAmount(cell: (i: number | null) => TableCell, at: { amount: number | null; credit: number | null; debit: number | null }, decimal: '.' | ',', row: number): number {
  if (at.amount !== null) return cents(cell(at.amount), decimal, row) ?? 0;
  const credit = Math.abs(cents(cell(at.credit), decimal, row) ?? 0);
  const debit = Math.abs(cents(cell(at.debit), decimal, row) ?? 0);
  if (credit !== 0 && debit !== 0) throw malformed(`Row ${row} has both a credit and a debit amount`);
  return credit !== 0 ? credit : -debit;
}

function cents(cell: TableCell, decimal: '.' | ',', row: number): number | null {
  if (cell === null || cell === '') return null;
  if (typeof cell === 'number') {
    if (!Number.isFinite(cell) || !hasAtMostTwoDecimals(cell) || Math.abs(cell) > 1e12) throw malformed(`Row ${row}: the amount ${cell} is not an amount in cents`);
    return toMinor(cell);
  }
  const raw = text(cell);
  let body = raw.replace(/[\s\u00a0\u202f]/g, '').replace(/^[$€£¥]|[$€£¥]$/g, '');
  let negative = false;
  if (/^\(.*\)$/.test(body)) {
    negative = true;
    body = body.slice(1, -1);
  }
  if (/^[+-]/.test(body)) {
    negative = body.startsWith('-') !== negative;
    body = body.slice(1);
  }
  if (body.endsWith('-')) {
    // Some banks write the sign after the number ("12,50-").
    negative = !negative;
    body = body.slice(0, -1);
  }
  const thousands = decimal === '.' ? ',' : '.';
  const parts = body.split(decimal);
  // Thousands separators only between groups of three digits: "1.200,00", never "12.5".
  const grouped = parts[0].split(thousands);
  const whole = grouped.join('');
  const fraction = parts[1] ?? '';
  const groupsOk = grouped.length === 1 || (/^\d{1,3}$/.test(grouped[0]) && grouped.slice(1).every((g) => /^\d{3}$/.test(g)));
  if (parts.length > 2 || !groupsOk || !/^\d{1,13}$/.test(whole) || !/^\d{0,2}$/.test(fraction)) {
    throw malformed(`Row ${row}: "${raw}" is not an amount with "${decimal}" as the decimal separator`);
  }
  const value = Number(whole) * 100 + Number(fraction.padEnd(2, '0'));
  return negative ? -value : value;
}
