/**
 * A mapping's "auto" date format decided from the file: the format every date of every mapped
 * date column reads in. Where both fit (no day above 12 anywhere) the guess is month first, as the
 * wizard's, and the report says so.
 */
import { FIELDS, type FieldDef, type Section } from './fields';
import { dateFormatsOf } from './guess';
import type { FieldSpec, Mapping } from './mapping';
import { cellText, type Table } from './table';
import type { DateFormat } from './values';

export interface FileDateFormat {
  format: DateFormat;
  /** Both day first and month first read every date. */
  ambiguous: boolean;
}

function columnOf(spec: FieldSpec | undefined): string | null {
  if (spec === undefined) return null;
  if (typeof spec === 'string') return spec;
  return 'column' in spec ? spec.column : null;
}

/** The mapped date columns' header names. */
function dateColumns(mapping: Mapping): string[] {
  const out: string[] = [];
  for (const section of ['customers', 'invoices', 'payments'] as Section[]) {
    const fields = mapping[section] as Record<string, FieldSpec | undefined> | undefined;
    if (!fields) continue;
    for (const [field, spec] of Object.entries(fields)) {
      if ((FIELDS[section] as Record<string, FieldDef>)[field]?.kind !== 'date') continue;
      const column = columnOf(spec);
      if (column) out.push(column);
    }
  }
  return out;
}

export function fileDateFormat(mapping: Mapping, table: Table): FileDateFormat {
  const wanted = new Set(dateColumns(mapping).map((c) => c.trim().toLowerCase()));
  const indexes = table.headers.flatMap((h, i) => (wanted.has(h.trim().toLowerCase()) ? [i] : []));
  let fits = new Set<DateFormat>(['M/D/YYYY', 'D/M/YYYY']);
  let slashed = false;
  for (const { cells } of table.rows) {
    for (const i of indexes) {
      const cell = cells[i];
      // Workbook dates and ISO text read the same in every format.
      if (cell instanceof Date || typeof cell === 'number') continue;
      const text = cellText(cell ?? null).trim();
      if (text === '') continue;
      const read = dateFormatsOf(text);
      if (read.length === 0 || read.includes('YYYY-MM-DD')) continue;
      slashed = true;
      fits = new Set(read.filter((f) => fits.has(f)));
    }
    if (fits.size < 2) break;
  }
  if (!slashed) return { format: 'YYYY-MM-DD', ambiguous: false };
  if (fits.size === 1) return { format: [...fits][0], ambiguous: false };
  return { format: 'M/D/YYYY', ambiguous: fits.size === 2 };
}

/** The mapping with its "auto" date format replaced by the file's; any other mapping as it is. */
export function withFileDates(mapping: Mapping, table: Table): { mapping: Mapping; dates: FileDateFormat | null } {
  if (mapping.formats?.date !== 'auto') return { mapping, dates: null };
  const dates = fileDateFormat(mapping, table);
  return { mapping: { ...mapping, formats: { ...mapping.formats, date: dates.format } }, dates };
}
