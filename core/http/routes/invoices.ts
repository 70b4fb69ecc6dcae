/**
 * The spec's invoice endpoints: list (filters, groups, keyset cursor, facets), summary, read,
 * create, update, replace and bulk update. /invoices/summary and /invoices/bulk are registered
 * before /invoices/{invoice_id} so the parameter route never captures them.
 */
import { createRoute, z } from '@hono/zod-openapi';
import { bulkUpdateInvoices, createInvoice, replaceInvoice, updateInvoice } from '../../invoices/commands';
import { getInvoiceDetail } from '../../invoices/detail';
import { DEFAULT_LIMIT, listInvoices, MAX_LIMIT } from '../../invoices/list';
import { isPaymentLink, MAX_BULK_IDS, MAX_NUMBER_LENGTH } from '../../invoices/rules';
import { FOLLOW_UP_WINDOWS } from '../../invoices/filters';
import { ATTENTION_REASONS } from '../../invoices/attention';
import { ORDER_KEYS, parseSort, SORT_VALUES } from '../../invoices/sort';
import { teamMemberOfUser } from '../../team/team';
import type { Db } from '../../db/connection';
import type { Actor } from '../../engine';
import { AGING_BUCKETS, CONCRETE_STATUSES, STATUS_VALUES } from '../../invoices/status';
import { invoiceSummary } from '../../invoices/summary';
import { ValidationError } from '../../errors';
import { isUuid } from '../../ids';
import { scopeOf } from '../context';
import { CompanyParams, createRouter, DateString, idParams, json, jsonBody, MoneyValue, problems, QueryBool, SearchText, SECURITY, Text, Timestamp, Uuid, UuidValue } from '../openapi';

const TAGS = ['Invoices'];
const NOBODY = '00000000-0000-0000-0000-000000000000';

// ---- Shared pieces -------------------------------------------------------------------------

/** A comma-separated multi-select: each value must be one of `values`; repeats are dropped. */
function csvOf<T extends string>(values: readonly T[], what: string, description: string) {
  return z
    .string()
    .transform((raw, ctx) => {
      const parts = [...new Set(raw.split(',').map((s) => s.trim()).filter(Boolean))];
      const bad = parts.filter((p) => !(values as readonly string[]).includes(p));
      if (bad.length) {
        ctx.addIssue({ code: 'custom', message: `unknown ${what}: ${bad.join(', ')} (expected ${values.join(', ')})` });
        return z.NEVER;
      }
      return parts as T[];
    })
    .openapi({ type: 'string', description, example: values.slice(0, 2).join(',') });
}

const UuidCsv = z
  .string()
  .transform((raw, ctx) => {
    const parts = [...new Set(raw.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean))];
    const bad = parts.filter((p) => !isUuid(p));
    if (bad.length) {
      ctx.addIssue({ code: 'custom', message: `not UUIDs: ${bad.join(', ')}` });
      return z.NEVER;
    }
    return parts;
  })
  .openapi({ type: 'string', description: 'Comma-separated label UUIDs; an invoice matches when it has any of them' });

const Money = MoneyValue;

const PaymentLink = z
  .string()
  .refine(isPaymentLink, 'must be an absolute http(s) URL of at most 2048 characters')
  .openapi({ format: 'uri', example: 'https://pay.example.com/inv/INV-000123', description: 'The payment portal URL' });

const InvoiceNumber = Text(MAX_NUMBER_LENGTH).trim().min(1).openapi({ example: 'INV-000123' });
const LabelIds = z.array(UuidValue).max(100);

/** Strict bodies: a misspelt or read-only field (paid_amount, balance: they follow from payments) is a 400, not silently dropped. */
function body<S extends z.ZodRawShape>(shape: S) {
  return z.strictObject(shape, {
    error: (issue) => (issue.code === 'unrecognized_keys' ? `not writable here: ${issue.keys.join(', ')}` : undefined),
  });
}

// ---- Response schemas ---------------------------------------------------------------------

