import { createRoute, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { ValidationError } from '../../errors';
import { DATE_FORMATS } from '../../import/fields';
import { MAX_VALUES, PROFILE_ROWS } from '../../import/guess';
import { ENTITIES, MappingSchema } from '../../import/mapping';
import { type ImportReport, importOnOwnConnection, resolveMapping } from '../../import/import';
import { PRESET_LABELS, PRESETS } from '../../import/mappings/index';
import { PREVIEW_ROWS, previewFile } from '../../import/preview';
import { scopeOf } from '../context';
import type { AppEnv } from '../env';
import { CompanyParams, createRouter, json, problems, ProblemSchema, QueryBool, SECURITY, Text } from '../openapi';
import { problem, problemBody } from '../problem';

const TAGS = ['Extensions'];

export const Mapping = MappingSchema.openapi('ImportMapping', {
  description:
    'For each section (customers, invoices, payments), our field name to the file column that fills it: a header name, or {column, values?, default?}, {template: "text {Header}"}, or {value}. formats: date (YYYY-MM-DD, M/D/YYYY, D/M/YYYY), decimal ("." or ","), true/false words, CSV delimiter and encoding. invoices.labels: [{label, column, equals?}].',
});

const ImportForm = z
  .object({
    file: z.instanceof(File).openapi({ type: 'string', format: 'binary', description: 'The CSV or XLSX file (detected from its content), at most 50 MB' }),
    preset: z
      .enum(Object.keys(PRESETS) as [string, ...string[]])
      .optional()
      .openapi({ description: 'A built-in mapping (GET .../imports/presets lists them); give this, or mapping, or neither to have the preset recognised from the file\'s columns' }),
    mapping: Text(100_000).optional().openapi({ description: 'The ImportMapping as JSON text; give this, or preset, or neither' }),
    entity: z.enum(ENTITIES).optional().openapi({ description: "What each row is; overrides the mapping's entity" }),
    dry_run: QueryBool.optional().openapi({ description: 'true: check every row and report what would change, writing nothing' }),
    sheet: Text(100).min(1).optional().openapi({ description: 'XLSX: the sheet to read (default the first)' }),
    format: z.enum(['csv', 'xlsx']).optional().openapi({ description: 'Overrides detection from the content' }),
  })
  .openapi('ImportRequest');

const Counts = z.object({ created: z.number().int(), updated: z.number().int(), unchanged: z.number().int() }).openapi('ImportCounts');
const RowError = z
  .object({ row: z.number().int().openapi({ description: 'Row number as a spreadsheet shows it (header = row 1)' }), column: z.string().nullable(), message: z.string() })
  .openapi('ImportRowError');

const ImportResult = z
  .object({
    dry_run: z.boolean(),
    entity: z.enum(ENTITIES),
    preset: z.string().nullable().openapi({ description: 'The preset the file was recognised as, when neither mapping nor preset was given' }),
    rows: z.number().int().openapi({ description: 'Data rows read (titles, headings and totals of a report not counted)' }),
    counts: z.object({ customers: Counts, invoices: Counts, payments: Counts }),
    labels_created: z.array(z.string()),
    notes: z.array(z.string()).openapi({ description: 'What the import decided that the file does not say in so many words: the preset recognised, rows skipped, the date format read, paid invoices without a payment date' }),
    errors: z.array(RowError).openapi({ description: 'Every row error; on a real run any error means nothing was written' }),
  })
  .openapi('ImportResult');

const ImportRejected = ProblemSchema.extend({
  dry_run: z.boolean(),
  counts: ImportResult.shape.counts,
  row_errors: z.array(RowError),
}).openapi('ImportRejected');

const PresetList = z
  .object({ count: z.number().int(), data: z.array(z.object({ name: z.string(), label: z.string(), entity: z.enum(ENTITIES).optional(), mapping: Mapping })) })
  .openapi('ImportPresetList');

const PreviewForm = z
  .object({
    file: ImportForm.shape.file,
    sheet: ImportForm.shape.sheet,
    format: ImportForm.shape.format,
    delimiter: z.enum([',', ';', '\t', '|']).optional().openapi({ description: 'CSV: the column separator (default ,)' }),
    encoding: z.enum(['utf-8', 'windows-1252']).optional().openapi({ description: 'CSV: the text encoding (default utf-8)' }),
  })
  .openapi('ImportPreviewRequest');

const ColumnProfileSchema = z
  .object({
    header: z.string(),
    filled: z.number().int(),
    date: z.boolean(),
    date_formats: z.array(z.enum(DATE_FORMATS)).openapi({ description: 'The formats every date of the column reads in; two when day and month cannot be told apart' }),
    amount: z.boolean(),
    decimals: z.boolean(),
    decimal: z.enum(['.', ',']).nullable(),
    id: z.boolean(),
    text: z.boolean(),
    yes_no: z.boolean(),
    email: z.boolean(),
    unique: z.boolean(),
    values: z.array(z.string()).nullable().openapi({ description: `The distinct values when there are at most ${MAX_VALUES}` }),
  })
  .openapi('ImportColumnProfile');

const Preview = z
  .object({
    format: z.enum(['csv', 'xlsx']),
    preset: z.string().nullable().openapi({ description: "The built-in preset whose columns the file has; headers and rows are then read as that preset reads them (a report's title rows and totals left out)" }),
    preset_label: z.string().nullable(),
    headers: z.array(z.string()).openapi({ description: 'The header row: the names a mapping refers to' }),
    rows: z.array(z.array(z.string())).openapi({ description: `The first ${PREVIEW_ROWS} data rows as text, one cell per header` }),
    row_count: z.number().int().openapi({ description: 'Data rows in the file' }),
    columns: z
      .array(ColumnProfileSchema)
      .openapi({ description: `What each column's filled cells look like, over the first ${PROFILE_ROWS.toLocaleString('en-US')} rows: a mapping is guessed from these and the names` }),
  })
  .openapi('ImportPreview');

/** The route takes files only: a JSON body gets a 415 that says so. */
const multipartOnly: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (!(c.req.header('content-type') ?? '').toLowerCase().startsWith('multipart/form-data')) {
    return problem(415, 'unsupported_media_type', 'Send the file as multipart/form-data (fields: file, preset or mapping, entity, dry_run)');
  }
  await next();
};

