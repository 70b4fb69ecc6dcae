import { createRoute, z } from '@hono/zod-openapi';
import { workingDate } from '../../companies/as-of';
import { assignArOwner, createCustomer, updateCustomer } from '../../customers/commands';
import { CUSTOMER_PAGE_DEFAULT, CUSTOMER_PAGE_MAX, CUSTOMER_SORTS, getCustomer, listCustomers } from '../../customers/queries';
import { MAX_CONTACTS, MAX_LOCATIONS, MAX_OWNER_IDS, MAX_PAYMENT_TERMS_DAYS } from '../../customers/rules';
import { hasAtMostTwoDecimals, MAX_AMOUNT } from '../../money';
import { scopeOf } from '../context';
import { CompanyParams, createRouter, idParams, json, jsonBody, NullableUuidValue, problems, QueryBool, SearchText, SECURITY, Text, Timestamp, Uuid, UuidValue } from '../openapi';
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
  overdue_balance: z.number().openapi({ description: 'Balance of the open invoices past due on the company\'s working date (its as-of date, else today)' }),
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
  sort: z.enum(CUSTOMER_SORTS).optional().openapi({ description: 'name (default), balance (open balance), overdue (open balance past due), oldest_due (oldest open due date), ar_owner; empty values last' }),
  order: z.enum(['asc', 'desc']).optional().openapi({ description: 'Default asc' }),
  ...offsetPaging(CUSTOMER_PAGE_DEFAULT, CUSTOMER_PAGE_MAX),
});

const BalanceBound = z.number().min(-MAX_AMOUNT).max(MAX_AMOUNT).refine(hasAtMostTwoDecimals, 'must have at most two decimals');

const OwnerAssignment = z
  .strictObject({
    ar_owner: NullableUuidValue.openapi({ description: 'Team member id of this company; null removes the AR owner' }),
    customer_ids: z.array(UuidValue).max(MAX_OWNER_IDS).optional().openapi({ description: 'These customers (any unknown id fails the whole request)' }),
    rule: z
      .strictObject({
        country: Text(100).optional().openapi({ description: 'A location of the customer is in this country (case ignored)' }),
        min_open_balance: BalanceBound.optional().openapi({ description: 'Open balance at least this much (major units)' }),
        max_open_balance: BalanceBound.optional().openapi({ description: 'Open balance at most this much (major units)' }),
        unassigned_only: z.boolean().optional().openapi({ description: 'Only customers without an AR owner' }),
      })
      .optional()
      .openapi({ description: 'Every customer matching all of these conditions (instead of customer_ids)' }),
    dry_run: z.boolean().optional().openapi({ description: 'Count only: nothing changes' }),
  })
  .openapi('CustomerOwnerAssignment');

const OwnerAssignmentResult = z
  .object({
    matched: z.number().int().openapi({ description: 'Customers picked or matching the rule' }),
    updated: z.number().int().openapi({ description: 'Of them, those whose AR owner changed (in a dry run: would change)' }),
  })
  .openapi('CustomerOwnerAssignmentResult');

const CustomerParams = idParams('customer_id');

const listRoute = createRoute({
  method: 'get',
  path: '/api/companies/{company_id}/customers',
  tags: TAGS,
  summary: 'List customers with their balances',
  description: `Sorted by name, balance, overdue balance, oldest open due date or AR owner, then name and id. Paging: limit (default ${CUSTOMER_PAGE_DEFAULT}, at most ${CUSTOMER_PAGE_MAX}) and offset; count is the total matching.`,
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

const assignRoute = createRoute({
  method: 'post',
  path: '/api/companies/{company_id}/customers/assign-ar-owner',
  tags: TAGS,
  summary: 'Give many customers an AR owner at once: picked ones, or all matching a rule',
  description: 'One transaction: all or nothing. A rule matches customers by a country of their locations and a range of open balance; unassigned_only leaves those that already have an owner alone.',
  security: SECURITY,
  request: { params: CompanyParams, body: jsonBody(OwnerAssignment) },
  responses: { 200: json(OwnerAssignmentResult, 'How many customers matched and changed'), ...problems(400, 401, 403, 404) },
});

export function customerRoutes() {
  return createRouter()
    .openapi(listRoute, async (c) => {
      const q = c.req.valid('query');
      const filters = { search: q.search, isPerson: q.is_person, arOwner: q.ar_owner?.toLowerCase(), salesOwner: q.sales_owner?.toLowerCase() };
      const page = { limit: q.limit ?? CUSTOMER_PAGE_DEFAULT, offset: q.offset ?? 0, sort: q.sort, order: q.order, today: workingDate(c.var.engine, scopeOf(c).companyId) };
      return c.json(await listCustomers(c.var.engine.db, scopeOf(c).companyId, filters, page), 200);
    })
    .openapi(getRoute, async (c) =>
      c.json(await getCustomer(c.var.engine.db, scopeOf(c).companyId, c.req.valid('param').customer_id, workingDate(c.var.engine, scopeOf(c).companyId)), 200),
    )
    .openapi(assignRoute, async (c) => c.json(await assignArOwner(c.var.engine, scopeOf(c), c.req.valid('json')), 200))
    .openapi(createRouteDef, async (c) => c.json(await createCustomer(c.var.engine, scopeOf(c), c.req.valid('json')), 201))
    .openapi(patchRoute, async (c) => c.json(await updateCustomer(c.var.engine, scopeOf(c), c.req.valid('param').customer_id, c.req.valid('json')), 200));
}
