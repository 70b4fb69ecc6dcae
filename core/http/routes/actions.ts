import { ATTACHMENT_KINDS } from '../../documents/attachments';
import { OverrideReason } from './contact';
import { createRoute, z } from '@hono/zod-openapi';
import {
  approveAction,
  cancelAction,
  completeAction,
  createAction,
  deleteAction,
  rejectAction,
  retryAction,
  sendAction,
} from '../../actions/commands';
import { logActionCall } from '../../actions/log-call';
import { getAction, LISTED_SHOWN, listActions } from '../../actions/queries';
import { LATENESS_DAYS, PAID_SOON_DAYS } from '../../actions/value-at-risk';
import { listActionTasks, ownMemberId } from '../../actions/tasks';
import { LOGGED_KINDS } from '../../communications/rules';
import { ACTION_CATEGORIES, ACTION_SORTS, ACTION_TYPES, ACTION_OPERATIONS, ACTION_STATUSES, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, resolveActionList } from '../../actions/rules';
import { UNASSIGNED } from '../../sequences/rules';
import { timestamp } from '../../clock';
import { workingDate } from '../../companies/as-of';
import { actionContactHold, actionContactHolds } from '../../actions/send';
import { scopeOf } from '../context';
import { CompanyParams, createRouter, DateString, EvidenceItem, idParams, json, jsonBody, MoneyValue, NullableUuidValue, problems, QueryBool, SearchText, SECURITY, Text, Timestamp, Uuid, UuidValue } from '../openapi';
import { CallOutcome } from './communications';
import { AttachmentPreview } from './reminders';
import { actionAttachmentPreview } from '../../actions/documents';
import { actionEnvelope } from '../../actions/envelope';

const TAG = 'Actions';
const ActionParams = idParams('action_id');

const ApprovalLogEntry = z
  .object({
    operation: z.enum(ACTION_OPERATIONS),
    reason: z.string().nullable(),
    comment: z.string().nullable(),
    approver: Uuid.nullable().openapi({ description: 'Team member id of the approver' }),
    approver_name: z.string().nullable(),
    user: Uuid.nullable().openapi({ description: 'The signed-in user who performed the operation' }),
    created_at: Timestamp,
  })
  .openapi('ActionApprovalLogEntry');

const ActionDelivery = z
  .object({
    status: z.enum(['queued', 'sending', 'sent', 'failed', 'held']).openapi({ description: "'held': the contact rule held the email when it was to go out (error says why); Retry sends it once the hold is lifted" }),
    error: z.string().nullable().openapi({ description: 'Why the last try failed, in words' }),
    next_attempt_at: Timestamp.nullable().openapi({ description: 'A failed try that runs again by itself then; null when only Retry sends it' }),
    may_have_been_sent: z.boolean().openapi({ description: 'The mail server may have the message: a retry could deliver it twice' }),
    recipient: z.string().nullable(),
    sent_at: Timestamp.nullable(),
  })
  .openapi('ActionDelivery');

const Action = z
  .object({
    id: Uuid,
    company: Uuid,
    invoice: Uuid.nullable(),
    invoice_number: z.string().nullable(),
    customer: Uuid,
    customer_name: z.string(),
    action_type: z.enum(['email', 'call', 'task']),
    status: z.enum(ACTION_STATUSES),
    is_action_required: z.boolean(),
    is_ai_recommended: z.boolean(),
    description: z.string(),
    recommendation_label: z.string().nullable(),
    trigger_event_label: z.string().nullable(),
    top_recommendation: z.string().nullable().openapi({ example: 'wait_for_customer' }),
    metadata: z.record(z.string(), z.unknown()).openapi({ description: 'final_content is stored here by approve and send' }),
    response_deadline: Timestamp.nullable(),
    channel_id: z.string().nullable(),
    external_id: z.string().nullable(),
    executed_at: Timestamp.nullable(),
    executed_by: z.string().nullable().openapi({ description: 'Display name of whoever sent or completed the action' }),
    is_deleted: z.boolean(),
    deleted_at: Timestamp.nullable(),
    approval_log: z.array(ApprovalLogEntry),
    created_at: Timestamp,
    updated_at: Timestamp,
    evidence: z.array(EvidenceItem).openapi({ description: 'Extension: why the engine proposed it (empty for actions people created)' }),
    delivery: ActionDelivery.nullable().openapi({ description: 'Extension: the send of an approved email action; null when none was queued' }),
    balance: z.number().nullable().openapi({ description: "Extension: the invoice's open balance (for an action on the customer as a whole, that of the invoices it lists, else the customer's); null when unknown", example: 1250.5 }),
    currency: z.string().nullable().openapi({ description: 'Extension: the currency of balance and value_at_risk', example: 'USD' }),
    days_past_due: z.number().int().nullable().openapi({ description: "Extension: days the invoice (for a customer action, the oldest open invoice it lists, else the customer's oldest) is past due; 0 when not yet due" }),
    value_at_risk: z.number().nullable().openapi({
      description: `Extension: the balance weighted by lateness (x2 at ${LATENESS_DAYS} days past due, x3 at ${2 * LATENESS_DAYS}) and by the model's chance that it is not paid within ${PAID_SOON_DAYS} days, assessed by each intelligence refresh of the customer and when the action is created, kept once decided; the inbox's default order (sort=value_at_risk)`,
      example: 980.25,
    }),
    listed_invoices: z
      .array(z.object({ id: Uuid, invoice_number: z.string() }))
      .openapi({ description: `Extension: a decision on the customer as a whole that lists invoices (metadata.invoice_ids): the first ${LISTED_SHOWN} of them, in its order; the invoices have no decision of their own for it. Empty otherwise` }),
    listed_invoice_count: z.number().int().openapi({ description: 'Extension: how many invoices it lists; 0 for an action on one invoice or on the customer as a whole without a list' }),
  })
  .openapi('Action');

