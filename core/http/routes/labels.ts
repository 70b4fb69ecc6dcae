import { createRoute, z } from '@hono/zod-openapi';
import { createLabel, deleteLabel, getLabel, LABEL_MEANINGS, listLabels, MAX_LABEL_NAME, updateLabel } from '../../labels/labels';
import { scopeOf } from '../context';
import { CompanyParams, createRouter, idParams, json, jsonBody, problems, SECURITY, Text, Timestamp, Uuid } from '../openapi';

const TAGS = ['Extensions'];

const Meaning = z.enum(LABEL_MEANINGS).nullable().openapi({
  description:
    'Extension: what the label says about an invoice it is on, as the engine reads it. dispute: the invoice is disputed (no reminders; a "resolve the dispute" task; the chase pauses). promise: a promise to pay is on record (the engine waits; the chase pauses). null: only a tag. Setting it applies at once to the invoices carrying the label.',
  example: 'dispute',
});

const Label = z
  .object({ id: Uuid, name: z.string(), color: z.string().openapi({ example: '#2563EB' }), meaning: Meaning, created_at: Timestamp, updated_at: Timestamp })
  .openapi('Label');

const LabelList = z.object({ count: z.number().int(), data: z.array(Label) }).openapi('LabelList');

const Name = Text(MAX_LABEL_NAME).openapi({ description: 'Unique in the company, regardless of case' });
const Color = Text(7).openapi({ description: '#RRGGBB', example: '#2563EB' });

const NewLabel = z.strictObject({ name: Name, color: Color.optional().openapi({ description: '#RRGGBB; default #6B7280' }), meaning: Meaning.optional() }).openapi('NewLabel');
const LabelPatch = z.strictObject({ name: Name.optional(), color: Color.optional(), meaning: Meaning.optional() }).openapi('LabelPatch');

const LabelParams = idParams('label_id');

const listRoute = createRoute({
  method: 'get',
  path: '/api/companies/{company_id}/labels',
  tags: TAGS,
  summary: "The company's labels, by name",
  security: SECURITY,
  request: { params: CompanyParams },
  responses: { 200: json(LabelList, 'Labels'), ...problems(401, 403, 404) },
});

const getRoute = createRoute({
  method: 'get',
  path: '/api/companies/{company_id}/labels/{label_id}',
  tags: TAGS,
  summary: 'One label',
  security: SECURITY,
  request: { params: LabelParams },
  responses: { 200: json(Label, 'The label'), ...problems(401, 403, 404) },
});

const createLabelRoute = createRoute({
  method: 'post',
  path: '/api/companies/{company_id}/labels',
  tags: TAGS,
  summary: 'Create a label',
  security: SECURITY,
  request: { params: CompanyParams, body: jsonBody(NewLabel) },
  responses: { 201: json(Label, 'The created label'), ...problems(400, 401, 403, 404, 409) },
});

const patchRoute = createRoute({
  method: 'patch',
  path: '/api/companies/{company_id}/labels/{label_id}',
  tags: TAGS,
  summary: 'Rename or recolor a label, or set what it means',
  security: SECURITY,
  request: { params: LabelParams, body: jsonBody(LabelPatch) },
  responses: { 200: json(Label, 'The updated label'), ...problems(400, 401, 403, 404, 409) },
});

const deleteRoute = createRoute({
  method: 'delete',
  path: '/api/companies/{company_id}/labels/{label_id}',
  tags: TAGS,
  summary: 'Delete a label and remove it from every invoice',
  security: SECURITY,
  request: { params: LabelParams },
  responses: { 204: { description: 'Deleted' }, ...problems(401, 403, 404) },
});

export function labelRoutes() {
  return createRouter()
    .openapi(listRoute, async (c) => {
      const data = await listLabels(c.var.engine.db, scopeOf(c).companyId);
      return c.json({ count: data.length, data }, 200);
    })
    .openapi(getRoute, async (c) => c.json(await getLabel(c.var.engine.db, scopeOf(c).companyId, c.req.valid('param').label_id), 200))
    .openapi(createLabelRoute, async (c) => c.json(await createLabel(c.var.engine, scopeOf(c), c.req.valid('json')), 201))
    .openapi(patchRoute, async (c) => c.json(await updateLabel(c.var.engine, scopeOf(c), c.req.valid('param').label_id, c.req.valid('json')), 200))
    .openapi(deleteRoute, async (c) => {
      await deleteLabel(c.var.engine, scopeOf(c), c.req.valid('param').label_id);
      return c.body(null, 204);
    });
}
