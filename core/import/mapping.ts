/**
 * The column mapping: for each entity, which column of the file (or which constant or template)
 * fills each of our fields, and how the file writes dates, decimals and yes/no values.
 */
// zod as @hono/zod-openapi extends it: the HTTP layer names this schema in the OpenAPI document,
// and the preview may load this module before any route does.
import { z } from '@hono/zod-openapi';
import { type FieldErrors, ValidationError } from '../errors';
import type { LabelMeaning } from '../db/schema';
import { LABEL_MEANINGS, MAX_LABEL_NAME } from '../labels/labels';
import { type Cell, cellText, type Table } from './table';
import { FIELDS, type FieldName, fieldWords, type Section } from './fields';
import { type BooleanWords, DATE_FORMATS, type DateFormat, type DecimalSeparator, DEFAULT_BOOLEAN_WORDS, type Parsed } from './values';

export const ENTITIES = ['customers', 'invoices', 'payments', 'ar-rows'] as const;
export type Entity = (typeof ENTITIES)[number];

export { FIELDS, type FieldDef, type FieldKind, type FieldName, type Section } from './fields';

const FieldSpecSchema = z.union(
  [
    z.string().min(1),
    z.object({ column: z.string().min(1), values: z.record(z.string(), z.string()).optional(), default: z.string().optional() }).strict(),
    z.object({ template: z.string().min(1) }).strict(),
    z.object({ value: z.string() }).strict(),
  ],
  { error: 'Give a column name, or an object with column (and optional values, default), template, or value' },
);
export type FieldSpec = z.infer<typeof FieldSpecSchema>;

function sectionSchema<S extends Section>(section: S) {
  const shape = Object.fromEntries(Object.keys(FIELDS[section]).map((f) => [f, FieldSpecSchema.optional()])) as Record<FieldName<S>, z.ZodOptional<typeof FieldSpecSchema>>;
  return z.object(shape).strict();
}

const LabelRuleSchema = z
  .object({
    label: z.string().trim().min(1).max(MAX_LABEL_NAME),
    column: z.string().min(1),
    /** Without it, the label applies when the cell is a yes word; with it, when the cell equals it. */
    equals: z.string().optional(),
    /** What the label means to the engine when the import creates it; an existing label keeps its own. */
    meaning: z.enum(LABEL_MEANINGS).optional(),
  })
  .strict();
export type LabelRule = z.infer<typeof LabelRuleSchema>;

export const MappingSchema = z
  .object({
    entity: z.enum(ENTITIES).optional(),
    formats: z
      .object({
        /** auto: day first or month first as the file's dates show (core/import/dates-of-file.ts). */
        date: z.enum([...DATE_FORMATS, 'auto']).optional(),
        decimal: z.enum(['.', ',']).optional(),
        true: z.array(z.string().trim().min(1)).min(1).optional(),
        false: z.array(z.string().trim().min(1)).min(1).optional(),
        delimiter: z.enum([',', ';', '\t', '|']).optional(),
        encoding: z.enum(['utf-8', 'windows-1252']).optional(),
      })
      .strict()
      .optional(),
    layout: z
      .object({
        header_with: z.array(z.string().trim().min(1).max(200)).min(1).max(20).optional(),
        data_when: z.string().trim().min(1).max(200).optional(),
        heading_as: z.string().trim().min(1).max(200).optional(),
        sum_lines: z.boolean().optional(),
        negative_is_credit: z.boolean().optional(),
      })
      .strict()
      .optional(),
    customers: sectionSchema('customers').optional(),
    invoices: sectionSchema('invoices')
      .extend({ labels: z.array(LabelRuleSchema).max(50).optional() })
      .strict()
      .optional(),
    payments: sectionSchema('payments').optional(),
  })
  .strict();
export type Mapping = z.infer<typeof MappingSchema>;

export interface Formats {
  date: DateFormat;
  decimal: DecimalSeparator;
  booleans: BooleanWords;
  delimiter: string;
  encoding: 'utf-8' | 'windows-1252';
}

/** Checks a mapping's shape (a JSON file or request field); problems are a 400 with paths. */
export function validateMapping(input: unknown): Mapping {
  const result = MappingSchema.safeParse(input);
  if (result.success) return result.data;
  const errors: FieldErrors = {};
  for (const issue of result.error.issues) (errors[['mapping', ...issue.path].join('.')] ??= []).push(issue.message);
  throw new ValidationError('The mapping is invalid', errors);
}