const StatusEnum = z.enum(CONCRETE_STATUSES).openapi('InvoiceStatus');
const AgingEnum = z.enum(AGING_BUCKETS).openapi('AgingBucket');
const statusRecord = (description: string) => z.object(Object.fromEntries(STATUS_VALUES.map((s) => [s, z.number()])) as Record<(typeof STATUS_VALUES)[number], z.ZodNumber>).openapi({ description });
const bucketRecord = <T extends z.ZodType>(value: T) => z.object(Object.fromEntries(AGING_BUCKETS.map((b) => [b, value])) as Record<(typeof AGING_BUCKETS)[number], T>);

const LabelRef = z.object({ id: Uuid, name: z.string(), color: z.string() }).openapi('InvoiceLabel');
const SignalRef = z
  .object({
    insight_id: Uuid,
    insight_type: z.string().openapi({ example: 'invoice_signal' }),
    signal: z.record(z.string(), z.unknown()),
    detected_at: Timestamp,
  })
  .openapi('InvoiceSignal', { description: 'An active *_signal insight on the invoice that found a material change' });

const InvoiceItem = z
  .object({
    id: Uuid,
    customer: Uuid,
    customer_name: z.string(),
    invoice_number: z.string(),
    invoice_date: DateString,
    due_date: DateString,
    currency: z.string().openapi({ example: 'USD' }),
    total_amount: z.number(),
    paid_amount: z.number(),
    balance: z.number().openapi({ description: 'What is still owed: total less settled payments while open, 0 for every closed invoice (paid, overpaid, credited or written off); what sort=balance orders and hide_zero_balance reads' }),
    open_balance: z.number().openapi({ description: 'The same as balance (kept for existing callers)' }),
    balance_at_closing: z.number().nullable().openapi({ description: 'Extension: what was left of the total when the invoice closed (written off or credited; below 0 when overpaid); null while open' }),
    pending_amount: z.number().openapi({ description: 'Sum of the invoice’s PENDING payments (in flight, not yet counted as paid)' }),
    status: StatusEnum,
    status_display: z.string().openapi({ example: 'Past due 31-60' }),
    days_outstanding: z.number().int(),
    days_past_due: z.number().int().openapi({ description: 'Whole days past the due date of an open invoice; 0 when not yet due or closed' }),
    aging_bucket: AgingEnum,
    ar_owner: z.string().nullable().openapi({ description: 'Display name of the customer’s AR owner' }),
    last_touch_date: Timestamp.nullable(),
    last_touched_by: z.string().nullable(),
    labels: z.array(LabelRef),
    signals: z.array(SignalRef),
    predicted_pay_date: DateString.nullable().openapi({
      description: 'Extension: the date of the active invoice_pay_date_prediction insight; null when there is none or it could not predict. Not a sort key.',
    }),
    next_follow_up_date: DateString.nullable(),
    payment_link: z.string().nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
    attention: z
      .array(z.object({ reason: z.enum(ATTENTION_REASONS), label: z.string().openapi({ example: 'Follow-up 2 days overdue' }) }).openapi('AttentionNote'))
      .optional()
      .openapi({ description: 'With attention=true: why the invoice needs work today, the most pressing first' }),
  })
  .openapi('Invoice');

const DunningStep = z
  .object({
    step: z.number().int().openapi({ description: 'Position of the step in its sequence' }),
    step_id: Uuid,
    scheduled_step_id: Uuid,
    label: z.string(),
    scheduled_date: DateString,
    channel: z.enum(['email', 'call', 'task']),
    status: z.enum(['scheduled', 'ready', 'sent', 'completed', 'cancelled', 'failed']),
    sent_at: Timestamp.nullable(),
    held_reason: z.string().nullable().openapi({ description: 'Extension: why a scheduled or ready step does not go (its enrollment paused, the contact rule held it, this invoice disputed), in words; null when nothing holds it' }),
  })
  .openapi('DunningStep');

