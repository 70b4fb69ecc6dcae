import { createRoute, z } from '@hono/zod-openapi';
import { deleteSavedMapping, listSavedMappings, saveMapping } from '../../import/saved-mappings';
import { scopeOf } from '../context';
import { CompanyParams, createRouter, idParams, json, jsonBody, problems, SECURITY, Timestamp, Uuid } from '../openapi';
import { Mapping } from './imports';

const TAGS = ['Extensions'];
const base = '/api/companies/{company_id}/import-mappings';

const SavedMapping = z.object({ id: Uuid, name: z.string(), mapping: Mapping, created_at: Timestamp, updated_at: Timestamp }).openapi('SavedImportMapping');
const NewSavedMapping = z
  .object({ name: z.string().trim().min(1).max(100).openapi({ example: 'Monthly ERP export' }), mapping: Mapping })
  .strict()
  .openapi('NewSavedImportMapping');

const listRoute = createRoute({
  method: 'get',
  path: base,
  tags: TAGS,
  summary: "The company's saved import mappings, by name (extension)",
  security: SECURITY,
  request: { params: CompanyParams },
  responses: { 200: json(z.object({ count: z.number().int(), data: z.array(SavedMapping) }), 'Saved mappings'), ...problems(401, 403, 404) },
});
const createMappingRoute = createRoute({
  method: 'post',
  path: base,
  tags: TAGS,
  summary: 'Save an import mapping under a name (unique in the company regardless of case) (extension)',
  security: SECURITY,
  request: { params: CompanyParams, body: jsonBody(NewSavedMapping) },
  responses: { 201: json(SavedMapping, 'The saved mapping'), ...problems(400, 401, 403, 404, 409) },
});
const deleteRoute = createRoute({
  method: 'delete',
  path: `${base}/{mapping_id}`,
  tags: TAGS,
  summary: 'Delete a saved import mapping (extension)',
  security: SECURITY,
  request: { params: idParams('mapping_id') },
  responses: { 204: { description: 'Deleted' }, ...problems(401, 403, 404) },
});

export function importMappingRoutes() {
  return createRouter()
    .openapi(listRoute, async (c) => {
      const data = await listSavedMappings(c.var.engine.db, scopeOf(c).companyId);
      return c.json({ count: data.length, data }, 200);
    })
    .openapi(createMappingRoute, async (c) => c.json(await saveMapping(c.var.engine, scopeOf(c), c.req.valid('json')), 201))
    .openapi(deleteRoute, async (c) => {
      await deleteSavedMapping(c.var.engine, scopeOf(c), c.req.valid('param').mapping_id);
      return c.body(null, 204);
    });
}