const OneAction = Action.extend({
  contact_hold: z
    .string()
    .nullable()
    .openapi({ description: "Extension: for an email action not yet sent, the contact rule's answer as approving it would get it now ('Held: INV-1 is disputed.'); null when it would go" }),
}).openapi('OneAction');

const ActionList = z
  .object({ count: z.number().int(), page: z.number().int(), page_size: z.number().int(), data: z.array(OneAction) })
  .openapi('ActionList');

const ListQuery = z.object({
  category: z.enum(ACTION_CATEGORIES).optional(),
  status: z.string().optional().openapi({ description: `Comma-separated: ${ACTION_STATUSES.join(', ')}`, example: 'proposed,scheduled' }),
  invoice_id: UuidValue.optional(),
  customer_id: UuidValue.optional(),
  action_type: z.string().optional().openapi({ description: `Extension. Comma-separated: ${ACTION_TYPES.join(', ')}`, example: 'email,call' }),
  ar_owner: z.string().optional().openapi({ description: `Extension. Comma-separated team member UUIDs of the customer's AR owner; ${UNASSIGNED} for customers with none` }),
  search: SearchText.optional()
    .openapi({ description: 'Case-insensitive partial match on description, recommendation label, trigger event label, customer name, invoice number' }),
  include_deleted: QueryBool.optional().openapi({ description: 'Default false; true when category=history' }),
  include_alternatives: QueryBool.optional().openapi({ description: 'Extension. Default true; false leaves out the alternatives of a recommendation, on an invoice or on the customer as a whole (one row per decision)' }),
  executed_after: DateString.optional().openapi({ description: 'Only with category=history; on or after this UTC date' }),
  executed_before: DateString.optional().openapi({ description: 'Only with category=history; on or before this UTC date' }),
  sort: z.enum(ACTION_SORTS).optional().openapi({
    description:
      'Extension. created (default): newest first, history by execution. value_at_risk: highest value at risk first (the inbox order). balance, days_past_due: largest first. customer, recommendation, why (the trigger), decide_by (the response deadline): from the start. Actions without the value go last.',
  }),
  direction: z.enum(['asc', 'desc']).optional().openapi({ description: 'Extension. Reverses the order of sort' }),
  page: z.coerce.number().int().min(1).optional().openapi({ type: 'integer', default: 1 }),
  page_size: z.coerce
    .number()
    .int()
    .min(1)
    .optional()
    .openapi({ type: 'integer', default: DEFAULT_PAGE_SIZE, description: `Values above ${MAX_PAGE_SIZE} are clamped to ${MAX_PAGE_SIZE}` }),
});

const ApproverField = NullableUuidValue
  .optional()
  .openapi({ description: 'Team member of this company; defaults to the caller’s own team member; null for none' });

const ApproveBody = z
  .strictObject({
    final_content: Text(100_000).optional(),
    final_subject: Text(500).optional().openapi({ description: 'Extension: the email subject to send instead of the draft’s' }),
    attach: z
      .array(z.enum(ATTACHMENT_KINDS))
      .max(ATTACHMENT_KINDS.length)
      .optional()
      .openapi({ description: "Extension, email actions: documents to attach, made when the email is sent with the figures of that moment: invoice_pdf (the action's invoice) and statement (the customer's statement as of that day); kept in metadata.attach" }),
    approved_by: ApproverField,
    comment: Text(10_000).optional(),
    override_reason: OverrideReason,
  })
  .openapi('ApproveActionRequest');
