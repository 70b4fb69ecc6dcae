import { createRoute, z } from '@hono/zod-openapi';
import { invoiceActivity } from '../../activity/activity';
import { scopeOf } from '../context';
import { createRouter, DateString, idParams, json, problems, SECURITY, Timestamp, Uuid } from '../openapi';
import { CallOutcome, ReplyReading } from './communications';

const ActivityEntry = z
  .object({
    kind: z.enum(['communication', 'action']),
    id: Uuid,
    at: Timestamp,
    type: z.string().openapi({ description: 'email, call or note (communication); email, call or task (action)' }),
    direction: z.string().nullable().openapi({ description: 'outbound, inbound or internal; null for actions' }),
    status: z.string().nullable().openapi({ description: "The action's status; null for communications" }),
    title: z.string(),
    detail: z.string().nullable(),
    by: z.string().nullable(),
    outcome: CallOutcome.nullable().openapi({ description: "A call's outcome" }),
    promise_date: DateString.nullable().openapi({ description: 'A promise to pay logged with a call' }),
    promise_amount: z.number().nullable().openapi({ description: "The promised amount, in the invoice's currency" }),
    reading: ReplyReading.nullable(),
  })
  .openapi('ActivityEntry');

const activityRoute = createRoute({
  method: 'get',
  path: '/api/companies/{company_id}/invoices/{invoice_id}/activity',
  tags: ['Extensions'],
  summary: "An invoice's communications and actions, newest first (at most 200)",
  security: SECURITY,
  request: { params: idParams('invoice_id') },
  responses: { 200: json(z.object({ count: z.number().int(), data: z.array(ActivityEntry) }).openapi('ActivityList'), 'The activity history'), ...problems(401, 403, 404) },
});

export function activityRoutes() {
  return createRouter().openapi(activityRoute, async (c) => {
    const { companyId } = scopeOf(c);
    const data = await invoiceActivity(c.var.engine.db, companyId, c.req.valid('param').invoice_id);
    return c.json({ count: data.length, data }, 200);
  });
}