const InvoiceDetail = InvoiceItem.extend({
  is_progress_invoice: z.boolean(),
  parent_invoice: Uuid.nullable(),
  progress_percentage: z.number().nullable(),
  transaction_type: z.string(),
  customer_location: Uuid.nullable(),
  closing_reason: z.enum(['paid', 'overpaid', 'credit_memo', 'written_off']).nullable(),
  closed_date: DateString.nullable(),
  remote_id: z.string().nullable(),
  dunning_plan: z.array(DunningStep).optional().openapi({ description: 'Present only while a collection program (an active enrollment of the customer) covers the invoice' }),
  covered_by: z
    .object({
      action: Uuid,
      action_type: z.enum(['email', 'call', 'task']),
      status: z.enum(['proposed', 'scheduled', 'processing']),
      description: z.string(),
      invoice_count: z.number().int(),
    })
    .nullable()
    .openapi({
      description:
        'Extension: the open decision on the customer as a whole (an action without invoice) that lists this invoice (metadata.invoice_ids), so the invoice has no decision of its own for it: the Actions inbox shows it once; null when none',
    }),
}).openapi('InvoiceDetail');

const CustomerGroupRow = z
  .object({
    customer: Uuid,
    customer_name: z.string(),
    ar_owner: z.string().nullable(),
    is_person: z.boolean(),
    currency: z.string().openapi({ example: 'USD' }),
    invoice_count: z.number().int(),
    total_amount: z.number(),
    balance: z.number(),
    overdue_balance: z.number(),
    oldest_due_date: DateString,
    aging_balances: bucketRecord(z.number()).openapi({ description: 'Balance of the group’s open invoices per aging bucket' }),
  })
  .openapi('InvoiceCustomerGroup', { description: 'A group_by=customer row: totals of the customer’s matching invoices' });

const AppliedFilters = z
  .object({
    company_id: Uuid,
    status: z.array(z.enum(STATUS_VALUES)).optional(),
    aging_bucket: z.array(AgingEnum).optional(),
    customer_id: Uuid.optional(),
    due_date_from: DateString.optional(),
    due_date_to: DateString.optional(),
    overdue_only: z.boolean().optional(),
    search: z.string().optional(),
    ar_owner: Uuid.optional(),
    sales_owner: Uuid.optional(),
    is_person: z.boolean().optional(),
    labels: z.array(Uuid).optional(),
    hide_zero_balance: z.boolean().optional(),
    follow_up: z.array(z.enum(FOLLOW_UP_WINDOWS)).optional(),
    attention: z.boolean().optional(),
    group_by: z.enum(['customer']).optional(),
    group_mode: z.enum(['children']).optional(),
    sort: z.enum(ORDER_KEYS),
    order: z.enum(['asc', 'desc']),
  })
  .openapi('InvoiceAppliedFilters');

const InvoiceList = z
  .object({
    count: z.number().int().optional().openapi({ description: 'Invoices matching the filters (customer rows with group_by=customer); first page only' }),
    facets: statusRecord('Invoices per status over the filtered set without its own status filter (overdue = every past_due_*); first page only').optional(),
    limit: z.number().int(),
    has_more: z.boolean(),
    next_cursor: z.string().nullable(),
    applied_filters: AppliedFilters,
    items: z.array(z.union([InvoiceItem, CustomerGroupRow])),
  })
  .openapi('InvoiceList');

const InvoiceSummary = z
  .object({
    company_id: Uuid,
    as_of: DateString,
    currency: z.string(),
    invoice_count: z.number().int(),
    open_invoice_count: z.number().int(),
    closed_invoice_count: z.number().int(),
    total_amount: z.number().openapi({ description: 'Sum of total_amount over every invoice' }),
    total_open_balance: z.number(),
    current_balance: z.number(),
    overdue_balance: z.number(),
    overdue_invoice_count: z.number().int(),
    average_days_past_due: z.number().openapi({ description: 'Mean days past due of the overdue invoices with a balance' }),
    customers_with_open_balance: z.number().int(),
    customers_with_overdue: z.number().int(),
    customer_count: z.number().int().openapi({ description: 'Customers in the scope: all of the company, or those of the ar_owner asked for (extension)' }),
    status_counts: statusRecord('Invoices per status'),
    status_balances: statusRecord('Balance per status'),
    aging: bucketRecord(z.object({ invoice_count: z.number().int(), balance: z.number() })).openapi({ description: 'Open invoices with a balance, per aging bucket' }),
  })
  .openapi('InvoiceSummary');

