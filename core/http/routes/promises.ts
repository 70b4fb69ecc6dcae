import { createRoute, z } from '@hono/zod-openapi';
import { customerPromises } from '../../promises/rates';
import { scopeOf } from '../context';
import { createRouter, DateString, idParams, json, problems, SECURITY, Timestamp, Uuid } from '../openapi';

const CustomerPromises = z
  .object({
    grace_days: z.number().int().openapi({ description: 'Days a promise still stands after its date; it is judged the day after' }),
    kept_count: z.number().int(),
    broken_count: z.number().int(),
    kept_rate: z.number().nullable().openapi({ description: 'Percent of the judged promises kept (void ones aside); null when none was judged yet' }),
    promises: z
      .array(
        z.object({
          invoice: Uuid.nullable().openapi({ description: 'Null: a promise for the whole account' }),
          invoice_number: z.string().nullable(),
          promised_date: DateString,
          promised_amount: z.number().nullable().openapi({ description: 'Null when no amount was said (the balance then)' }),
          outcome: z.enum(['kept', 'broken', 'void']).openapi({ description: 'void: replaced by a newer promise, or the invoice credited or written off' }),
          paid_amount: z.number().openapi({ description: 'Paid from the promise through its date plus the grace days' }),
          judged_at: Timestamp,
          action: Uuid.nullable().openapi({ description: 'The "promise broken" call proposed in the Actions inbox' }),
        }),
      )
      .openapi({ description: 'The judged promises, latest promised date first (at most 50)' }),
  })
  .openapi('CustomerPromises');

const customerPromisesRoute = createRoute({
  method: 'get',
  path: '/api/companies/{company_id}/customers/{customer_id}/promises',
  tags: ['Extensions'],
  summary: "A customer's promises to pay as judged after their date and grace, and its promise-kept rate",
  security: SECURITY,
  request: { params: idParams('customer_id') },
  responses: { 200: json(CustomerPromises, 'The judged promises and the rate'), ...problems(401, 403, 404) },
});

export function promiseRoutes() {
  return createRouter().openapi(customerPromisesRoute, async (c) => c.json(await customerPromises(c.var.engine.db, scopeOf(c).companyId, c.req.valid('param').customer_id), 200));
}