export function formatsOf(mapping: Mapping): Formats {
  const f = mapping.formats ?? {};
  return {
    // An "auto" format still unresolved (no date column read) falls back as the guess does.
    date: f.date === 'auto' ? 'M/D/YYYY' : (f.date ?? 'YYYY-MM-DD'),
    decimal: f.decimal ?? '.',
    booleans: { true: f.true ?? DEFAULT_BOOLEAN_WORDS.true, false: f.false ?? DEFAULT_BOOLEAN_WORDS.false },
    delimiter: f.delimiter ?? ',',
    encoding: f.encoding ?? 'utf-8',
  };
}

/** Reads one field's raw cell from a row; `column` names the file column for row errors. */
export interface Getter {
  column: string | null;
  /** True when the value comes from the file (not a constant). */
  fromFile: boolean;
  read(cells: Cell[]): Parsed<Cell>;
}

export interface CompiledLabelRule {
  label: string;
  column: string;
  index: number;
  equals?: string;
  meaning?: LabelMeaning;
}

export interface CompiledMapping {
  entity: Entity;
  formats: Formats;
  customers?: Partial<Record<FieldName<'customers'>, Getter>>;
  invoices?: Partial<Record<FieldName<'invoices'>, Getter>>;
  payments?: Partial<Record<FieldName<'payments'>, Getter>>;
  labels: CompiledLabelRule[];
  columnCount: number;
  /** Rows of one invoice are its lines: their totals add up. */
  sumLines: boolean;
  /** A negative total is a credit note (else a row error). */
  negativeIsCredit: boolean;
}

/** Which sections an entity reads, which fields each requires, and which it refuses. */
const RULES: Record<Entity, Array<{ section: Section; optional?: boolean; required: string[]; oneOf?: string[]; refused?: string[] }>> = {
  customers: [{ section: 'customers', required: [], oneOf: ['remote_id', 'name'] }],
  invoices: [{ section: 'invoices', required: ['invoice_number', 'invoice_date', 'total_amount'], oneOf: ['customer_remote_id', 'customer_name'] }],
  payments: [{ section: 'payments', required: ['amount', 'payment_date'], oneOf: ['invoice_number', 'invoice_remote_id'] }],
  'ar-rows': [
    { section: 'customers', required: [], oneOf: ['remote_id', 'name'] },
    { section: 'invoices', required: ['invoice_number', 'invoice_date', 'total_amount'], refused: ['customer_remote_id', 'customer_name'] },
    { section: 'payments', optional: true, required: ['amount', 'payment_date'], refused: ['invoice_number', 'invoice_remote_id'] },
  ],
};

const lowerFirst = (text: string) => text.charAt(0).toLowerCase() + text.slice(1);

/** Fields in words: ["invoice_number", "remote_id|name"] -> "the invoice number and the customer ID or the customer name". */
function inWords(section: Section, fields: string[]): string {
  const one = (f: string) =>
    f
      .split('|')
      .map((g) => `the ${lowerFirst(fieldWords(section, g))}`)
      .join(' or ');
  const parts = fields.map(one);
  return parts.length > 1 ? `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}` : parts[0];
}

/** Finds a header: exactly, else case-insensitively when that is unambiguous. */
function columnIndex(headers: string[], name: string): number | string {
  const exact = headers.flatMap((h, i) => (h === name.trim() ? [i] : []));
  if (exact.length === 1) return exact[0];
  if (exact.length > 1) return `The column "${name}" appears more than once in the file`;
  const loose = headers.flatMap((h, i) => (h.toLowerCase() === name.trim().toLowerCase() ? [i] : []));
  if (loose.length === 1) return loose[0];
  return `The file has no column "${name}"; its columns are: ${headers.filter((h) => h !== '').join(', ')}`;
}

/** Kinds whose values ledgers write in words the import knows: a value map names only the odd ones, the rest read as written. */
const WORDED_KINDS = new Set(['invoice_status', 'document_type']);