// ---- Requests -----------------------------------------------------------------------------

const OwnerQuery = z
  .union([z.literal('me'), UuidValue])
  .optional()
  .openapi({ description: 'A team member id, or me: the caller’s own portfolio (nothing when the caller is not on the company’s team)' });

const SummaryQuery = z.object({ ar_owner: OwnerQuery });

/** "me" is the caller's team member; a caller outside the team owns nothing (the nil id matches no one). */
async function ownerOf(db: Db, scope: { actor: Actor; companyId: string }, owner: string): Promise<string> {
  if (owner !== 'me') return owner;
  return (scope.actor.userId && (await teamMemberOfUser(db, scope.companyId, scope.actor.userId))) ?? NOBODY;
}

const ListQuery = z.object({
  status: csvOf(STATUS_VALUES, 'status', 'Comma-separated statuses; overdue selects every past_due_* status').optional(),
  aging_bucket: csvOf(AGING_BUCKETS, 'aging bucket', 'Comma-separated aging buckets; closed invoices are in current').optional(),
  customer_id: UuidValue.optional(),
  due_date_from: DateString.optional(),
  due_date_to: DateString.optional(),
  overdue_only: QueryBool.optional().openapi({ description: 'Only open invoices with a positive balance past their due date' }),
  search: SearchText.optional().openapi({ description: 'Case-insensitive part of the invoice number or customer name' }),
  ar_owner: OwnerQuery,
  sales_owner: UuidValue.optional(),
  is_person: QueryBool.optional(),
  labels: UuidCsv.optional(),
  hide_zero_balance: QueryBool.optional(),
  follow_up: csvOf(FOLLOW_UP_WINDOWS, 'follow-up window', 'Comma-separated: open invoices whose next follow-up date is overdue (before today), today, or this_week (today to Sunday)').optional(),
  attention: QueryBool.optional().openapi({ description: 'Only the worklist (My work): open invoices past due with a balance, or with a promise due or broken, an unanswered reply, a ready dunning step or a follow-up due' }),
  group_by: z.enum(['customer']).optional(),
  group_mode: z.enum(['children']).optional(),
  sort: z
    .enum(SORT_VALUES)
    .optional()
    .openapi({
      description:
        'due_date (default; attention with attention=true), balance, amount, customer_name, days_past_due, attention (the worklist’s order) or overdue_balance (group_by=customer), optionally with _asc or _desc',
    }),
  order: z.enum(['asc', 'desc']).optional().openapi({ description: 'Used when sort has no suffix; default desc' }),
  limit: z
    .string()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .refine((n) => n >= 1, 'must be at least 1')
    .optional()
    .openapi({ type: 'integer', description: `Page size, default ${DEFAULT_LIMIT}; larger values are capped at ${MAX_LIMIT}` }),
  cursor: Text(4000).optional().openapi({ description: 'next_cursor of the previous page' }),
});

const CreateBody = body({
  customer: UuidValue,
  total_amount: Money,
  issue_date: DateString.optional().openapi({ description: 'Default today' }),
  invoice_date: DateString.optional().openapi({ description: 'Same as issue_date' }),
  due_date: DateString.optional().openapi({ description: 'Default the issue date plus the customer’s payment terms' }),
  number: InvoiceNumber.optional().openapi({ description: 'Default the next free INV-nnnnnn' }),
  payment_link: PaymentLink.nullable().optional(),
  next_follow_up_date: DateString.nullable().optional(),
  label_ids: LabelIds.optional(),
}).openapi('InvoiceCreate');

const PatchBody = body({
  due_date: DateString.optional(),
  payment_link: PaymentLink.nullable().optional(),
  next_follow_up_date: DateString.nullable().optional(),
  label_ids: LabelIds.optional().openapi({ description: 'Replaces the invoice’s whole label set' }),
}).openapi('InvoiceUpdate');

