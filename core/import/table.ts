/**
 * A file as a table: the header row's column names and the data rows with their row numbers.
 * CSV cells are text; XLSX cells keep the type the workbook stored (number, date, boolean).
 */
import { Readable } from 'node:stream';
import type ExcelJS from 'exceljs';
import { ValidationError } from '../errors';
import { yieldToEventLoop } from '../yielding';
import { csvRecords } from './csv';
import { FileTooLargeError, IMPORT_LIMITS, overLimit, type ReadLimits } from './limits';
import { checkWorkbook, unreadable } from './xlsx-scan';

export type Cell = string | number | boolean | Date | null;

export interface TableRow {
  /** The row number a spreadsheet shows (the header is row 1 in a CSV file). */
  row: number;
  cells: Cell[];
}

export interface Table {
  headers: string[];
  /** Row number of the header, for messages. */
  headerRow: number;
  rows: TableRow[];
}

export type FileFormat = 'csv' | 'xlsx';
export type TextEncoding = 'utf-8' | 'windows-1252';

export interface ReadOptions {
  format?: FileFormat;
  sheet?: string;
  delimiter?: string;
  encoding?: TextEncoding;
  limits?: ReadLimits;
}

/** XLSX files are ZIP archives; anything else is read as delimited text. */
export function detectFormat(bytes: Uint8Array): FileFormat {
  return bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04 ? 'xlsx' : 'csv';
}

export async function readTable(bytes: Uint8Array, options: ReadOptions = {}): Promise<Table> {
  const format = options.format ?? detectFormat(bytes);
  const limits = options.limits ?? IMPORT_LIMITS;
  if (format === 'xlsx') {
    await checkWorkbook(bytes, limits);
    return readXlsx(bytes, options.sheet, limits);
  }
  if (options.sheet !== undefined) throw new ValidationError('A CSV file has no sheets', { sheet: ['Only an XLSX file has sheets'] });
  return readCsvTable(decodeText(bytes, options.encoding ?? 'utf-8'), options.delimiter ?? ',', limits);
}

export function decodeText(bytes: Uint8Array, encoding: TextEncoding): string {
  try {
    return new TextDecoder(encoding, { fatal: true }).decode(bytes);
  } catch {
    throw new ValidationError(`The file is not ${encoding} text`, { file: [`Not valid ${encoding} text; set formats.encoding to the file's encoding`] });
  }
}

/** Records read per turn of the event loop. */
const READ_SLICE = 5_000;

export async function readCsvTable(text: string, delimiter: string, limits: ReadLimits = IMPORT_LIMITS): Promise<Table> {
  let header: { row: number; fields: string[] } | undefined;
  const rows: TableRow[] = [];
  for (const record of csvRecords(text, delimiter, limits)) {
    if (header === undefined) header = record;
    else rows.push({ row: record.row, cells: record.fields });
    if (rows.length % READ_SLICE === 0) await yieldToEventLoop();
  }
  if (header === undefined) throw new ValidationError('The file is empty', { file: ['No header row'] });
  return { headers: header.fields.map((h) => h.trim()), headerRow: header.row, rows };
}

const READ_ATTEMPTS = 3;

/**
 * Reads one sheet as a stream of rows (exceljs's WorkbookReader): no workbook object per cell is
 * built, and the limits are checked row by row as for CSV, so memory follows the rows kept.
 */
async function readXlsx(bytes: Uint8Array, sheetName: string | undefined, limits: ReadLimits): Promise<Table> {
  let read: SheetRead | undefined;
  for (let attempt = 1; !read; attempt++) {
    try {
      read = await readSheet(bytes, sheetName, limits);
    } catch (err) {
      if (err instanceof FileTooLargeError) throw err;
      // Under load exceljs's reader rarely loses a part of the archive ("reading 'sheets'" of a
      // workbook it did not read: 1 read in 6,000 alone, twice running once in a loaded suite). The
      // bytes are here, so a workbook is read three times, a moment apart, before it is called unreadable.
      if (attempt === READ_ATTEMPTS) throw unreadable();
      await new Promise((resume) => setTimeout(resume, 20 * attempt));
    }
  }
  const { seen, found, rows } = read;
  if (!found) {
    throw new ValidationError(sheetName === undefined ? 'The workbook has no sheets' : `The workbook has no sheet named ${sheetName}`, {
      sheet: [sheetName === undefined ? 'No sheets' : `No such sheet; the sheets are: ${seen.join(', ')}`],
    });
  }
  if (rows.length === 0) throw new ValidationError('The sheet is empty', { file: ['No header row'] });
  const [header, ...data] = rows;
  return { headers: header.cells.map((c) => cellText(c)), headerRow: header.row, rows: data };
}

