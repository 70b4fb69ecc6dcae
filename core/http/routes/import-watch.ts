/**
 * The nightly re-import of a watched file or folder (issue 40, item 3): its setting (owners
 * only: it reads a path on the server's machine), a run on request, and the log of runs.
 */
import { createRoute, z } from '@hono/zod-openapi';
import { checkWatch, getImportWatch, listImportRuns, queueWatchedImportNow, removeImportWatch, setImportWatch } from '../../import/watch';
import { PRESETS } from '../../import/mappings/index';
import { NotFoundError } from '../../errors';
import { ownerOnly } from '../middleware/owner';
import { scopeOf } from '../context';
import { CompanyParams, createRouter, json, jsonBody, problems, SECURITY, Timestamp, Uuid } from '../openapi';
import { Mapping } from './imports';

const TAGS = ['Extensions'];
const base = '/api/companies/{company_id}/import-watch';
const OWNERS = 'the file its nightly import reads';

const Counts = z.object({ created: z.number().int(), updated: z.number().int(), unchanged: z.number().int() });
const ImportRun = z
  .object({
    id: Uuid,
    started_at: Timestamp,
    finished_at: Timestamp,
    file: z.string().openapi({ description: "The file read (a watched folder's newest CSV or XLSX)" }),
    status: z.enum(['imported', 'unchanged', 'failed']).openapi({ description: 'unchanged: the same file as the last import, not read again' }),
    preset: z.string().nullable(),
    counts: z.object({ customers: Counts, invoices: Counts, payments: Counts }).nullable(),
    notes: z.array(z.string()),
    message: z.string().nullable().openapi({ description: 'Why the run failed, in words' }),
  })
  .openapi('ImportRun');

const ImportWatch = z
  .object({
    path: z.string(),
    preset: z.string().nullable(),
    mapping: Mapping.nullable(),
    enabled: z.boolean(),
    hour: z.number().int().openapi({ description: "The hour (0-23, the company's time zone) from which the night's run is queued" }),
    last_run: ImportRun.nullable(),
  })
  .openapi('ImportWatch');

const ImportWatchInput = z
  .object({
    path: z.string().trim().min(1).max(1000).openapi({ description: "A file, or a folder whose newest CSV or XLSX is read, on the server's machine", example: '/srv/erp/exports/open-items.csv' }),
    preset: z
      .enum(Object.keys(PRESETS) as [string, ...string[]])
      .nullable()
      .optional()
      .openapi({ description: "A built-in preset; with neither preset nor mapping, the preset is recognised from the file's columns" }),
    mapping: Mapping.nullable().optional(),
    enabled: z.boolean().optional().openapi({ description: 'false pauses the nightly run (default true)' }),
    hour: z.number().int().min(0).max(23).optional().openapi({ description: "The hour (0-23, the company's time zone) after which each day's run is queued, once the ERP's nightly export has landed (default 3)" }),
  })
  .strict()
  .openapi('ImportWatchInput');

const getRoute = createRoute({
  method: 'get',
  path: base,
  tags: TAGS,
  summary: "The company's watched import and its last run (extension)",
  security: SECURITY,
  request: { params: CompanyParams },
  responses: { 200: json(z.object({ watch: ImportWatch.nullable() }), 'The watched import, null when none is set'), ...problems(401, 403, 404) },
});
const putRoute = createRoute({
  method: 'put',
  path: base,
  tags: TAGS,
  summary: 'Set the file or folder re-imported every night (owners) (extension)',
  description: 'The job worker reads it once a day on the bulk lane; the same file as the last import is not read again. 403 owner_only for anyone but an owner.',
  security: SECURITY,
  middleware: [ownerOnly(OWNERS)] as const,
  request: { params: CompanyParams, body: jsonBody(ImportWatchInput) },
  responses: { 200: json(ImportWatch, 'The watched import'), ...problems(400, 401, 403, 404) },
});
const deleteRoute = createRoute({
  method: 'delete',
  path: base,
  tags: TAGS,
  summary: 'Stop watching a file (owners) (extension)',
  security: SECURITY,
  middleware: [ownerOnly(OWNERS)] as const,
  request: { params: CompanyParams },
  responses: { 204: { description: 'No longer watched; the log of runs stays' }, ...problems(401, 403, 404) },
});
const runRoute = createRoute({
  method: 'post',
  path: `${base}/run`,
  tags: TAGS,
  summary: 'Run the watched import now, besides the nightly run (owners) (extension)',
  security: SECURITY,
  middleware: [ownerOnly(OWNERS)] as const,
  request: { params: CompanyParams },
  responses: { 202: json(z.object({ job_id: Uuid }), 'Queued on the bulk lane; the log of runs shows its outcome'), ...problems(401, 403, 404) },
});
const runsRoute = createRoute({
  method: 'get',
  path: `${base}/runs`,
  tags: TAGS,
  summary: 'The log of watched import runs, newest first (extension)',
  security: SECURITY,
  request: { params: CompanyParams, query: z.object({ limit: z.coerce.number().int().min(1).max(200).optional() }) },
  responses: { 200: json(z.object({ count: z.number().int(), data: z.array(ImportRun) }), 'Runs, newest first'), ...problems(400, 401, 403, 404) },
});

export function importWatchRoutes() {
  return createRouter()
    .openapi(getRoute, async (c) => c.json({ watch: await getImportWatch(c.var.engine.db, scopeOf(c).companyId) }, 200))
    .openapi(putRoute, async (c) => {
      const { companyId, actor } = scopeOf(c);
      return c.json(await setImportWatch(c.var.engine, actor, companyId, checkWatch(c.req.valid('json'))), 200);
    })
    .openapi(deleteRoute, async (c) => {
      const { companyId, actor } = scopeOf(c);
      if (!(await removeImportWatch(c.var.engine, actor, companyId))) throw new NotFoundError('Import watch', companyId);
      return c.body(null, 204);
    })
    .openapi(runRoute, async (c) => {
      const { companyId, actor } = scopeOf(c);
      if (!(await getImportWatch(c.var.engine.db, companyId))) throw new NotFoundError('Import watch', companyId);
      return c.json({ job_id: await queueWatchedImportNow(c.var.engine, actor, companyId) }, 202);
    })
    .openapi(runsRoute, async (c) => {
      const data = await listImportRuns(c.var.engine.db, scopeOf(c).companyId, c.req.valid('query').limit ?? 50);
      return c.json({ count: data.length, data }, 200);
    });
}