function compileSpec(spec: FieldSpec, headers: string[], path: string, errors: FieldErrors, worded = false): Getter | null {
  const fail = (message: string) => {
    (errors[path] ??= []).push(message);
    return null;
  };
  if (typeof spec === 'string' || 'column' in spec) {
    const column = typeof spec === 'string' ? spec : spec.column;
    const index = columnIndex(headers, column);
    if (typeof index === 'string') return fail(index);
    const values = typeof spec === 'string' ? undefined : spec.values;
    const fallback = typeof spec === 'string' ? undefined : spec.default;
    const lookup = values ? new Map(Object.entries(values).map(([k, v]) => [k.trim().toLowerCase(), v])) : null;
    return {
      column: headers[index],
      fromFile: true,
      read(cells) {
        const cell = cells[index] ?? null;
        const text = cellText(cell);
        if (text === '') return { ok: true, value: fallback ?? null };
        if (!lookup) return { ok: true, value: cell };
        const mapped = lookup.get(text.toLowerCase());
        if (mapped === undefined && worded) return { ok: true, value: cell };
        if (mapped === undefined) return { ok: false, message: `"${text}" is not one of ${Object.keys(values!).join(', ')}` };
        return { ok: true, value: mapped };
      },
    };
  }
  if ('template' in spec) {
    const parts = spec.template.split(/\{([^{}]+)\}/);
    const refs: Array<{ index: number }> = [];
    for (let i = 1; i < parts.length; i += 2) {
      const index = columnIndex(headers, parts[i]);
      if (typeof index === 'string') return fail(index);
      refs.push({ index });
    }
    if (refs.length === 0) return fail('A template names at least one {column}');
    return {
      column: headers[refs[0].index],
      fromFile: true,
      read(cells) {
        let out = '';
        for (let i = 0; i < parts.length; i++) {
          if (i % 2 === 0) {
            out += parts[i];
            continue;
          }
          const text = cellText(cells[refs[(i - 1) / 2].index] ?? null);
          // A template over an empty cell is empty, so "pay-{id}" never yields a bare "pay-".
          if (text === '') return { ok: true, value: null };
          out += text;
        }
        return { ok: true, value: out };
      },
    };
  }
  const constant = spec.value;
  return { column: null, fromFile: false, read: () => ({ ok: true, value: constant }) };
}

/**
 * Binds a mapping to a file's headers for one entity. Everything wrong with the mapping itself
 * (a missing column, a required field left unmapped) is one 400 listing every problem.
 */
export function compileMapping(mapping: Mapping, entity: Entity, table: Pick<Table, 'headers'>): CompiledMapping {
  const errors: FieldErrors = {};
  const compiled: CompiledMapping = { entity, formats: formatsOf(mapping), labels: [], columnCount: table.headers.length, sumLines: mapping.layout?.sum_lines ?? false, negativeIsCredit: mapping.layout?.negative_is_credit ?? false };
  for (const rule of RULES[entity]) {
    const section = mapping[rule.section];
    if (!section) {
      if (!rule.optional) (errors[`mapping.${rule.section}`] ??= []).push(`Choose the columns that hold ${inWords(rule.section, [...rule.required, ...(rule.oneOf ? [rule.oneOf.join('|')] : [])])}`);
      continue;
    }
    const getters: Record<string, Getter> = {};
    for (const [field, spec] of Object.entries(section)) {
      if (field === 'labels' || spec === undefined) continue;
      const path = `mapping.${rule.section}.${field}`;
      if (rule.refused?.includes(field)) {
        (errors[path] ??= []).push(`${fieldWords(rule.section, field)} is not read from a row that holds its own ${field.startsWith('customer') ? 'customer' : 'invoice'}`);
        continue;
      }
      const kind = (FIELDS[rule.section] as Record<string, { kind: string }>)[field]?.kind;
      const getter = compileSpec(spec as FieldSpec, table.headers, path, errors, WORDED_KINDS.has(kind));
      if (getter) getters[field] = getter;
    }
    for (const field of rule.required) {
      if (!(field in section)) (errors[`mapping.${rule.section}.${field}`] ??= []).push(`Choose the column that holds the ${lowerFirst(fieldWords(rule.section, field))}: it is required`);
    }
    if (rule.oneOf && !rule.oneOf.some((f) => f in section)) {
      (errors[`mapping.${rule.section}`] ??= []).push(`Choose the column that holds ${inWords(rule.section, [rule.oneOf.join('|')])}, to know the ${rule.section === 'payments' ? 'invoice' : 'customer'}`);
    }
    (compiled as unknown as Record<string, unknown>)[rule.section] = getters;
  }
  if (compiled.invoices) {
    for (const [i, rule] of (mapping.invoices?.labels ?? []).entries()) {
      const index = columnIndex(table.headers, rule.column);
      if (typeof index === 'string') (errors[`mapping.invoices.labels.${i}.column`] ??= []).push(index);
      else compiled.labels.push({ label: rule.label, column: table.headers[index], index, ...(rule.equals !== undefined ? { equals: rule.equals } : {}), ...(rule.meaning ? { meaning: rule.meaning } : {}) });
    }
  }
  if (Object.keys(errors).length) throw new ValidationError('The mapping does not fit the file', errors);
  return compiled;
}
