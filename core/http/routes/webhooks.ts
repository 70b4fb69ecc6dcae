import { createRoute, z } from '@hono/zod-openapi';
import { EVENT_TYPES } from '../../webhooks/events';
import { createWebhook, deleteWebhook, getWebhook, listWebhooks, rotateWebhookSecret, updateWebhook } from '../../webhooks/endpoints';
import { hasEventsAfter, readEvents } from '../../webhooks/feed';
import { replayDelivery } from '../../webhooks/deliver';
import { listDeliveries } from '../../webhooks/deliveries';
import { NotFoundError } from '../../errors';
import { scopeOf } from '../context';
import { ownerOnly } from '../middleware/owner';
import type { HttpOptions } from '../options';
import { CompanyParams, createRouter, idParams, json, jsonBody, problems, SECURITY, Text, Timestamp, Uuid } from '../openapi';

const TAGS = ['Extensions'];
const OWNERS = ownerOnly('its webhooks');

const EventType = z.enum(EVENT_TYPES);
const EventsField = z
  .array(z.union([EventType, z.literal('*')]))
  .min(1)
  .max(EVENT_TYPES.length + 1)
  .openapi({ description: 'The event types to receive, or ["*"] for all' });

const Webhook = z
  .object({
    id: Uuid,
    url: z.string(),
    events: z.array(z.string()),
    description: z.string(),
    created_at: Timestamp,
    updated_at: Timestamp,
    failing_since: Timestamp.nullable().openapi({ description: 'The first failed try since the last delivered one' }),
    disabled_at: Timestamp.nullable().openapi({ description: 'Set when every delivery failed for three days; PATCH {"enabled": true} sends again' }),
    disabled_reason: z.string().nullable(),
  })
  .openapi('Webhook');

const WebhookWithSecret = Webhook.extend({
  secret: z.string().openapi({ description: 'The signing secret, shown this once (deliveries carry ardesk-signature: t=..,v1=HMAC-SHA256(secret, "t.body"))' }),
}).openapi('WebhookWithSecret');

const NewWebhook = z.strictObject({ url: Text(2048), events: EventsField, description: Text(200).optional() }).openapi('NewWebhook');
const WebhookPatch = z
  .strictObject({ url: Text(2048).optional(), events: EventsField.optional(), description: Text(200).optional(), enabled: z.literal(true).optional().openapi({ description: 'Enable a disabled webhook again' }) })
  .openapi('WebhookPatch');

const Delivery = z
  .object({
    id: Uuid,
    event_id: Uuid,
    event_type: z.string(),
    status: z.enum(['pending', 'delivered', 'failed']),
    attempts: z.number().int(),
    next_attempt_at: Timestamp.nullable(),
    last_attempt_at: Timestamp.nullable(),
    response_status: z.number().int().nullable(),
    response_ms: z.number().int().nullable(),
    error: z.string().nullable(),
    created_at: Timestamp,
    delivered_at: Timestamp.nullable(),
  })
  .openapi('WebhookDelivery');

const Event = z
  .object({ id: Uuid, type: EventType, created_at: Timestamp, company_id: Uuid, data: z.record(z.string(), z.unknown()) })
  .openapi('Event');

const WebhookParams = idParams('webhook_id');
const DeliveryParams = idParams('webhook_id', 'delivery_id');

const base = '/api/companies/{company_id}/webhooks';

