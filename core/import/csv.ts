/**
 * An RFC 4180 CSV reader: quoted fields with doubled quotes, delimiters and line breaks inside
 * quotes, CRLF / LF / CR line ends, an optional byte-order mark. Small enough that a dependency
 * would add more surface than it saves.
 */
import { ValidationError } from '../errors';
import { IMPORT_LIMITS, overLimit, type ReadLimits } from './limits';

export interface CsvRecord {
  /** 1-based record number: the row number a spreadsheet shows for this line. */
  row: number;
  fields: string[];
}

const QUOTE = 34;
const CR = 13;
const LF = 10;

/** Parses the whole text; a malformed quote is a format error of the file (400), not a row error. */
export function parseCsv(input: string, delimiter = ',', limits: ReadLimits = IMPORT_LIMITS): CsvRecord[] {
  return [...csvRecords(input, delimiter, limits)];
}

/**
 * The records one at a time, blank ones skipped. The limits are checked as each field and line is
 * read, so an oversized file fails before it has cost more than the text it came in.
 */
export function* csvRecords(input: string, delimiter: string, limits: ReadLimits): Generator<CsvRecord> {
  const text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  const delim = delimiter.charCodeAt(0);
  let fields: string[] = [];
  let row = 1;
  let cells = 0;
  let i = 0;
  const n = text.length;
  if (n === 0) return;
  const close = (): CsvRecord | null => {
    if (!fields.some((f) => f !== '')) return null;
    cells += fields.length;
    if (cells > limits.cells) throw overLimit.cells(limits);
    return { row, fields };
  };
  for (;;) {
    // One field per iteration; i is at the field's first character.
    let value: string;
    if (i < n && text.charCodeAt(i) === QUOTE) {
      const startRow = row;
      let out = '';
      let from = i + 1;
      for (;;) {
        const q = text.indexOf('"', from);
        if (q < 0) throw new ValidationError(`The CSV file has a quoted field opened on row ${startRow} that is never closed`, { file: ['Unterminated quoted field'] });
        if (out.length + (q - from) > limits.cellChars) throw overLimit.cellChars(limits, startRow);
        out += text.slice(from, q);
        if (text.charCodeAt(q + 1) === QUOTE) {
          out += '"';
          from = q + 2;
          continue;
        }
        i = q + 1;
        break;
      }
      value = out;
      const next = i < n ? text.charCodeAt(i) : -1;
      if (next !== -1 && next !== delim && next !== CR && next !== LF) {
        throw new ValidationError(`The CSV file has text after a closing quote on row ${startRow}`, { file: ['Text after a closing quote'] });
      }
    } else {
      let j = i;
      while (j < n) {
        const c = text.charCodeAt(j);
        if (c === delim || c === CR || c === LF) break;
        j++;
      }
      if (j - i > limits.cellChars) throw overLimit.cellChars(limits, row);
      value = text.slice(i, j);
      i = j;
    }
    fields.push(value);
    if (fields.length > limits.columns) throw overLimit.columns(limits, row);
    if (i >= n) {
      const last = close();
      if (last) yield last;
      break;
    }
    const c = text.charCodeAt(i);
    if (c === delim) {
      i++;
      continue;
    }
    // A line end closes the record; a final line end does not open an empty one.
    i += c === CR && text.charCodeAt(i + 1) === LF ? 2 : 1;
    const record = close();
    if (record) yield record;
    fields = [];
    row++;
    if (row > limits.rows) throw overLimit.rows(limits);
    if (i >= n) break;
  }
}