interface SheetRead {
  /** The workbook's sheet names, in order. */
  seen: string[];
  found: boolean;
  rows: TableRow[];
}

async function readSheet(bytes: Uint8Array, sheetName: string | undefined, limits: ReadLimits): Promise<SheetRead> {
  // Loaded on the first workbook read: exceljs is the slowest package to load, and most runs read none.
  const { stream } = (await import('exceljs')).default;
  const reader = new stream.xlsx.WorkbookReader(Readable.from([Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)]), {
    worksheets: 'emit',
    sharedStrings: 'cache',
    // Styles tell a date cell from a number cell.
    styles: 'cache',
    hyperlinks: 'ignore',
    entries: 'ignore',
  });
  const read: SheetRead = { seen: [], found: false, rows: [] };
  let cells = 0;
  for await (const sheet of reader) {
    const name = (sheet as unknown as { name: string }).name;
    read.seen.push(name);
    const first = (reader as unknown as { model?: { sheets?: Array<{ name: string }> } }).model?.sheets?.[0]?.name;
    if (read.found || name !== (sheetName ?? first ?? name)) {
      await readToEnd(sheet);
      continue;
    }
    read.found = true;
    for await (const row of sheet) {
      if (row.number > limits.rows) throw overLimit.rows(limits);
      const values: Cell[] = [];
      row.eachCell({ includeEmpty: false }, (cell, col) => {
        if (col > limits.columns) throw overLimit.columns(limits, row.number);
        const value = xlsxCell(cell.value);
        if (typeof value === 'string' && value.length > limits.cellChars) throw overLimit.cellChars(limits, row.number);
        values[col - 1] = value;
      });
      for (let i = 0; i < values.length; i++) values[i] ??= null;
      cells += values.length;
      if (cells > limits.cells) throw overLimit.cells(limits);
      if (values.some((c) => c !== null && c !== '')) read.rows.push({ row: row.number, cells: values });
      if (read.rows.length % READ_SLICE === 0) await yieldToEventLoop();
    }
  }
  return read;
}

/**
 * Reads a sheet that is not wanted to its end. exceljs keeps a sheet that comes before the shared
 * strings in a temporary file, opens it when the sheet is handed out and deletes it when the next
 * one is asked for: a sheet left unread was opened after its file was gone, an error nothing could
 * catch (it ended the process) or a good workbook refused.
 */
async function readToEnd(sheet: AsyncIterable<unknown>): Promise<void> {
  for await (const _row of sheet);
}

/** Flattens exceljs values: formulas to their result, rich text and hyperlinks to their text. */
function xlsxCell(value: ExcelJS.CellValue): Cell {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' || value instanceof Date) return value;
  if ('richText' in value) return value.richText.map((r) => r.text).join('');
  if ('formula' in value || 'sharedFormula' in value) return xlsxCell((value.result ?? null) as ExcelJS.CellValue);
  if ('text' in value) return typeof value.text === 'string' ? value.text : xlsxCell(value.text as ExcelJS.CellValue);
  if ('error' in value) return String(value.error);
  return null;
}

/** A cell as trimmed text (dates as YYYY-MM-DD), for text fields and messages. */
export function cellText(cell: Cell | undefined): string {
  if (cell === null || cell === undefined) return '';
  if (cell instanceof Date) return cell.toISOString().slice(0, 10);
  return String(cell).trim();
}
