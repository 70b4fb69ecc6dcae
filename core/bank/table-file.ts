/**
 * A bank's CSV or XLSX export read into a statement. The table is read by core/import with its
 * limits (rows, columns, cells; an XLSX's unpacked size is checked before it is unpacked, so a zip
 * bomb stops there), then turned into entries through a column mapping: the one sent with the
 * file, else the one kept from the company's earlier file of that layout (mappings.ts). With
 * neither it is a 400 asking for one; the preview guesses one for the person to confirm.
 */
import { chunks } from '../chunks';
import type { FieldErrors } from '../errors';
import { NotFoundError, ValidationError } from '../errors';
import type { Db } from '../db/connection';
import { cellText, readCsvTable, readTable, type Table } from '../import/table';
import { yieldToEventLoop } from '../yielding';
import { savedBankMapping } from './mappings';
import { decodeStatementText, detectStatementFormat } from './read/detect';
import { type BankMappingGuess, guessBankMapping } from './read/guess-mapping';
import { type BankMapping, BankMappingSchema, readMappedStatement } from './read/table';
import { checkSize, READ_LIMITS, tooManyEntries } from './read/values';
import type { ParsedStatement } from './statement';

export type TableFormat = 'csv' | 'xlsx';

export async function readBankTable(bytes: Buffer, format: TableFormat): Promise<Table> {
  checkSize(bytes);
  if (format === 'xlsx') return readTable(bytes, { format: 'xlsx' });
  const text = decodeStatementText(bytes);
  return readCsvTable(text, sniffDelimiter(text));
}

const DELIMITERS = [',', ';', '\t'] as const;

/** The delimiter the header line uses most, quoted text aside; a comma when none is there. */
export function sniffDelimiter(text: string): string {
  const end = text.search(/\r?\n/);
  const header = (end === -1 ? text : text.slice(0, end)).replace(/"[^"]*"/g, '');
  let best: string = ',';
  let most = 0;
  for (const d of DELIMITERS) {
    const n = header.split(d).length - 1;
    if (n > most) [best, most] = [d, n];
  }
  return best;
}

/** A mapping sent as JSON text, checked; a 400 names what is wrong in it ("mapping.date_format"). */
export function parseBankMapping(text: string): BankMapping {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new ValidationError('The mapping is not JSON', { mapping: ['Send the column mapping as a JSON object'] });
  }
  const parsed = BankMappingSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const errors: FieldErrors = {};
  for (const issue of parsed.error.issues) (errors[['mapping', ...issue.path].join('.')] ??= []).push(issue.message);
  throw new ValidationError(`The mapping is invalid: ${Object.entries(errors).map(([k, v]) => `${k}: ${v[0]}`).join('; ')}`, errors);
}

export interface TableStatement {
  statement: ParsedStatement;
  mapping: BankMapping;
  headers: string[];
}

/** Reads the export through the mapping sent (JSON text), else the company's kept one. */
export async function tableStatement(db: Db, companyId: string, bytes: Buffer, format: TableFormat, mappingText: string | undefined): Promise<TableStatement> {
  const given = mappingText === undefined ? null : parseBankMapping(mappingText);
  const table = await readBankTable(bytes, format);
  const mapping = given ?? (await savedBankMapping(db, companyId, table.headers));
  if (!mapping) {
    const columns = table.headers.filter((h) => h.trim()).join(', ');
    throw new ValidationError(
      `A ${format.toUpperCase()} bank export needs a column mapping (which columns hold the date, the amount, the payer and the reference), and none kept from an earlier file fits its columns: ${columns}`,
      { mapping: ['A column mapping is needed for this file; the preview guesses one'] },
      'statement_mapping_required',
    );
  }
  return { statement: await readMappedInSlices(table, mapping, format), mapping, headers: table.headers };
}

/** Rows turned into entries between two turns of the event loop: a few ms, where 10,000 at once took 180 ms. */
const MAPPED_SLICE = 500;

async function readMappedInSlices(table: Table, mapping: BankMapping, format: TableFormat): Promise<ParsedStatement> {
  const slices = table.rows.length ? chunks(table.rows, MAPPED_SLICE) : [[]];
  const statement = readMappedStatement({ headers: table.headers, rows: slices[0] }, mapping, format);
  for (const rows of slices.slice(1)) {
    await yieldToEventLoop();
    for (const entry of readMappedStatement({ headers: table.headers, rows }, mapping, format).entries) statement.entries.push(entry);
    if (statement.entries.length > READ_LIMITS.entries) throw tooManyEntries();
  }
  const dates = statement.entries.map((e) => e.booked_on).sort();
  return { ...statement, period_start: dates[0] ?? null, period_end: dates[dates.length - 1] ?? null };
}

export const PREVIEW_ROWS = 5;

export interface BankTablePreview {
  format: TableFormat;
  headers: string[];
  rows: string[][];
  row_count: number;
  /** The mapping kept from an earlier file that fits this one (an import without a mapping uses it). */
  saved: BankMapping | null;
  guess: BankMappingGuess;
}

/** The export's first rows, the kept mapping that fits it and a guess: what the mapping dialog starts from. */
export async function previewBankTable(db: Db, companyId: string, bytes: Buffer, fileName: string | undefined): Promise<BankTablePreview> {
  const company = await db.selectFrom('companies').select('currency').where('id', '=', companyId).executeTakeFirst();
  if (!company) throw new NotFoundError('Company', companyId);
  checkSize(bytes);
  const format = detectStatementFormat(bytes, fileName);
  if (format !== 'csv' && format !== 'xlsx') throw new ValidationError(`A ${format} file has a fixed layout: import it as it is`, { file: ['Only a CSV or XLSX export has columns to map'] }, 'fixed_layout');
  const table = await readBankTable(bytes, format);
  return {
    format,
    headers: table.headers,
    rows: table.rows.slice(0, PREVIEW_ROWS).map((r) => table.headers.map((_, i) => cellText(r.cells[i]))),
    row_count: table.rows.length,
    saved: await savedBankMapping(db, companyId, table.headers),
    guess: guessBankMapping(table, company.currency),
  };
}
