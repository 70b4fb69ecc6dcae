/**
 * The first rows of an uploaded file as text, so a person can map columns before importing, and
 * what each column holds, so the wizard can guess the mapping from the content as well as the names.
 */
import { type ColumnProfile, PROFILE_ROWS, profileColumns } from './guess';
import { cellText, detectFormat, type FileFormat, readTable, type TextEncoding } from './table';

export const PREVIEW_ROWS = 5;

export interface TablePreview {
  format: FileFormat;
  headers: string[];
  rows: string[][];
  row_count: number;
  columns: ColumnProfile[];
}

export async function previewFile(bytes: Uint8Array, options: { format?: FileFormat; sheet?: string; delimiter?: string; encoding?: TextEncoding }): Promise<TablePreview> {
  const table = await readTable(bytes, options);
  const width = table.headers.length;
  const asText = (cells: (typeof table.rows)[number]['cells']) => Array.from({ length: width }, (_, i) => cellText(cells[i]));
  const sample = table.rows.slice(0, PROFILE_ROWS).map((r) => asText(r.cells));
  return {
    format: options.format ?? detectFormat(bytes),
    headers: table.headers,
    rows: sample.slice(0, PREVIEW_ROWS),
    row_count: table.rows.length,
    columns: profileColumns(table.headers, sample),
  };
}
