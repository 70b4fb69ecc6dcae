/**
 * The import wizard's column choices as the import API's mapping. Pure: unit-tested directly.
 * Field names come from the core's own list (core/import/mapping.ts), so the wizard offers
 * exactly what an import reads.
 */
import type { Schemas } from '../api/client';
import { FIELDS } from '../../../core/import/fields';

export type Entity = NonNullable<Schemas['ImportMapping']['entity']>;
export type SectionName = keyof typeof FIELDS;
export type Mapping = Schemas['ImportMapping'];

export const ENTITY_LABELS: Record<Entity, string> = {
  'ar-rows': 'Invoices with their customers (one row per invoice)',
  customers: 'Customers',
  invoices: 'Invoices',
  payments: 'Payments',
};

export const SECTION_LABELS: Record<SectionName, string> = { customers: 'Customer', invoices: 'Invoice', payments: 'Payment' };

/** Fields that identify a row in another section: in a combined row the row itself says which. */
const COMBINED_REFUSED: Partial<Record<SectionName, string[]>> = {
  invoices: ['customer_remote_id', 'customer_name'],
  payments: ['invoice_number', 'invoice_remote_id'],
};

/** The fields a person maps for this entity, section by section. */
export function fieldsFor(entity: Entity): Array<{ section: SectionName; fields: string[] }> {
  const sections: SectionName[] = entity === 'ar-rows' ? ['customers', 'invoices', 'payments'] : [entity];
  return sections.map((section) => ({
    section,
    fields: Object.keys(FIELDS[section]).filter((f) => !(entity === 'ar-rows' && COMBINED_REFUSED[section]?.includes(f))),
  }));
}

/** "total_amount" -> "Total amount". */
export function fieldLabel(field: string): string {
  const text = field.replace(/_/g, ' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export interface MappingChoice {
  entity: Entity;
  /** "section.field" -> the file's column name; unmapped fields are absent. */
  columns: Record<string, string>;
  date: 'YYYY-MM-DD' | 'M/D/YYYY' | 'D/M/YYYY';
  decimal: '.' | ',';
}

/** The mapping the import API takes; sections without a mapped field are left out. */
export function buildMapping(choice: MappingChoice): Mapping {
  const mapping: Record<string, unknown> = { entity: choice.entity, formats: { date: choice.date, decimal: choice.decimal } };
  for (const { section, fields } of fieldsFor(choice.entity)) {
    const mapped = Object.fromEntries(fields.flatMap((f) => (choice.columns[`${section}.${f}`] ? [[f, choice.columns[`${section}.${f}`]]] : [])));
    if (Object.keys(mapped).length) mapping[section] = mapped;
  }
  return mapping as Mapping;
}

/**
 * A first guess from the headers: a column whose name matches a field's name or words
 * (case, spaces and underscores ignored) is picked. The person checks every choice in the preview.
 */
export function guessColumns(entity: Entity, headers: string[]): Record<string, string> {
  const norm = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '');
  const byName = new Map(headers.map((h) => [norm(h), h]));
  const guessed: Record<string, string> = {};
  for (const { section, fields } of fieldsFor(entity)) {
    for (const f of fields) {
      const hit = byName.get(norm(f)) ?? byName.get(norm(`${section.replace(/s$/, '')}_${f}`));
      if (hit) guessed[`${section}.${f}`] = hit;
    }
  }
  return guessed;
}
