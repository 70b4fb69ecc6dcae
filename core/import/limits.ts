/**
 * How much of an uploaded file an import reads. Every limit is checked while reading, so a file
 * over one is refused (413) before the rows it would build exist: a file of blank lines, of
 * thousands of columns or of one huge cell costs no more than the bytes already received.
 */
import { DomainError } from '../errors';

export interface ReadLimits {
  /** Lines (CSV) or rows (XLSX) read, header and blank ones included. */
  rows: number;
  /** Columns of any row. */
  columns: number;
  /** Characters of one cell. */
  cellChars: number;
  /** Cells over the whole file (XLSX: over all its sheets). */
  cells: number;
  /** XLSX: bytes of the sheets' and shared strings' XML once unpacked. */
  unpackedBytes: number;
}

export const IMPORT_LIMITS: ReadLimits = {
  rows: 200_000,
  columns: 200,
  cellChars: 32_767,
  cells: 1_000_000,
  unpackedBytes: 200 * 1024 * 1024,
};

export class FileTooLargeError extends DomainError {
  constructor(message: string) {
    super(413, 'file_too_large', message, { file: [message] });
  }
}

const count = (n: number) => n.toLocaleString('en-US');

export const overLimit = {
  rows: (limits: ReadLimits) => new FileTooLargeError(`The file has more than ${count(limits.rows)} rows (empty ones count); split it into smaller files`),
  columns: (limits: ReadLimits, row: number) => new FileTooLargeError(`Row ${count(row)} has more than ${count(limits.columns)} columns`),
  cellChars: (limits: ReadLimits, row: number) => new FileTooLargeError(`A cell on row ${count(row)} has more than ${count(limits.cellChars)} characters`),
  cells: (limits: ReadLimits) => new FileTooLargeError(`The file has more than ${count(limits.cells)} cells; split it into smaller files`),
  unpackedBytes: (limits: ReadLimits) => new FileTooLargeError(`The workbook unpacks to more than ${count(limits.unpackedBytes / 1024 / 1024)} MB of sheets; split it into smaller files`),
};
