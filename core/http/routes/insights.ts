import { createRoute, z } from '@hono/zod-openapi';
import { createInsight, submitFeedback } from '../../insights/commands';
import { ACTIVE_COURTS, INSIGHT_TYPE_NAMES, PREDICTION_BASES, SUMMARY_MAX_WORDS, TONES } from '../../insights/payloads';
import { DEFAULT_INSIGHT_LIMIT, getInsight, listInsights, MAX_INSIGHT_LIMIT } from '../../insights/queries';
import { scopeOf } from '../context';
import { CompanyParams, createRouter, EvidenceItem, json, jsonBody, problems, QueryBool, SECURITY, Text, Timestamp, Uuid, UuidValue } from '../openapi';

const TAG = 'Intelligence';
const TARGET_TYPES = ['customer', 'invoice', 'portfolio'] as const;

const MyFeedback = z.object({ rating: z.enum(['up', 'down']), comment: z.string().nullable(), updated_at: Timestamp }).openapi('MyInsightFeedback');

const Insight = z
  .object({
    id: Uuid,
    company: Uuid,
    target_type: z.enum(TARGET_TYPES),
    target_id: z.string().openapi({ description: 'The customer or invoice id; for a portfolio insight the company id unless given otherwise' }),
    customer: Uuid.nullable().openapi({ description: 'The customer the insight is about, directly or through its invoice' }),
    invoice: Uuid.nullable(),
    insight_type: z.string().openapi({ example: 'customer_conversation_summary' }),
    payload_json: z.record(z.string(), z.unknown()).openapi({ description: 'Shape depends on insight_type (see the specification)' }),
    valid_from: Timestamp,
    valid_to: Timestamp.nullable().openapi({ description: 'null while the insight is active' }),
    is_active: z.boolean(),
    created_at: Timestamp,
    evidence: z.array(EvidenceItem).openapi({ description: 'Extension: the facts, figures and records the insight rests on' }),
    my_feedback: MyFeedback.nullable().openapi({ description: 'The caller’s own rating, if given' }),
  })
  .openapi('Insight');

const InsightList = z
  .object({
    count: z.number().int().openapi({ description: 'Insights matching the filters, across all pages' }),
    limit: z.number().int(),
    offset: z.number().int(),
    results: z.array(Insight),
  })
  .openapi('InsightList');

const ListQuery = z.object({
  company_id: UuidValue.optional().openapi({ description: 'Without it, or without membership in it, the result is empty' }),
  target_type: z.enum(TARGET_TYPES).optional(),
  target_id: Text(200).optional(),
  insight_type: Text(100).optional().openapi({ description: 'Partial match: signal matches every *_signal type' }),
  customer_id: UuidValue.optional(),
  invoice_id: UuidValue.optional(),
  active_only: QueryBool.optional().openapi({ description: 'Default true: only insights with valid_to null' }),
  reportable_only: QueryBool.optional().openapi({ description: 'Extension, default false: leave out insights with nothing to report (a signal that found none, a plan to only monitor, a summary of no conversation)' }),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .optional()
    .openapi({ type: 'integer', default: DEFAULT_INSIGHT_LIMIT, description: `Values above ${MAX_INSIGHT_LIMIT} are clamped` }),
  offset: z.coerce.number().int().min(0).optional().openapi({ type: 'integer', default: 0 }),
});

const FeedbackBody = z.strictObject({ rating: z.enum(['up', 'down']), comment: Text(5_000).nullable().optional() }).openapi('InsightFeedbackRequest');

const Feedback = z
  .object({
    id: Uuid,
    insight: Uuid,
    rating: z.enum(['up', 'down']),
    comment: z.string().nullable(),
    user: Uuid,
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .openapi('InsightFeedback');

const CreateBody = z
  .strictObject({
    target_type: z.enum(TARGET_TYPES),
    target_id: Text(200).min(1).optional().openapi({ description: 'Required for customer and invoice targets' }),
    insight_type: z.enum(INSIGHT_TYPE_NAMES),
    payload_json: z.record(z.string(), z.unknown()).openapi({
      description: `Checked against the insight_type's shape: e.g. summary of at most ${SUMMARY_MAX_WORDS} words, tone one of ${TONES.join(', ')}, active_court one of ${ACTIVE_COURTS.join(', ')}, stress_level 1-10, basis one of ${PREDICTION_BASES.join(', ')}, dates as YYYY-MM-DD or null`,
    }),
  })
  .openapi('CreateInsightRequest');

const listRoute = createRoute({
  method: 'get',
  path: '/api/intelligence/insights',
  tags: [TAG],
  summary: 'Insights of one company the caller belongs to',
  security: SECURITY,
  request: { query: ListQuery },
  responses: { 200: json(InsightList, 'Matching insights, newest first'), ...problems(400, 401) },
});

const getRoute = createRoute({
  method: 'get',
  path: '/api/intelligence/insights/{pk}',
  tags: [TAG],
  summary: 'One insight with its full payload',
  security: SECURITY,
  request: { params: z.object({ pk: z.string().toLowerCase().openapi({ param: { name: 'pk', in: 'path' }, format: 'uuid' }) }) },
  responses: { 200: json(Insight, 'The insight'), ...problems(401, 404) },
});

const feedbackRoute = createRoute({
  method: 'post',
  path: '/api/companies/{company_id}/intelligence/insights/{pk}/feedback',
  tags: [TAG],
  summary: 'Rate an insight up or down; a later rating by the same user overwrites the earlier one',
  security: SECURITY,
  request: {
    params: CompanyParams.extend({ pk: z.string().toLowerCase().openapi({ param: { name: 'pk', in: 'path' }, format: 'uuid' }) }),
    body: jsonBody(FeedbackBody),
  },
  responses: {
    200: json(Feedback, 'The caller’s earlier feedback, overwritten'),
    201: json(Feedback, 'The caller’s first feedback on this insight'),
    ...problems(400, 401, 403, 404),
  },
});

const createInsightRoute = createRoute({
  method: 'post',
  path: '/api/companies/{company_id}/intelligence/insights',
  tags: ['Extensions'],
  summary: 'Record an insight; it supersedes the active insight of the same type on the same target',
  security: SECURITY,
  request: { params: CompanyParams, body: jsonBody(CreateBody) },
  responses: { 201: json(Insight, 'The new active insight'), ...problems(400, 401, 403, 404) },
});

export function insightRoutes() {
  const router = createRouter();

  router.openapi(listRoute, async (c) => {
    const q = c.req.valid('query');
    const page = await listInsights(c.var.engine.db, c.var.user.id, {
      companyId: q.company_id,
      targetType: q.target_type,
      targetId: q.target_id,
      insightType: q.insight_type,
      customerId: q.customer_id,
      invoiceId: q.invoice_id,
      activeOnly: q.active_only,
      reportableOnly: q.reportable_only,
      limit: q.limit,
      offset: q.offset,
    });
    return c.json(page, 200);
  });

  router.openapi(getRoute, async (c) => c.json(await getInsight(c.var.engine.db, c.var.user.id, c.req.valid('param').pk), 200));

  router.openapi(feedbackRoute, async (c) => {
    const { feedback, created } = await submitFeedback(c.var.engine, { ...scopeOf(c), userId: c.var.user.id }, c.req.valid('param').pk, c.req.valid('json'));
    return created ? c.json(feedback, 201) : c.json(feedback, 200);
  });

  router.openapi(createInsightRoute, async (c) => {
    const insight = await createInsight(c.var.engine, { ...scopeOf(c), userId: c.var.user.id }, c.req.valid('json'));
    return c.json(insight, 201);
  });

  return router;
}