const routes = {
  list: createRoute({ method: 'get', path: base, tags: TAGS, security: SECURITY, middleware: [OWNERS] as const, summary: "The company's webhooks (owners)", request: { params: CompanyParams }, responses: { 200: json(z.object({ count: z.number().int(), data: z.array(Webhook) }).openapi('WebhookList'), 'Webhooks'), ...problems(401, 403, 404) } }),
  create: createRoute({ method: 'post', path: base, tags: TAGS, security: SECURITY, middleware: [OWNERS] as const, summary: 'Register a webhook (owners); the answer carries its secret, once', request: { params: CompanyParams, body: jsonBody(NewWebhook) }, responses: { 201: json(WebhookWithSecret, 'The webhook and its secret'), ...problems(400, 401, 403, 404) } }),
  get: createRoute({ method: 'get', path: `${base}/{webhook_id}`, tags: TAGS, security: SECURITY, middleware: [OWNERS] as const, summary: 'One webhook (owners)', request: { params: WebhookParams }, responses: { 200: json(Webhook, 'The webhook'), ...problems(401, 403, 404) } }),
  update: createRoute({ method: 'patch', path: `${base}/{webhook_id}`, tags: TAGS, security: SECURITY, middleware: [OWNERS] as const, summary: 'Change a webhook, or enable it again (owners)', request: { params: WebhookParams, body: jsonBody(WebhookPatch) }, responses: { 200: json(Webhook, 'The webhook'), ...problems(400, 401, 403, 404) } }),
  remove: createRoute({ method: 'delete', path: `${base}/{webhook_id}`, tags: TAGS, security: SECURITY, middleware: [OWNERS] as const, summary: 'Delete a webhook; its pending deliveries are dropped (owners)', request: { params: WebhookParams }, responses: { 204: { description: 'Deleted' }, ...problems(401, 403, 404) } }),
  rotate: createRoute({ method: 'post', path: `${base}/{webhook_id}/rotate-secret`, operationId: 'rotateWebhookSecret', tags: TAGS, security: SECURITY, middleware: [OWNERS] as const, summary: 'A new signing secret, shown once (owners)', request: { params: WebhookParams }, responses: { 200: json(z.object({ secret: z.string() }).openapi('WebhookSecret'), 'The new secret'), ...problems(401, 403, 404) } }),
  deliveries: createRoute({ method: 'get', path: `${base}/{webhook_id}/deliveries`, tags: TAGS, security: SECURITY, middleware: [OWNERS] as const, summary: 'The delivery log, newest first (owners)', request: { params: WebhookParams, query: z.object({ limit: z.coerce.number().int().min(1).max(200).default(50) }) }, responses: { 200: json(z.object({ count: z.number().int(), data: z.array(Delivery) }).openapi('WebhookDeliveryList'), 'Deliveries'), ...problems(400, 401, 403, 404) } }),
  replay: createRoute({ method: 'post', path: `${base}/{webhook_id}/deliveries/{delivery_id}/replay`, tags: TAGS, security: SECURITY, middleware: [OWNERS] as const, summary: 'Send a delivered or failed event again, with the same event id (owners)', request: { params: DeliveryParams }, responses: { 202: json(z.object({ id: Uuid }).openapi('WebhookReplay'), 'The new delivery, queued'), ...problems(401, 403, 404) } }),
  events: createRoute({
    method: 'get',
    path: '/api/companies/{company_id}/events',
    tags: TAGS,
    security: SECURITY,
    summary: 'Events after a cursor, oldest first: the webhooks\' events as a feed; `wait` holds the request up to that many seconds until one comes (long poll)',
    request: {
      params: CompanyParams,
      query: z.object({
        after: z.string().max(20).optional().openapi({ description: 'next_cursor of the page before; absent: from the first event' }),
        limit: z.coerce.number().int().min(1).max(500).default(100),
        types: z.string().max(1000).optional().openapi({ description: 'Comma-separated event types to keep' }),
        wait: z.coerce.number().int().min(0).max(30).default(0),
      }),
    },
    responses: { 200: json(z.object({ data: z.array(Event), next_cursor: z.string() }).openapi('EventPage'), 'Events'), ...problems(400, 401, 403, 404) },
  }),
};

const LONG_POLL_STEP_MS = 500;

export function webhookRoutes(options: Pick<HttpOptions, 'webhookRule'>) {
  const router = createRouter();
  router.openapi(routes.list, async (c) => {
    const data = await listWebhooks(c.var.engine.db, scopeOf(c).companyId);
    return c.json({ count: data.length, data }, 200);
  });
  router.openapi(routes.create, async (c) => c.json(await createWebhook(c.var.engine, scopeOf(c), options.webhookRule, c.req.valid('json')), 201));
  router.openapi(routes.get, async (c) => c.json(await getWebhook(c.var.engine.db, scopeOf(c).companyId, c.req.valid('param').webhook_id), 200));
  router.openapi(routes.update, async (c) => c.json(await updateWebhook(c.var.engine, scopeOf(c), options.webhookRule, c.req.valid('param').webhook_id, c.req.valid('json')), 200));
  router.openapi(routes.remove, async (c) => {
    await deleteWebhook(c.var.engine, scopeOf(c), c.req.valid('param').webhook_id);
    return c.body(null, 204);
  });
  router.openapi(routes.rotate, async (c) => c.json(await rotateWebhookSecret(c.var.engine, scopeOf(c), c.req.valid('param').webhook_id), 200));
  router.openapi(routes.deliveries, async (c) => {
    const { companyId } = scopeOf(c);
    const { webhook_id } = c.req.valid('param');
    await getWebhook(c.var.engine.db, companyId, webhook_id);
    const data = await listDeliveries(c.var.engine.db, companyId, webhook_id, c.req.valid('query').limit);
    return c.json({ count: data.length, data }, 200);
  });
  router.openapi(routes.replay, async (c) => {
    const { companyId } = scopeOf(c);
    const { webhook_id, delivery_id } = c.req.valid('param');
    await getWebhook(c.var.engine.db, companyId, webhook_id);
    const id = await replayDelivery(c.var.engine, companyId, webhook_id, delivery_id);
    if (!id) throw new NotFoundError('Delivery', delivery_id);
    return c.json({ id }, 202);
  });
  router.openapi(routes.events, async (c) => {
    const { companyId } = scopeOf(c);
    const query = c.req.valid('query');
    const types = query.types?.split(',').map((t) => t.trim()).filter(Boolean);
    const deadline = Date.now() + query.wait * 1000;
    // A long poll asks a cheap question every half second, so a waiting script holds no work.
    while (Date.now() < deadline && !(await hasEventsAfter(c.var.engine.db, companyId, query.after)) && !c.req.raw.signal.aborted) {
      await new Promise((resolve) => setTimeout(resolve, LONG_POLL_STEP_MS));
    }
    return c.json(await readEvents(c.var.engine.db, companyId, { after: query.after, limit: query.limit, types }), 200);
  });
  return router;
}