const RetryBody = z
  .strictObject({ final_content: Text(100_000).optional(), final_subject: Text(500).optional(), override_reason: OverrideReason })
  .openapi('RetryActionRequest');
const LogBody = z
  .strictObject({
    kind: z.enum(LOGGED_KINDS).optional().openapi({ default: 'call', description: 'call, or note for a task done without a call' }),
    outcome: CallOutcome.nullable().optional(),
    body: Text(20_000).nullable().optional(),
    promise_date: DateString.nullable().optional().openapi({ description: 'Required with outcome promised_to_pay, only then allowed' }),
    promise_amount: MoneyValue.nullable().optional(),
  })
  .openapi('LogActionRequest');

const TaskContact = z.object({ name: z.string(), phone: z.string(), title: z.string().nullable(), is_billing: z.boolean() }).openapi('ActionTaskContact');
const ActionTask = z
  .object({
    id: Uuid,
    action_type: z.enum(['call', 'task']),
    description: z.string(),
    customer: Uuid,
    customer_name: z.string(),
    invoice: Uuid.nullable(),
    invoice_number: z.string().nullable(),
    balance: z.number().nullable().openapi({ description: 'The invoice’s open balance in major units of currency' }),
    currency: z.string().nullable(),
    due_date: DateString.nullable(),
    assignee: Uuid.nullable().openapi({ description: 'Team member the work is given to' }),
    assignee_name: z.string().nullable(),
    approved_at: Timestamp,
    talking_points: z.array(z.string()),
    contacts: z.array(TaskContact).openapi({ description: 'The customer’s contacts with a phone number, billing contact first' }),
    evidence: z.array(EvidenceItem),
  })
  .openapi('ActionTask');
const ActionTaskList = z.object({ data: z.array(ActionTask) }).openapi('ActionTaskList');
const RejectBody = z.strictObject({ reason: Text(2_000).optional(), approved_by: ApproverField, comment: Text(10_000).optional() }).openapi('RejectActionRequest');
const SendBody = z
  .strictObject({
    final_content: Text(100_000).optional(),
    channel_id: Text(500).optional().openapi({ description: 'e.g. the email thread id' }),
    external_id: Text(500).optional(),
    response_deadline: Text(64).optional().openapi({ format: 'date-time', description: 'Timezone-aware ISO 8601 date-time', example: '2026-12-01T17:00:00-05:00' }),
  })
  .openapi('SendActionRequest');
const CancelBody = z.strictObject({ reason: Text(2_000).optional(), approved_by: ApproverField }).openapi('CancelActionRequest');

const CreateBody = z
  .strictObject({
    customer: UuidValue.optional().openapi({ description: 'Required unless invoice is given' }),
    invoice: NullableUuidValue.optional(),
    action_type: z.enum(['email', 'call', 'task']),
    status: z.enum(['proposed', 'scheduled']).optional().openapi({ default: 'proposed' }),
    description: Text(2_000).min(1),
    recommendation_label: Text(500).nullable().optional(),
    trigger_event_label: Text(500).nullable().optional(),
    top_recommendation: Text(100).nullable().optional(),
    is_action_required: z.boolean().optional().openapi({ default: false }),
    is_ai_recommended: z.boolean().optional().openapi({ default: true }),
    metadata: z.record(z.string(), z.unknown()).optional(),
    response_deadline: Text(64).nullable().optional().openapi({ format: 'date-time' }),
  })
  .openapi('CreateActionRequest');

const listRoute = createRoute({
  method: 'get',
  path: '/api/companies/{company_id}/actions',
  tags: [TAG],
  summary: 'List actions by inbox category, status and filters',
  security: SECURITY,
  request: { params: CompanyParams, query: ListQuery },
  responses: { 200: json(ActionList, 'One page of actions'), ...problems(400, 401, 403, 404) },
});

const getRoute = createRoute({
  method: 'get',
  path: '/api/companies/{company_id}/actions/{action_id}',
  tags: [TAG],
  summary: 'One action, whatever its status, soft-deleted ones included',
  security: SECURITY,
  request: { params: ActionParams },
  responses: { 200: json(OneAction, 'The action'), ...problems(401, 403, 404) },
});

const createActionRoute = createRoute({
  method: 'post',
  path: '/api/companies/{company_id}/actions',
  tags: ['Extensions'],
  summary: 'Create an action for a customer or one of its invoices',
  security: SECURITY,
  request: { params: CompanyParams, body: jsonBody(CreateBody) },
  responses: { 201: json(Action, 'The created action'), ...problems(400, 401, 403, 404) },
});