const PutBody = body({
  customer: UuidValue,
  total_amount: Money,
  invoice_date: DateString.optional().openapi({ description: 'Required (or its alias issue_date)' }),
  issue_date: DateString.optional(),
  due_date: DateString,
  number: InvoiceNumber,
  payment_link: PaymentLink.nullable().optional().openapi({ description: 'Cleared when omitted' }),
  next_follow_up_date: DateString.nullable().optional().openapi({ description: 'Cleared when omitted' }),
  label_ids: LabelIds.optional().openapi({ description: 'Replaces the label set when given; kept when omitted' }),
}).openapi('InvoiceReplace');

const BulkBody = body({
  invoice_ids: z.array(UuidValue).min(1).max(MAX_BULK_IDS),
  updates: body({
    due_date: DateString.optional(),
    next_follow_up_date: DateString.nullable().optional(),
    payment_link: PaymentLink.nullable().optional(),
  }).optional(),
  add_labels: LabelIds.optional(),
  remove_labels: LabelIds.optional(),
}).openapi('InvoiceBulkUpdate');

/** issue_date and invoice_date name the same field; both given must agree. */
function invoiceDateOf(input: { issue_date?: string; invoice_date?: string }): string | undefined {
  if (input.issue_date && input.invoice_date && input.issue_date !== input.invoice_date) {
    throw new ValidationError('issue_date and invoice_date differ', { issue_date: ['differs from invoice_date (they are the same field)'] });
  }
  return input.issue_date ?? input.invoice_date;
}

// ---- Routes --------------------------------------------------------------------------------

const base = '/api/companies/{company_id}/invoices';
const InvoiceParams = idParams('invoice_id');

const summaryRoute = createRoute({
  method: 'get',
  path: `${base}/summary`,
  tags: TAGS,
  summary: 'AR summary of the company: open and overdue balance, counts by status, aging buckets',
  security: SECURITY,
  request: { params: CompanyParams, query: SummaryQuery },
  responses: { 200: json(InvoiceSummary, 'The summary'), ...problems(400, 401, 403, 404) },
});

const bulkRoute = createRoute({
  method: 'patch',
  path: `${base}/bulk`,
  tags: TAGS,
  summary: `Update up to ${MAX_BULK_IDS} invoices at once, all or nothing`,
  description: 'Any unknown invoice or label id (or one of another company) fails the whole request with 400 naming them.',
  security: SECURITY,
  request: { params: CompanyParams, body: jsonBody(BulkBody) },
  responses: { 200: json(z.object({ updated: z.number().int() }).openapi('InvoiceBulkUpdateResult'), 'How many invoices were updated'), ...problems(400, 401, 403, 404) },
});

const listRoute = createRoute({
  method: 'get',
  path: base,
  tags: TAGS,
  summary: 'List invoices with filters, sorting, customer groups and a keyset cursor',
  security: SECURITY,
  request: { params: CompanyParams, query: ListQuery },
  responses: { 200: json(InvoiceList, 'One page of invoices (count and facets on the first page)'), ...problems(400, 401, 403, 404) },
});

const createInvoiceRoute = createRoute({
  method: 'post',
  path: base,
  tags: TAGS,
  summary: 'Create an invoice',
  security: SECURITY,
  request: { params: CompanyParams, body: jsonBody(CreateBody) },
  responses: { 201: json(InvoiceDetail, 'The created invoice'), ...problems(400, 401, 403, 404, 409) },
});

const getRoute = createRoute({
  method: 'get',
  path: `${base}/{invoice_id}`,
  tags: TAGS,
  summary: 'Read one invoice with its detail fields',
  security: SECURITY,
  request: { params: InvoiceParams },
  responses: { 200: json(InvoiceDetail, 'The invoice'), ...problems(401, 403, 404) },
});

