import { createRoute, z } from '@hono/zod-openapi';
import { deleteView, listViews, MAX_VIEW_NAME, MAX_VIEW_QUERY, saveView } from '../../views/views';
import { scopeOf } from '../context';
import { CompanyParams, createRouter, idParams, json, jsonBody, problems, SECURITY, Text, Timestamp, Uuid } from '../openapi';

const TAG = 'Extensions';

const SavedView = z
  .object({
    id: Uuid,
    name: z.string(),
    query: z.string().openapi({ description: "The invoice desk's URL query string (the invoice list's filter and sort parameters)", example: 'status=past_due_31_60&sort=balance_desc' }),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .openapi('SavedView');

const SavedViewBody = z
  .strictObject({
    name: Text(MAX_VIEW_NAME * 2),
    query: Text(MAX_VIEW_QUERY * 2),
  })
  .openapi('SavedViewRequest');

const listRoute = createRoute({
  method: 'get',
  path: '/api/companies/{company_id}/saved-views',
  tags: [TAG],
  summary: "The caller's saved invoice views in this company",
  security: SECURITY,
  request: { params: CompanyParams },
  responses: { 200: json(z.object({ count: z.number().int(), data: z.array(SavedView) }).openapi('SavedViewList'), 'Saved views by name'), ...problems(401, 403, 404) },
});

const saveRoute = createRoute({
  method: 'post',
  path: '/api/companies/{company_id}/saved-views',
  tags: [TAG],
  summary: 'Save the current invoice view under a name (an existing name of the caller is overwritten)',
  security: SECURITY,
  request: { params: CompanyParams, body: jsonBody(SavedViewBody) },
  responses: { 200: json(SavedView, 'An existing view was overwritten'), 201: json(SavedView, 'The view was created'), ...problems(400, 401, 403, 404) },
});

const deleteRoute = createRoute({
  method: 'delete',
  path: '/api/companies/{company_id}/saved-views/{view_id}',
  tags: [TAG],
  summary: 'Delete one of the caller’s saved views',
  security: SECURITY,
  request: { params: idParams('view_id') },
  responses: { 204: { description: 'Deleted' }, ...problems(401, 403, 404) },
});

export function viewRoutes() {
  return createRouter()
    .openapi(listRoute, async (c) => {
      const { companyId } = scopeOf(c);
      const data = await listViews(c.var.engine.db, companyId, c.var.user.id);
      return c.json({ count: data.length, data }, 200);
    })
    .openapi(saveRoute, async (c) => {
      const { companyId, actor } = scopeOf(c);
      const { view, created } = await saveView(c.var.engine, { companyId, actor: { ...actor, userId: c.var.user.id } }, c.req.valid('json'));
      return created ? c.json(view, 201) : c.json(view, 200);
    })
    .openapi(deleteRoute, async (c) => {
      const { companyId, actor } = scopeOf(c);
      await deleteView(c.var.engine, { companyId, actor: { ...actor, userId: c.var.user.id } }, c.req.valid('param').view_id);
      return c.body(null, 204);
    });
}