const deleteRoute = createRoute({
  method: 'delete',
  path: '/api/companies/{company_id}/actions/{action_id}',
  tags: ['Extensions'],
  summary: 'Soft-delete an action (hidden from lists unless include_deleted; still readable by id)',
  security: SECURITY,
  request: { params: ActionParams },
  responses: { 204: { description: 'The action is soft-deleted' }, ...problems(401, 403, 404) },
});

/** The operations' bodies are optional: every field is, so a bare POST is a valid request. */
function operationRoute<B extends z.ZodType>(operation: string, summary: string, body: B) {
  return createRoute({
    method: 'post',
    path: `/api/companies/{company_id}/actions/{action_id}/${operation}`,
    tags: [TAG],
    summary,
    security: SECURITY,
    request: { params: ActionParams, body: jsonBody(body, false) },
    responses: { 200: json(Action, 'The action after the operation'), ...problems(400, 401, 403, 404, 409) },
  });
}

const approveRoute = operationRoute('approve', 'Approve: proposed or scheduled -> processing; final_content kept in metadata', ApproveBody);
const rejectRoute = operationRoute('reject', 'Reject: any status but completed -> cancelled', RejectBody);
const sendRoute = operationRoute('send', 'Send: proposed or scheduled -> completed, delivery recorded', SendBody);
const cancelRoute = operationRoute('cancel', 'Cancel: proposed, scheduled or processing -> cancelled', CancelBody);
const retryRoute = createRoute({
  method: 'post',
  path: '/api/companies/{company_id}/actions/{action_id}/retry',
  tags: ['Extensions'],
  summary: 'Send an approved email action again after its send failed, optionally with an edited text',
  security: SECURITY,
  request: { params: ActionParams, body: jsonBody(RetryBody, false) },
  responses: { 200: json(Action, 'The action, its send queued again'), ...problems(400, 401, 403, 404, 409) },
});
const attachmentsRoute = createRoute({
  method: 'get',
  path: '/api/companies/{company_id}/actions/{action_id}/attachments',
  tags: ['Extensions'],
  summary: "The documents an email action can attach (approve's attach), made now to show their names and sizes; empty for a call or task",
  security: SECURITY,
  request: { params: ActionParams },
  responses: {
    200: json(
      z
        .object({ data: z.array(AttachmentPreview).openapi({ description: "The invoice's copy (an action about an invoice), then the customer's statement as of today; the send makes them again with the figures of that moment" }) })
        .openapi('ActionAttachmentList'),
      'The documents',
    ),
    ...problems(401, 403, 404),
  },
});
const envelopeRoute = createRoute({
  method: 'get',
  path: '/api/companies/{company_id}/actions/{action_id}/envelope',
  tags: ['Extensions'],
  summary: 'What approving an email action sends: from (the default connection), to (the addresses the send picks), the subject, the documents ticked by default, and what the contact rule holds it for now',
  security: SECURITY,
  request: { params: ActionParams },
  responses: {
    200: json(
      z
        .object({
          from: z.object({ connection: Uuid, name: z.string(), address: z.string() }).nullable().openapi({ description: 'Null: no active default connection (the send would fail: add one in Settings)' }),
          to: z.array(z.string()).openapi({ description: "The billing contact's address, else every contact's; bounced ones left out. Empty for a call or task" }),
          subject: z.string().openapi({ description: 'final_subject, else the draft subject; approve with final_subject to send another' }),
          attach: z.array(z.enum(ATTACHMENT_KINDS)).openapi({ description: "The action's choice, else invoice_pdf for an email about an invoice" }),
          hold: z
            .object({
              reason: z.string().openapi({ description: "The contact rule's answer as approving would get it now ('Held: ...')" }),
              override_refused: z.string().nullable().openapi({ description: 'Why approving with override_reason is refused (an owner forbids sending through one of these holds); null: it may be sent anyway with a reason' }),
            })
            .nullable()
            .openapi({ description: 'What holds the email now; null when it would go (and for a call or task)' }),
        })
        .openapi('ActionEnvelope'),
      'The envelope',
    ),
    ...problems(401, 403, 404),
  },
});
const logRoute = createRoute({
  method: 'post',
  path: '/api/companies/{company_id}/actions/{action_id}/log',
  tags: ['Extensions'],
  summary: 'Log the call (or a note) of an approved call or task: the communication is recorded and the action completed',
  security: SECURITY,
  request: { params: ActionParams, body: jsonBody(LogBody, false) },
  responses: { 200: json(Action, 'The completed action'), ...problems(400, 401, 403, 404) },
});
const tasksRoute = createRoute({
  method: 'get',
  path: '/api/companies/{company_id}/action-tasks',
  tags: ['Extensions'],
  summary: 'Approved calls and tasks waiting to be done, the caller’s own first, with phone numbers and evidence',
  security: SECURITY,
  request: { params: CompanyParams },
  responses: { 200: json(ActionTaskList, 'The approved calls and tasks'), ...problems(401, 403, 404) },
});
const completeRoute = operationRoute('complete', 'Complete without sending: proposed, scheduled or processing -> completed', z.strictObject({}).openapi('CompleteActionRequest'));