const importRoute = createRoute({
  method: 'post',
  path: '/api/companies/{company_id}/imports',
  tags: TAGS,
  summary: 'Import customers, invoices and payments from a CSV or XLSX file',
  description:
    'Without mapping or preset, the file is read with the built-in preset whose columns it has (QuickBooks Online, Xero, Sage 50, NetSuite, SAP, Odoo, Zoho Books, FreshBooks exports); notes say which. Rows are matched to what the company has (customers by remote_id, else exact name; invoices by remote_id, else number; payments by remote_id, else invoice, date and amount), so importing the same file again changes nothing. A dry run reports every row error and the counts it would write. A real run writes in one transaction and only when no row has an error; otherwise it answers 400 with every row error and writes nothing.',
  security: SECURITY,
  middleware: [multipartOnly] as const,
  request: { params: CompanyParams, body: { required: true, content: { 'multipart/form-data': { schema: ImportForm } } } },
  responses: {
    200: json(ImportResult, 'What the import wrote, or for a dry run what it would write, and every row error'),
    400: { description: 'The file, the mapping, or (on a real run) some rows are invalid', content: { 'application/problem+json': { schema: ImportRejected } } },
    ...problems(401, 403, 404, 413, 429),
    415: { description: 'Not a multipart/form-data request', content: { 'application/problem+json': { schema: ProblemSchema } } },
  },
});

const previewRoute = createRoute({
  method: 'post',
  path: '/api/companies/{company_id}/imports/preview',
  tags: TAGS,
  summary: 'Read the header and first rows of a CSV or XLSX file, writing nothing',
  description: 'For mapping columns before a dry run: the column names and the first rows as text.',
  security: SECURITY,
  middleware: [multipartOnly] as const,
  request: { params: CompanyParams, body: { required: true, content: { 'multipart/form-data': { schema: PreviewForm } } } },
  responses: {
    200: json(Preview, 'The header and the first rows'),
    ...problems(400, 401, 403, 404, 413, 429),
    415: { description: 'Not a multipart/form-data request', content: { 'application/problem+json': { schema: ProblemSchema } } },
  },
});

const presetsRoute = createRoute({
  method: 'get',
  path: '/api/companies/{company_id}/imports/presets',
  tags: TAGS,
  summary: 'The built-in import mappings',
  security: SECURITY,
  request: { params: CompanyParams },
  responses: { 200: json(PresetList, 'Presets by name'), ...problems(401, 403, 404) },
});

function parseMappingText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new ValidationError('The mapping is not valid JSON', { mapping: ['Must be a JSON object'] });
  }
}

/** A real run with row errors is refused as a whole: problem+json carrying every row error. */
function rejected(report: ImportReport): Response {
  const errors: Record<string, string[]> = {};
  for (const e of report.errors) (errors[`row ${e.row}`] ??= []).push(e.column ? `${e.column}: ${e.message}` : e.message);
  const body = {
    ...problemBody(400, 'import_rejected', `${report.errors.length} row error(s): nothing was imported`, errors),
    dry_run: false,
    counts: report.counts,
    row_errors: report.errors,
  };
  return new Response(JSON.stringify(body), { status: 400, headers: { 'content-type': 'application/problem+json' } });
}

export function importRoutes() {
  const router = createRouter();
  router.openapi(importRoute, async (c) => {
    const form = c.req.valid('form');
    const mapping = resolveMapping({ preset: form.preset, mapping: form.mapping === undefined ? undefined : parseMappingText(form.mapping) });
    const report = await importOnOwnConnection(c.var.engine, {
      ...scopeOf(c),
      bytes: new Uint8Array(await form.file.arrayBuffer()),
      mapping,
      entity: form.entity,
      format: form.format,
      sheet: form.sheet,
      dryRun: form.dry_run ?? false,
    });
    if (!report.dry_run && report.errors.length) return rejected(report) as never;
    return c.json(report, 200);
  });
  router.openapi(previewRoute, async (c) => {
    const form = c.req.valid('form');
    const preview = await previewFile(new Uint8Array(await form.file.arrayBuffer()), { sheet: form.sheet, format: form.format, delimiter: form.delimiter, encoding: form.encoding });
    return c.json(preview, 200);
  });
  router.openapi(presetsRoute, (c) => {
    const data = Object.entries(PRESETS).map(([name, mapping]) => ({ name, label: PRESET_LABELS[name], entity: mapping.entity, mapping }));
    return c.json({ count: data.length, data }, 200);
  });
  return router;
}
