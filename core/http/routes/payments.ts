import { createRoute, z } from '@hono/zod-openapi';
import { ValidationError } from '../../errors';
import { changePaymentStatus, recordPayment } from '../../payments/commands';
import { getPayment, listInvoicePayments, listPayments, PAYMENT_PAGE_DEFAULT, PAYMENT_PAGE_MAX } from '../../payments/queries';
import { normalizePaymentMethod, PAYMENT_STATUSES, type PaymentOperation, RECORDABLE_STATUSES } from '../../payments/rules';
import { scopeOf } from '../context';
import { CompanyParams, createRouter, DateString, idParams, json, jsonBody, problems, SECURITY, Text, Timestamp, Uuid, UuidValue } from '../openapi';

/**
 * limit/offset paging for the extension lists (payments, customers): `count` is always the total
 * matching, a limit above the maximum is lowered to it, anything that is not a whole number is a 400.
 */
export function offsetPaging(defaultLimit: number, maxLimit: number) {
  const whole = z.string().regex(/^\d{1,9}$/, 'Must be a whole number').transform(Number);
  return {
    limit: whole
      .refine((n) => n >= 1, 'Must be at least 1')
      .transform((n) => Math.min(n, maxLimit))
      .optional()
      .openapi({ type: 'integer', minimum: 1, default: defaultLimit, description: `Page size; default ${defaultLimit}, values above ${maxLimit} are lowered to ${maxLimit}` }),
    offset: whole.optional().openapi({ type: 'integer', minimum: 0, default: 0, description: 'Rows to skip' }),
  };
}

export const Payment = z
  .object({
    id: Uuid,
    invoice: Uuid.openapi({ description: 'Invoice the payment is applied to' }),
    invoice_number: z.string(),
    company: Uuid,
    payment_type: z.string().openapi({ example: 'PAYMENT', description: 'Upper-case code; PAYMENT unless given' }),
    amount: z.number().openapi({ example: 1250.5 }),
    payment_date: DateString.openapi({ description: 'Date the payment was transacted' }),
    payment_method: z.string().openapi({ example: 'ACH', description: 'Upper-case code, e.g. ACH, CHECK, CREDIT_CARD, WIRE' }),
    transaction_id: z.string().nullable(),
    remote_id: z.string().nullable().openapi({ description: 'Identifier in the upstream accounting system; unique per company' }),
    status: z.enum(PAYMENT_STATUSES).openapi({
      description: 'PAID settles the open balance it was applied to, PARTIAL leaves some open; PENDING and FAILED do not count toward paid_amount; VOIDED was cancelled',
    }),
    notes: z.string().nullable(),
    status_reason: z.string().nullable().openapi({ description: 'Why it was last voided, settled or failed, as written by whoever did it' }),
    created_at: Timestamp,
  })
  .openapi('Payment');

const StatusChange = z
  .strictObject({ reason: Text(500).nullable().optional().openapi({ description: 'Why (kept on the payment and in the audit trail)', example: 'Returned ACH R01' }) })
  .openapi('PaymentStatusChange');

const PaymentList = z.object({ count: z.number().int(), data: z.array(Payment) }).openapi('PaymentList');

const PaymentParams = idParams('payment_id');
const InvoiceParams = idParams('invoice_id');

const ListQuery = z.object({
  status: z.enum(PAYMENT_STATUSES).optional().openapi({ description: 'One payment status' }),
  payment_method: Text(40).trim().min(1).optional().openapi({ description: 'Payment method, case-insensitive (credit card matches CREDIT_CARD)' }),
  date_from: DateString.optional().openapi({ description: 'payment_date on or after' }),
  date_to: DateString.optional().openapi({ description: 'payment_date on or before' }),
  customer_id: UuidValue.optional().openapi({ description: "Extension: only the payments on this customer's invoices" }),
  ...offsetPaging(PAYMENT_PAGE_DEFAULT, PAYMENT_PAGE_MAX),
});


const NewPayment = z
  .strictObject({
    invoice: Uuid,
    amount: z.number().openapi({ description: 'More than zero, at most two decimals', example: 1250.5 }),
    payment_date: DateString.optional().openapi({ description: 'Default today; not in the future' }),
    payment_method: Text(40).optional().openapi({ description: 'Default OTHER; stored upper-case', example: 'ACH' }),
    payment_type: Text(40).optional().openapi({ description: 'Default PAYMENT; stored upper-case' }),
    status: z.enum(RECORDABLE_STATUSES).optional().openapi({ description: 'Default PAID when the amount covers the open balance, else PARTIAL' }),
    transaction_id: Text(200).nullable().optional(),
    remote_id: Text(200).nullable().optional().openapi({ description: 'Unique per company: a second payment with it is a 409' }),
    notes: Text(5000).nullable().optional(),
  })
  .openapi('NewPayment');

