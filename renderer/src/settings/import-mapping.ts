/**
 * The import wizard's words and choices. The guess and the mapping it builds are the core's own
 * (core/import/guess.ts), so the wizard offers exactly what an import reads and the unit tests of
 * the guess cover what a person sees here.
 */
import type { Schemas } from '../api/client';
import { FIELDS, type FieldDef } from '../../../core/import/fields';
import { COMBINED_REFUSED, type MappingChoice, requiredWith, type ValueTarget } from '../../../core/import/guess';
import type { InvoiceStatus } from '../../../core/import/statuses';

export { buildMapping, guessChoice, guessDateFormat, type MappingChoice, type ValueMap, type ValueTarget, valueTargets } from '../../../core/import/guess';

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

export const VALUE_TARGET_LABELS: Record<ValueTarget, string> = {
  label: 'A label on the invoice',
  invoice_status: 'The invoice status',
  status: 'The payment status',
  payment_method: 'The payment method',
};

/** The invoice statuses a value map offers (core/import/statuses.ts), in words. */
export { INVOICE_STATUSES } from '../../../core/import/statuses';
export const INVOICE_STATUS_WORDS: Record<InvoiceStatus, string> = {
  open: 'Open',
  partial: 'Partly paid (open)',
  paid: 'Paid: closed',
  void: 'Void: not imported',
  draft: 'Draft: not imported',
  credit: 'Credit note',
};

/** The statuses a value map offers: exactly those the import reads (core/import/statuses.ts). */
export { IMPORT_STATUSES } from '../../../core/import/statuses';

/** A refund or a reversal imports as VOIDED: the spec has no refund status (core/SPEC-DECISIONS.md, Import). */
export const IMPORT_STATUS_WORDS: Record<Schemas['Payment']['status'], string> = {
  PAID: 'Paid',
  PARTIAL: 'Partial',
  PENDING: 'Pending',
  FAILED: 'Failed',
  VOIDED: 'Voided (refunded or reversed)',
};

export const DATE_FORMAT_LABELS: Record<MappingChoice['date'], string> = { 'YYYY-MM-DD': '2026-01-31', 'M/D/YYYY': '1/31/2026 (month first)', 'D/M/YYYY': '31/1/2026 (day first)' };

/** The fields a person maps for this entity, section by section. */
export function fieldsFor(entity: Entity): Array<{ section: SectionName; fields: string[] }> {
  const sections: SectionName[] = entity === 'ar-rows' ? ['customers', 'invoices', 'payments'] : [entity];
  return sections.map((section) => ({
    section,
    fields: Object.keys(FIELDS[section]).filter((f) => !(entity === 'ar-rows' && COMBINED_REFUSED[section]?.includes(f))),
  }));
}

/** A field in words: "Invoice date". */
export function fieldLabel(section: SectionName, field: string): string {
  return (FIELDS[section] as Record<string, FieldDef>)[field]?.label ?? field;
}

/** Whether a field must have a column: alone ("required") or as one of a group ("this or …"). */
export function requirement(choice: MappingChoice, key: string): 'required' | 'one-of' | null {
  const group = requiredWith(choice.entity, choice.columns).find((g) => g.includes(key));
  if (!group) return null;
  return group.length === 1 ? 'required' : 'one-of';
}

/** What the person still has to choose, in words; empty when every required field has a column. */
export function missingFields(choice: MappingChoice): string[] {
  return requiredWith(choice.entity, choice.columns)
    .filter((group) => !group.some((key) => choice.columns[key]))
    .map((group) =>
      group
        .map((key) => {
          const [section, field] = key.split('.') as [SectionName, string];
          return fieldLabel(section, field);
        })
        .join(' or '),
    );
}