export function actionRoutes() {
  const router = createRouter();

  router.openapi(listRoute, async (c) => {
    const q = c.req.valid('query');
    const filter = resolveActionList({
      category: q.category,
      status: q.status,
      invoiceId: q.invoice_id,
      customerId: q.customer_id,
      actionType: q.action_type,
      arOwner: q.ar_owner,
      search: q.search,
      includeDeleted: q.include_deleted,
      includeAlternatives: q.include_alternatives,
      executedAfter: q.executed_after,
      executedBefore: q.executed_before,
      sort: q.sort,
      direction: q.direction,
      page: q.page,
      pageSize: q.page_size,
    });
    const { engine } = c.var;
    const companyId = scopeOf(c).companyId;
    const page = await listActions(engine.db, companyId, filter, workingDate(engine, companyId));
    // The rule's answer beside each open email action: the inbox says who is held and why before anyone approves.
    const holds = await actionContactHolds(engine.db, companyId, page.data, timestamp(engine.clock));
    return c.json({ ...page, data: page.data.map((a) => ({ ...a, contact_hold: holds.get(a.id) ?? null })) }, 200);
  });

  router.openapi(createActionRoute, async (c) => {
    return c.json(await createAction(c.var.engine, scopeOf(c), c.req.valid('json')), 201);
  });

  router.openapi(getRoute, async (c) => {
    const { engine } = c.var;
    const companyId = scopeOf(c).companyId;
    const id = c.req.valid('param').action_id;
    const action = await getAction(engine.db, companyId, id, workingDate(engine, companyId));
    return c.json({ ...action, contact_hold: await actionContactHold(engine.db, companyId, action.id, timestamp(engine.clock)) }, 200);
  });

  router.openapi(deleteRoute, async (c) => {
    await deleteAction(c.var.engine, scopeOf(c), c.req.valid('param').action_id);
    return c.body(null, 204);
  });

  router.openapi(approveRoute, async (c) =>
    c.json(await approveAction(c.var.engine, scopeOf(c), c.req.valid('param').action_id, c.req.valid('json')), 200),
  );
  router.openapi(rejectRoute, async (c) =>
    c.json(await rejectAction(c.var.engine, scopeOf(c), c.req.valid('param').action_id, c.req.valid('json')), 200),
  );
  router.openapi(sendRoute, async (c) => c.json(await sendAction(c.var.engine, scopeOf(c), c.req.valid('param').action_id, c.req.valid('json')), 200));
  router.openapi(cancelRoute, async (c) =>
    c.json(await cancelAction(c.var.engine, scopeOf(c), c.req.valid('param').action_id, c.req.valid('json')), 200),
  );
  router.openapi(completeRoute, async (c) => c.json(await completeAction(c.var.engine, scopeOf(c), c.req.valid('param').action_id), 200));
  router.openapi(retryRoute, async (c) => c.json(await retryAction(c.var.engine, scopeOf(c), c.req.valid('param').action_id, c.req.valid('json') ?? {}), 200));
  router.openapi(envelopeRoute, async (c) => c.json(await actionEnvelope(c.var.engine.db, scopeOf(c).companyId, c.req.valid('param').action_id, timestamp(c.var.engine.clock)), 200));
  router.openapi(attachmentsRoute, async (c) => c.json({ data: await actionAttachmentPreview(c.var.engine, scopeOf(c).companyId, c.req.valid('param').action_id) }, 200));
  router.openapi(logRoute, async (c) => c.json(await logActionCall(c.var.engine, scopeOf(c), c.req.valid('param').action_id, c.req.valid('json') ?? {}), 200));
  router.openapi(tasksRoute, async (c) => {
    const scope = scopeOf(c);
    return c.json({ data: await listActionTasks(c.var.engine.db, scope.companyId, await ownMemberId(c.var.engine.db, scope.companyId, scope.actor.userId)) }, 200);
  });

  return router;
}
