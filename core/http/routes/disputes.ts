import { createRoute, z } from '@hono/zod-openapi';
import { DISPUTE_STATUSES, editDispute, getDispute, listDisputes, openDispute, REASON_MAX, RESOLUTION_MAX, resolveDispute } from '../../disputes/disputes';
import { customerChase } from '../../sequences/chase';
import { scopeOf } from '../context';
import { CompanyParams, createRouter, idParams, json, jsonBody, NullableUuidValue, problems, SECURITY, Text, Timestamp, Uuid, UuidValue } from '../openapi';

const TAGS = ['Extensions'];

const Dispute = z
  .object({
    id: Uuid,
    invoice: Uuid,
    invoice_number: z.string(),
    customer: Uuid,
    customer_name: z.string(),
    reason: z.string().openapi({ description: 'What the customer disputes, in their words or the collector’s' }),
    owner: Uuid.nullable().openapi({ description: 'The team member who sorts it out' }),
    owner_name: z.string().nullable(),
    status: z.enum(DISPUTE_STATUSES).openapi({ description: 'open: holds the chase of the invoice; resolved: the chase goes on' }),
    communication: Uuid.nullable().openapi({ description: 'The reply it was opened from' }),
    resolution: z.string().nullable().openapi({ description: 'How it was resolved' }),
    opened_by: z.string().nullable(),
    resolved_by: z.string().nullable(),
    resolved_at: Timestamp.nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .openapi('Dispute');

const DisputeList = z.object({ count: z.number().int(), data: z.array(Dispute) }).openapi('DisputeList');

const NewDispute = z
  .strictObject({
    invoice_id: UuidValue,
    reason: Text(REASON_MAX),
    owner_id: NullableUuidValue.optional().openapi({ description: 'An active team member of the company' }),
    communication_id: NullableUuidValue.optional().openapi({ description: "A reply (an email received) from the invoice's customer" }),
  })
  .openapi('NewDispute');

const ResolveDispute = z.strictObject({ resolution: Text(RESOLUTION_MAX) }).openapi('ResolveDispute');

const EditDispute = z
  .strictObject({
    reason: Text(REASON_MAX).optional(),
    owner_id: NullableUuidValue.optional().openapi({ description: 'An active team member of the company; null: nobody' }),
    resolution: Text(RESOLUTION_MAX).optional().openapi({ description: 'A resolved dispute only: how it was resolved' }),
  })
  .openapi('EditDispute');

const ListQuery = z.object({
  invoice_id: UuidValue.optional(),
  customer_id: UuidValue.optional(),
  status: z.enum(DISPUTE_STATUSES).optional(),
});

const disputesPath = '/api/companies/{company_id}/disputes';

const listRoute = createRoute({
  method: 'get',
  path: disputesPath,
  tags: TAGS,
  summary: "The company's disputes, open ones first, then newest first (at most 200)",
  security: SECURITY,
  request: { params: CompanyParams, query: ListQuery },
  responses: { 200: json(DisputeList, 'The disputes'), ...problems(400, 401, 403, 404) },
});

const openRoute = createRoute({
  method: 'post',
  path: disputesPath,
  tags: TAGS,
  summary: 'Open a dispute on an open invoice',
  description:
    "While open it pauses the customer's sequences that pause on disputes and warns a manual reminder. One command: the dispute, a note on the invoice's activity, the engine's proposals for the invoice withdrawn, the pauses applied. 409 dispute_open when the invoice already has an open dispute.",
  security: SECURITY,
  request: { params: CompanyParams, body: jsonBody(NewDispute) },
  responses: { 201: json(Dispute, 'The dispute, open'), ...problems(400, 401, 403, 404, 409) },
});

const getRoute = createRoute({
  method: 'get',
  path: `${disputesPath}/{dispute_id}`,
  tags: TAGS,
  summary: 'One dispute',
  security: SECURITY,
  request: { params: idParams('dispute_id') },
  responses: { 200: json(Dispute, 'The dispute'), ...problems(401, 403, 404) },
});

const resolveRoute = createRoute({
  method: 'post',
  path: `${disputesPath}/{dispute_id}/resolve`,
  tags: TAGS,
  summary: 'Resolve an open dispute, saying how',
  description: "The resolution is logged as a note on the invoice's activity and the chase goes on unless something else holds it. 400 dispute_resolved when it is already resolved.",
  security: SECURITY,
  request: { params: idParams('dispute_id'), body: jsonBody(ResolveDispute) },
  responses: { 200: json(Dispute, 'The dispute, resolved'), ...problems(400, 401, 403, 404) },
});

const editRoute = createRoute({
  method: 'patch',
  path: `${disputesPath}/{dispute_id}`,
  tags: TAGS,
  summary: "Edit a dispute's reason, owner or (once resolved) resolution",
  description:
    "One command: the change, a note \"Dispute edited\" on the invoice's activity saying what changed (was/now), and for an open dispute the pauses re-read so they name the new reason. Fields left out keep their value; nothing changed writes nothing. 400 when a resolution is given for an open dispute.",
  security: SECURITY,
  request: { params: idParams('dispute_id'), body: jsonBody(EditDispute) },
  responses: { 200: json(Dispute, 'The dispute, as edited'), ...problems(400, 401, 403, 404) },
});

const CustomerChase = z
  .object({
    customer: Uuid,
    holds: z
      .array(
        z.object({
          kind: z.enum(['dispute', 'promise', 'reply']),
          reason: z.string().openapi({ description: 'In words: "Tri-County promised payment by Nov 27"' }),
          invoice: Uuid.nullable(),
        }),
      )
      .openapi({ description: 'What holds the chase of the customer now, whatever the sequences are set to pause on' }),
    enrollments: z
      .array(
        z.object({
          id: Uuid,
          sequence: Uuid,
          sequence_name: z.string(),
          pause_kind: z.enum(['reply', 'promise', 'dispute', 'manual']).nullable(),
          pause_reason: z.string().nullable().openapi({ description: '"Paused: Tri-County promised payment by Nov 27"; null while it runs' }),
        }),
      )
      .openapi({ description: "The customer's active enrollments, each paused or running as of now" }),
    contact: z
      .object({
        allowed: z.boolean().openapi({ description: 'An email about the open invoices would go now (some may be left out)' }),
        reason: z.string().nullable().openapi({ description: '"Held: ..." (nothing goes) or "Left out: ..." (the invoices it leaves out), in words; null when all may go' }),
      })
      .openapi({ description: "The contact rule's answer for the customer now, as every channel gets it" }),
  })
  .openapi('CustomerChase');

const chaseRoute = createRoute({
  method: 'get',
  path: '/api/companies/{company_id}/customers/{customer_id}/chase',
  tags: TAGS,
  summary: "The customer's chase now: what holds it and whether each active sequence runs or why it is paused",
  security: SECURITY,
  request: { params: idParams('customer_id') },
  responses: { 200: json(CustomerChase, 'The chase'), ...problems(401, 403, 404) },
});

export function disputeRoutes() {
  const router = createRouter();
  router.openapi(listRoute, async (c) => {
    const q = c.req.valid('query');
    const data = await listDisputes(c.var.engine.db, scopeOf(c).companyId, { invoiceId: q.invoice_id ?? null, customerId: q.customer_id ?? null, status: q.status ?? null });
    return c.json({ count: data.length, data }, 200);
  });
  router.openapi(openRoute, async (c) => c.json(await openDispute(c.var.engine, scopeOf(c), c.req.valid('json')), 201));
  router.openapi(getRoute, async (c) => c.json(await getDispute(c.var.engine.db, scopeOf(c).companyId, c.req.valid('param').dispute_id), 200));
  router.openapi(editRoute, async (c) => c.json(await editDispute(c.var.engine, scopeOf(c), c.req.valid('param').dispute_id, c.req.valid('json')), 200));
  router.openapi(resolveRoute, async (c) => c.json(await resolveDispute(c.var.engine, scopeOf(c), c.req.valid('param').dispute_id, c.req.valid('json')), 200));
  router.openapi(chaseRoute, async (c) => c.json(await customerChase(c.var.engine, scopeOf(c).companyId, c.req.valid('param').customer_id), 200));
  return router;
}
