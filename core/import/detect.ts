/**
 * Which built-in preset a file is written for, from its first rows: a report's title rows come
 * before its header, and a European export separates columns with semicolons.
 */
import { parseCsv } from './csv';
import { IMPORT_LIMITS } from './limits';
import { detectPreset } from './mappings/index';
import { HEADER_SEARCH_ROWS } from './layout';
import { cellText, decodeText, type FileFormat, readTable, type TextEncoding } from './table';

/** Enough of a text file to hold a title block and a header. */
const HEAD_BYTES = 64 * 1024;
const DELIMITERS = [',', ';', '\t'] as const;

export async function detectFilePreset(bytes: Uint8Array, options: { format: FileFormat; sheet?: string; encoding?: TextEncoding }): Promise<string | null> {
  if (options.format === 'xlsx') {
    const table = await readTable(bytes, { format: 'xlsx', sheet: options.sheet });
    return detectPreset([table.headers, ...table.rows.slice(0, HEADER_SEARCH_ROWS).map((r) => r.cells.map((c) => cellText(c)))]);
  }
  let head: string;
  try {
    head = decodeText(bytes.subarray(0, HEAD_BYTES), options.encoding ?? 'utf-8');
  } catch {
    // The cut may split a character: the last line is dropped below anyway.
    head = new TextDecoder(options.encoding ?? 'utf-8').decode(bytes.subarray(0, HEAD_BYTES));
  }
  const lines = head.split(/\r\n|\n|\r/);
  const text = (bytes.length > HEAD_BYTES ? lines.slice(0, -1) : lines).slice(0, HEADER_SEARCH_ROWS + 1).join('\n');
  for (const delimiter of DELIMITERS) {
    let records: string[][];
    try {
      records = parseCsv(text, delimiter, IMPORT_LIMITS).map((r) => r.fields);
    } catch {
      continue;
    }
    const found = detectPreset(records);
    if (found) return found;
  }
  return null;
}