const patchRoute = createRoute({
  method: 'patch',
  path: `${base}/{invoice_id}`,
  tags: TAGS,
  summary: 'Update individual fields; label_ids replaces the label set in the same transaction',
  security: SECURITY,
  request: { params: InvoiceParams, body: jsonBody(PatchBody) },
  responses: { 200: json(InvoiceDetail, 'The updated invoice'), ...problems(400, 401, 403, 404) },
});

const putRoute = createRoute({
  method: 'put',
  path: `${base}/{invoice_id}`,
  tags: TAGS,
  summary: 'Replace the invoice’s writable fields',
  description: 'Requires customer, total_amount, invoice_date (or issue_date), due_date and number. A new total recomputes paid_amount, balance and the closing from the payments.',
  security: SECURITY,
  request: { params: InvoiceParams, body: jsonBody(PutBody) },
  responses: { 200: json(InvoiceDetail, 'The replaced invoice'), ...problems(400, 401, 403, 404, 409) },
});

export function invoiceRoutes() {
  const router = createRouter();

  router.openapi(summaryRoute, async (c) => {
    const scope = scopeOf(c);
    const owner = c.req.valid('query').ar_owner;
    return c.json(await invoiceSummary(c.var.engine, scope.companyId, owner === undefined ? undefined : await ownerOf(c.var.engine.db, scope, owner)), 200);
  });

  router.openapi(bulkRoute, async (c) => c.json(await bulkUpdateInvoices(c.var.engine, scopeOf(c), c.req.valid('json')), 200));

  router.openapi(listRoute, async (c) => {
    const q = c.req.valid('query');
    const scope = scopeOf(c);
    const { key, dir } = parseSort(q.sort, q.order, q.attention && !q.group_by ? 'attention' : 'due_date');
    const arOwner = q.ar_owner === undefined ? undefined : await ownerOf(c.var.engine.db, scope, q.ar_owner);
    const envelope = await listInvoices(c.var.engine, scope.companyId, {
      filters: {
        status: q.status,
        agingBucket: q.aging_bucket,
        customerId: q.customer_id,
        dueDateFrom: q.due_date_from,
        dueDateTo: q.due_date_to,
        overdueOnly: q.overdue_only,
        search: q.search,
        arOwner,
        salesOwner: q.sales_owner,
        isPerson: q.is_person,
        labels: q.labels,
        hideZeroBalance: q.hide_zero_balance,
        followUp: q.follow_up,
      },
      attention: q.attention,
      groupBy: q.group_by,
      groupMode: q.group_mode,
      sort: key,
      order: dir,
      limit: q.limit,
      cursor: q.cursor,
    });
    return c.json(envelope, 200);
  });

  router.openapi(createInvoiceRoute, async (c) => {
    const input = c.req.valid('json');
    const scope = scopeOf(c);
    const id = await createInvoice(c.var.engine, scope, { ...input, issue_date: invoiceDateOf(input) });
    return c.json(await getInvoiceDetail(c.var.engine, scope.companyId, id), 201);
  });

  router.openapi(getRoute, async (c) => c.json(await getInvoiceDetail(c.var.engine, scopeOf(c).companyId, c.req.valid('param').invoice_id), 200));

  router.openapi(patchRoute, async (c) => {
    const scope = scopeOf(c);
    const { invoice_id } = c.req.valid('param');
    await updateInvoice(c.var.engine, scope, invoice_id, c.req.valid('json'));
    return c.json(await getInvoiceDetail(c.var.engine, scope.companyId, invoice_id), 200);
  });

  router.openapi(putRoute, async (c) => {
    const scope = scopeOf(c);
    const { invoice_id } = c.req.valid('param');
    const input = c.req.valid('json');
    const invoiceDate = invoiceDateOf(input);
    if (!invoiceDate) throw new ValidationError('The invoice data is invalid', { invoice_date: ['required (or issue_date)'] });
    await replaceInvoice(c.var.engine, scope, invoice_id, { ...input, invoice_date: invoiceDate });
    return c.json(await getInvoiceDetail(c.var.engine, scope.companyId, invoice_id), 200);
  });

  return router;
}
