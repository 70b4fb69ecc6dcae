/**
 * The first rows of an uploaded file as text, so a person can map columns before importing, and
 * what each column holds, so the wizard can guess the mapping from the content as well as the names.
 * A file some preset knows is shown as that preset reads it: its real header, without title rows,
 * headings and totals.
 */
import { detectFilePreset } from './detect';
import { type ColumnProfile, PROFILE_ROWS, profileColumns } from './guess';
import { shapeTable } from './layout';
import { PRESET_LABELS, PRESETS } from './mappings/index';
import { cellText, detectFormat, type FileFormat, readTable, type TextEncoding } from './table';

export const PREVIEW_ROWS = 5;

export interface TablePreview {
  format: FileFormat;
  preset: string | null;
  preset_label: string | null;
  headers: string[];
  rows: string[][];
  row_count: number;
  columns: ColumnProfile[];
}

export async function previewFile(bytes: Uint8Array, options: { format?: FileFormat; sheet?: string; delimiter?: string; encoding?: TextEncoding }): Promise<TablePreview> {
  const format = options.format ?? detectFormat(bytes);
  const preset = await detectFilePreset(bytes, { format, sheet: options.sheet, encoding: options.encoding });
  const formats = preset ? PRESETS[preset].formats : undefined;
  const raw = await readTable(bytes, { ...options, delimiter: options.delimiter ?? formats?.delimiter, encoding: options.encoding ?? formats?.encoding });
  const { table } = shapeTable(raw, preset ? PRESETS[preset].layout : undefined);
  const width = table.headers.length;
  const asText = (cells: (typeof table.rows)[number]['cells']) => Array.from({ length: width }, (_, i) => cellText(cells[i]));
  const sample = table.rows.slice(0, PROFILE_ROWS).map((r) => asText(r.cells));
  return {
    format,
    preset,
    preset_label: preset ? PRESET_LABELS[preset] : null,
    headers: table.headers,
    rows: sample.slice(0, PREVIEW_ROWS),
    row_count: table.rows.length,
    columns: profileColumns(table.headers, sample),
  };
}
