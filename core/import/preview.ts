/** The first rows of an uploaded file as text, so a person can map columns before importing. */
import { cellText, detectFormat, type FileFormat, readTable, type TextEncoding } from './table';

export const PREVIEW_ROWS = 5;

export interface TablePreview {
  format: FileFormat;
  headers: string[];
  rows: string[][];
  row_count: number;
}

export async function previewFile(bytes: Uint8Array, options: { format?: FileFormat; sheet?: string; delimiter?: string; encoding?: TextEncoding }): Promise<TablePreview> {
  const table = await readTable(bytes, options);
  const width = table.headers.length;
  return {
    format: options.format ?? detectFormat(bytes),
    headers: table.headers,
    rows: table.rows.slice(0, PREVIEW_ROWS).map((r) => Array.from({ length: width }, (_, i) => cellText(r.cells[i]))),
    row_count: table.rows.length,
  };
}