const listRoute = createRoute({
  method: 'get',
  path: '/api/companies/{company_id}/payments',
  tags: ['Payments'],
  summary: 'List payments, newest payment date first',
  description: `Ties on payment_date are ordered by id descending (creation order). Paging (extension): limit (default ${PAYMENT_PAGE_DEFAULT}, at most ${PAYMENT_PAGE_MAX}) and offset; count is the total matching the filters.`,
  security: SECURITY,
  request: { params: CompanyParams, query: ListQuery },
  responses: { 200: json(PaymentList, 'Payments'), ...problems(400, 401, 403, 404) },
});

const getRoute = createRoute({
  method: 'get',
  path: '/api/companies/{company_id}/payments/{payment_id}',
  tags: ['Payments'],
  summary: 'One payment',
  security: SECURITY,
  request: { params: PaymentParams },
  responses: { 200: json(Payment, 'The payment'), ...problems(401, 403, 404) },
});

const invoicePaymentsRoute = createRoute({
  method: 'get',
  path: '/api/companies/{company_id}/invoices/{invoice_id}/payments',
  tags: ['Invoices'],
  summary: "An invoice's payments, newest first",
  security: SECURITY,
  request: { params: InvoiceParams },
  responses: { 200: json(PaymentList, "The invoice's payments"), ...problems(401, 403, 404) },
});

const createPaymentRoute = createRoute({
  method: 'post',
  path: '/api/companies/{company_id}/payments',
  tags: ['Extensions'],
  summary: "Record a payment; the invoice's paid_amount, balance and status change with it",
  description:
    'Overpayment is allowed (the invoice closes as closed_overpaid). An invoice closed by a credit memo or written off takes no payments (409). PENDING and FAILED payments do not count toward paid_amount.',
  security: SECURITY,
  request: { params: CompanyParams, body: jsonBody(NewPayment) },
  responses: { 201: json(Payment, 'The recorded payment'), ...problems(400, 401, 403, 404, 409) },
});

const OPERATION_TEXT: Record<PaymentOperation, string> = {
  void: 'Void a payment: it becomes VOIDED and stops counting; the invoice reopens if it no longer is paid. Voiding a voided payment returns it unchanged.',
  settle: 'Settle a PENDING payment: it becomes PAID or PARTIAL and counts toward the invoice. Settling a settled payment returns it unchanged.',
  fail: 'Mark a PENDING payment FAILED (e.g. a returned ACH). Repeating it returns the payment unchanged.',
};

function operationRoute(operation: PaymentOperation) {
  return createRoute({
    method: 'post',
    path: `/api/companies/{company_id}/payments/{payment_id}/${operation}`,
    tags: ['Extensions'],
    summary: OPERATION_TEXT[operation],
    security: SECURITY,
    request: { params: PaymentParams, body: jsonBody(StatusChange, false) },
    responses: { 200: json(Payment, 'The payment after the operation'), ...problems(400, 401, 403, 404, 409) },
  });
}

export function paymentRoutes() {
  const router = createRouter()
    .openapi(listRoute, async (c) => {
      const q = c.req.valid('query');
      if (q.date_from && q.date_to && q.date_from > q.date_to) {
        throw new ValidationError('The query parameters are invalid', { date_to: ['Must be on or after date_from'] });
      }
      const { companyId } = scopeOf(c);
      const filters = { status: q.status, paymentMethod: q.payment_method ? normalizePaymentMethod(q.payment_method) : undefined, dateFrom: q.date_from, dateTo: q.date_to, customerId: q.customer_id };
      return c.json(await listPayments(c.var.engine.db, companyId, filters, { limit: q.limit ?? PAYMENT_PAGE_DEFAULT, offset: q.offset ?? 0 }), 200);
    })
    .openapi(getRoute, async (c) => c.json(await getPayment(c.var.engine.db, scopeOf(c).companyId, c.req.valid('param').payment_id), 200))
    .openapi(invoicePaymentsRoute, async (c) => c.json(await listInvoicePayments(c.var.engine.db, scopeOf(c).companyId, c.req.valid('param').invoice_id), 200))
    .openapi(createPaymentRoute, async (c) => c.json(await recordPayment(c.var.engine, scopeOf(c), c.req.valid('json')), 201));
  for (const operation of ['void', 'settle', 'fail'] as const) {
    router.openapi(operationRoute(operation), async (c) => {
      // The body is optional: without one there is nothing to validate.
      const body = (c.req.valid('json') as { reason?: string | null } | undefined) ?? {};
      return c.json(await changePaymentStatus(c.var.engine, scopeOf(c), c.req.valid('param').payment_id, operation, body.reason ?? null), 200);
    });
  }
  return router;
}
