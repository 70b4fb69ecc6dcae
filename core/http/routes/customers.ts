import { createRoute, z } from '@hono/zod-openapi';
import { createCustomer, updateCustomer } from '../../customers/commands';
import { CUSTOMER_PAGE_DEFAULT, CUSTOMER_PAGE_MAX, CUSTOMER_SORTS, getCustomer, listCustomers } from '../../customers/queries';
import { MAX_CONTACTS, MAX_LOCATIONS, MAX_PAYMENT_TERMS_DAYS } from '../../customers/rules';
import { today } from '../../clock';
import { scopeOf } from '../context';
import { CompanyParams, createRouter, idParams, json, jsonBody, problems, QueryBool, SearchText, SECURITY, Text, Timestamp, Uuid, UuidValue } from '../openapi';
import { offsetPaging } from './payments';

const TAGS = ['Extensions'];

const PersonRef = z.object({ id: Uuid, name: z.string() }).openapi('TeamMemberRef');

const Customer = z
  .object({
    id: Uuid,
    name: z.string(),
    is_person: z.boolean().openapi({ description: 'true for an individual, false for a company account' }),
    ar_owner: PersonRef.nullable(),
    sales_owner: PersonRef.nullable(),
    remote_id: z.string().nullable(),
    currency: z.string().openapi({ example: 'USD' }),
    payment_terms_days: z.number().int(),
    notes: z.string().nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .openapi('Customer');

const Contact = z
  .object({
    id: Uuid,
    name: z.string(),
    email: z.string().nullable(),
    phone: z.string().nullable(),
    title: z.string().nullable(),
    is_billing: z.boolean(),
    email_failing: z.boolean().openapi({ description: 'A message to this address bounced (cleared when the address changes)' }),
    email_failed_at: Timestamp.nullable().openapi({ description: 'When the bounce happened' }),
    email_failure: z.string().nullable().openapi({ description: "The mail server's reason for the bounce" }),
  })
  .openapi('CustomerContact');

const Location = z
  .object({
    id: Uuid,
    name: z.string(),
    address_line1: z.string().nullable(),
    city: z.string().nullable(),
    region: z.string().nullable(),
    postal_code: z.string().nullable(),
    country: z.string().nullable(),
  })
  .openapi('CustomerLocation');

const CustomerDetail = Customer.extend({
  contacts: z.array(Contact),
  locations: z.array(Location),
  balance: z
    .object({ open_invoice_count: z.number().int(), open_balance: z.number(), overdue_invoice_count: z.number().int(), overdue_balance: z.number() })
    .openapi({ description: 'Open invoices and those of them past due with a positive balance' }),
  last_reply_at: Timestamp.nullable().openapi({ description: 'When the customer last replied by email (read from the mailbox); null if never' }),
}).openapi('CustomerDetail');

const CustomerListItem = Customer.extend({
  open_balance: z.number().openapi({ description: 'Balance of the open invoices' }),
  overdue_balance: z.number().openapi({ description: 'Balance of the open invoices past due today' }),
  oldest_open_due_date: z.string().nullable().openapi({ description: 'Due date of the oldest open invoice with a balance' }),
  last_touch_at: Timestamp.nullable().openapi({ description: 'Latest last touch of any of its invoices' }),
  risk: z
    .enum(['high', 'medium', 'low'])
    .nullable()
    .openapi({ description: "Risk as a collector means it: how late the oldest unpaid invoice is and the balance past due first, then the customer's active signal; null when nothing is" }),
  risk_reason: z.string().openapi({ description: 'Why, in words: "$18,012.00 past due, the oldest 97 days late; Promise to pay broken", or "Nothing past due"' }),
}).openapi('CustomerListItem');

const CustomerList = z.object({ count: z.number().int(), data: z.array(CustomerListItem) }).openapi('CustomerList');

const ContactInput = z
  .strictObject({
    id: Uuid.optional().openapi({ description: 'Keep this existing contact (its id stays); omit for a new one' }),
    name: Text(200).optional().openapi({ description: 'Defaults to the email' }),
    email: Text(254).nullable().optional(),
    phone: Text(50).nullable().optional(),
    title: Text(100).nullable().optional(),
    is_billing: z.boolean().optional().openapi({ description: 'Reminders go to the billing contact; at most one per customer' }),
  })
  .openapi('CustomerContactInput');

const LocationInput = z
  .strictObject({
    id: Uuid.optional().openapi({ description: 'Keep this existing location (invoices keep pointing at it); omit for a new one' }),
    name: Text(200),
    address_line1: Text(300).nullable().optional(),
    city: Text(100).nullable().optional(),
    region: Text(100).nullable().optional(),
    postal_code: Text(20).nullable().optional(),
    country: Text(100).nullable().optional(),
  })
  .openapi('CustomerLocationInput');

const fields = {
  is_person: z.boolean().optional(),
  ar_owner: Uuid.nullable().optional().openapi({ description: 'Team member id of this company' }),
  sales_owner: Uuid.nullable().optional().openapi({ description: 'Team member id of this company' }),
  remote_id: Text(200).nullable().optional().openapi({ description: 'Identifier in the upstream accounting system; unique per company' }),
  payment_terms_days: z.number().int().min(0).max(MAX_PAYMENT_TERMS_DAYS).optional(),
  currency: Text(3).optional().openapi({ description: "Three-letter code; default the company's currency", example: 'USD' }),
  notes: Text(5000).nullable().optional(),
  contacts: z.array(ContactInput).max(MAX_CONTACTS).optional().openapi({ description: 'Replaces the whole set of contacts' }),
  locations: z.array(LocationInput).max(MAX_LOCATIONS).optional().openapi({ description: 'Replaces the whole set of locations' }),
};

const NewCustomer = z.strictObject({ name: Text(200), ...fields }).openapi('NewCustomer');
const CustomerPatch = z.strictObject({ name: Text(200).optional(), ...fields }).openapi('CustomerPatch');

const ListQuery = z.object({
  search: SearchText.optional()
    .openapi({ description: 'Case-insensitive partial match on the name' }),
  is_person: QueryBool.optional(),
  ar_owner: UuidValue.optional().openapi({ description: 'Customers of this AR owner (team member id)' }),
  sales_owner: UuidValue.optional().openapi({ description: 'Customers of this sales owner (team member id)' }),
  sort: z.enum(CUSTOMER_SORTS).optional().openapi({ description: 'name (default), balance (open balance), oldest_due (oldest open due date), ar_owner; empty values last' }),
  order: z.enum(['asc', 'desc']).optional().openapi({ description: 'Default asc' }),
  ...offsetPaging(CUSTOMER_PAGE_DEFAULT, CUSTOMER_PAGE_MAX),
});

const CustomerParams = idParams('customer_id');

const listRoute = createRoute({
  method: 'get',
  path: '/api/companies/{company_id}/customers',
  tags: TAGS,
  summary: 'List customers with their balances',
  description: `Sorted by name, balance, oldest open due date or AR owner, then name and id. Paging: limit (default ${CUSTOMER_PAGE_DEFAULT}, at most ${CUSTOMER_PAGE_MAX}) and offset; count is the total matching.`,
  security: SECURITY,
  request: { params: CompanyParams, query: ListQuery },
  responses: { 200: json(CustomerList, 'Customers'), ...problems(400, 401, 403, 404) },
});

const getRoute = createRoute({
  method: 'get',
  path: '/api/companies/{company_id}/customers/{customer_id}',
  tags: TAGS,
  summary: 'One customer with contacts, locations and open balance',
  security: SECURITY,
  request: { params: CustomerParams },
  responses: { 200: json(CustomerDetail, 'The customer'), ...problems(401, 403, 404) },
});

const createRouteDef = createRoute({
  method: 'post',
  path: '/api/companies/{company_id}/customers',
  tags: TAGS,
  summary: 'Create a customer',
  security: SECURITY,
  request: { params: CompanyParams, body: jsonBody(NewCustomer) },
  responses: { 201: json(CustomerDetail, 'The created customer'), ...problems(400, 401, 403, 404, 409) },
});

const patchRoute = createRoute({
  method: 'patch',
  path: '/api/companies/{company_id}/customers/{customer_id}',
  tags: TAGS,
  summary: 'Update a customer; contacts and locations, when given, replace the whole set',
  security: SECURITY,
  request: { params: CustomerParams, body: jsonBody(CustomerPatch) },
  responses: { 200: json(CustomerDetail, 'The updated customer'), ...problems(400, 401, 403, 404, 409) },
});

export function customerRoutes() {
  return createRouter()
    .openapi(listRoute, async (c) => {
      const q = c.req.valid('query');
      const filters = { search: q.search, isPerson: q.is_person, arOwner: q.ar_owner?.toLowerCase(), salesOwner: q.sales_owner?.toLowerCase() };
      const page = { limit: q.limit ?? CUSTOMER_PAGE_DEFAULT, offset: q.offset ?? 0, sort: q.sort, order: q.order, today: today(c.var.engine.clock) };
      return c.json(await listCustomers(c.var.engine.db, scopeOf(c).companyId, filters, page), 200);
    })
    .openapi(getRoute, async (c) =>
      c.json(await getCustomer(c.var.engine.db, scopeOf(c).companyId, c.req.valid('param').customer_id, today(c.var.engine.clock)), 200),
    )
    .openapi(createRouteDef, async (c) => c.json(await createCustomer(c.var.engine, scopeOf(c), c.req.valid('json')), 201))
    .openapi(patchRoute, async (c) => c.json(await updateCustomer(c.var.engine, scopeOf(c), c.req.valid('param').customer_id, c.req.valid('json')), 200));
}
