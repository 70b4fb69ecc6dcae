/** Reading customers: the list (search, filters, paging by name) and the detail with contacts, locations and balance. */
import { type RawBuilder, sql } from 'kysely';
import type { Db } from '../db/connection';
import { readPage } from '../db/paging';
import { NotFoundError } from '../errors';
import { likePattern, matchPhrase, TRIGRAM_MIN } from '../invoices/filters';
import { fromMinor } from '../money';
import { customerRisk, type RiskLevel } from './risk';

export interface PersonRef {
  id: string;
  name: string;
}

export interface CustomerDto {
  id: string;
  name: string;
  is_person: boolean;
  ar_owner: PersonRef | null;
  sales_owner: PersonRef | null;
  remote_id: string | null;
  currency: string;
  payment_terms_days: number;
  notes: string | null;
  created_at: string;
  updated_at: string;
}

export interface ContactDto {
  id: string;
  name: string;
  email: string | null;
  phone: string | null;
  title: string | null;
  is_billing: boolean;
  /** A message to this address bounced. */
  email_failing: boolean;
  email_failed_at: string | null;
  email_failure: string | null;
}

export interface LocationDto {
  id: string;
  name: string;
  address_line1: string | null;
  city: string | null;
  region: string | null;
  postal_code: string | null;
  country: string | null;
}

export interface CustomerBalance {
  open_invoice_count: number;
  open_balance: number;
  overdue_invoice_count: number;
  overdue_balance: number;
}

export interface CustomerDetailDto extends CustomerDto {
  contacts: ContactDto[];
  locations: LocationDto[];
  balance: CustomerBalance;
  /** The customer's latest email reply, if any. */
  last_reply_at: string | null;
}

export interface CustomerFilters {
  search?: string;
  isPerson?: boolean;
  arOwner?: string;
  salesOwner?: string;
}

export const CUSTOMER_PAGE_DEFAULT = 100;
export const CUSTOMER_PAGE_MAX = 1000;

function baseQuery(db: Db) {
  return db
    .selectFrom('customers as c')
    .leftJoin('team_members as ar', 'ar.id', 'c.ar_owner_id')
    .leftJoin('team_members as so', 'so.id', 'c.sales_owner_id')
    .select([
      'c.id',
      'c.name',
      'c.is_person',
      'c.ar_owner_id',
      'ar.name as ar_owner_name',
      'c.sales_owner_id',
      'so.name as sales_owner_name',
      'c.remote_id',
      'c.currency',
      'c.payment_terms_days',
      'c.notes',
      'c.created_at',
      'c.updated_at',
    ]);
}

type Row = Awaited<ReturnType<ReturnType<typeof baseQuery>['executeTakeFirstOrThrow']>>;

function toDto(r: Row): CustomerDto {
  return {
    id: r.id,
    name: r.name,
    is_person: r.is_person === 1,
    ar_owner: r.ar_owner_id ? { id: r.ar_owner_id, name: r.ar_owner_name ?? '' } : null,
    sales_owner: r.sales_owner_id ? { id: r.sales_owner_id, name: r.sales_owner_name ?? '' } : null,
    remote_id: r.remote_id,
    currency: r.currency,
    payment_terms_days: r.payment_terms_days,
    notes: r.notes,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

/**
 * Three or more characters search the trigram index of names; shorter text falls back to LIKE
 * (a trigram index cannot answer fewer than three characters). Both are case-insensitive.
 */
function nameMatches(search: string) {
  if ([...search].length >= TRIGRAM_MIN) {
    return sql<boolean>`c.rowid IN (SELECT rowid FROM customer_name_fts WHERE customer_name_fts MATCH ${matchPhrase(search)})`;
  }
  return sql<boolean>`c.name LIKE ${likePattern(search)} ESCAPE '\\'`;
}

/** Columns the list sorts by: the name, the owner's name, or per-customer aggregates kept by triggers (0003, 0050). */
export const CUSTOMER_SORTS = ['name', 'balance', 'overdue', 'oldest_due', 'ar_owner'] as const;
export type CustomerSort = (typeof CUSTOMER_SORTS)[number];

const SORT_COLUMN: Record<Exclude<CustomerSort, 'overdue'>, string> = {
  name: 'c.name',
  balance: 'coalesce(o.open_balance, 0)',
  oldest_due: 't.oldest_open_due_date',
  ar_owner: 'ar.name',
};

/**
 * The sort key: overdue is summed from each customer's open invoices past due (through
 * invoices_customer), as pageFacts shows it, since no aggregate keeps it per day.
 */
function sortKey(sort: CustomerSort, today: string) {
  if (sort !== 'overdue') return sql.raw(SORT_COLUMN[sort]);
  return sql`(SELECT coalesce(sum(i.balance), 0) FROM invoices i WHERE i.company_id = c.company_id AND i.customer_id = c.id AND i.closing_reason IS NULL AND i.due_date < ${today} AND i.balance > 0)`;
}

export interface CustomerListItem extends CustomerDto {
  open_balance: number;
  overdue_balance: number;
  oldest_open_due_date: string | null;
  last_touch_at: string | null;
  /** Risk as a collector means it (risk.ts): lateness and balance past due first, then behaviour; null when nothing is. */
  risk: RiskLevel | null;
  /** Why, in words ("$18,012.00 past due, the oldest 97 days late"). */
  risk_reason: string;
}

/** The list's filters over `c`, applied alike to the count and to the rows. */
function conditions(filters: CustomerFilters): Array<RawBuilder<boolean>> {
  const where: Array<RawBuilder<boolean>> = [];
  const search = filters.search?.trim();
  if (search) where.push(nameMatches(search));
  if (filters.isPerson !== undefined) where.push(sql<boolean>`c.is_person = ${filters.isPerson ? 1 : 0}`);
  if (filters.arOwner) where.push(sql<boolean>`c.ar_owner_id = ${filters.arOwner}`);
  if (filters.salesOwner) where.push(sql<boolean>`c.sales_owner_id = ${filters.salesOwner}`);
  return where;
}

export async function listCustomers(
  db: Db,
  companyId: string,
  filters: CustomerFilters,
  page: { limit: number; offset: number; sort?: CustomerSort; order?: 'asc' | 'desc'; today: string },
) {
  const where = conditions(filters);
  let matching = db.selectFrom('customers as c').where('c.company_id', '=', companyId);
  let rows = baseQuery(db)
    .leftJoin('customer_invoice_totals as t', (j) => j.onRef('t.company_id', '=', 'c.company_id').onRef('t.customer_id', '=', 'c.id'))
    .leftJoin('customer_open_totals as o', (j) => j.onRef('o.company_id', '=', 'c.company_id').onRef('o.customer_id', '=', 'c.id'))
    .select(['t.oldest_open_due_date', 'o.open_balance'])
    .where('c.company_id', '=', companyId);
  for (const condition of where) {
    matching = matching.where(condition);
    rows = rows.where(condition);
  }
  const sort = page.sort ?? 'name';
  const dir = page.order === 'desc' ? sql`DESC` : sql`ASC`;
  // Customers without a value (no open invoice, no owner) come last in either direction.
  const key = sortKey(sort, page.today);
  const ordered = rows.orderBy(sql`${key} IS NULL`).orderBy(sql`${key} ${dir}`).orderBy('c.name').orderBy('c.id');
  const { count, rows: data } = await readPage(matching, ordered, page);
  const facts = await pageFacts(db, companyId, data.map((r) => r.id), page.today);
  return {
    count,
    data: data.map((r): CustomerListItem => {
      const f = facts.get(r.id);
      const risk = customerRisk({ overdue: f?.overdue ?? 0, oldestOpenDueDate: r.oldest_open_due_date ?? null, currency: r.currency, today: page.today, signal: f?.signal ?? null });
      return {
        ...toDto(r),
        open_balance: fromMinor(r.open_balance ?? 0),
        overdue_balance: fromMinor(f?.overdue ?? 0),
        oldest_open_due_date: r.oldest_open_due_date ?? null,
        last_touch_at: f?.last_touch_at ?? null,
        risk: risk.level,
        risk_reason: risk.reason,
      };
    }),
  };
}

type PageFact = { overdue: number; last_touch_at: string | null; signal: { severity: RiskLevel; title: string } | null };

/**
 * Overdue balance, last touch and active signal of one page of customers: read for those ids only (their
 * invoices through invoices_customer, their active signal), so a page costs the same at 50,000 customers.
 */
async function pageFacts(db: Db, companyId: string, ids: string[], today: string) {
  const facts = new Map<string, PageFact>();
  if (ids.length === 0) return facts;
  const sums = await db
    .selectFrom('invoices')
    .select([
      'customer_id',
      sql<number>`coalesce(sum(CASE WHEN closing_reason IS NULL AND due_date < ${today} AND balance > 0 THEN balance ELSE 0 END), 0)`.as('overdue'),
      sql<string | null>`max(last_touch_at)`.as('last_touch_at'),
    ])
    .where('company_id', '=', companyId)
    .where('customer_id', 'in', ids)
    .groupBy('customer_id')
    .execute();
  for (const s of sums) facts.set(s.customer_id, { overdue: Number(s.overdue), last_touch_at: s.last_touch_at, signal: null });
  const signals = await db
    .selectFrom('insights')
    .select([
      'target_id',
      sql<RiskLevel | null>`json_extract(payload_json, '$.signal.severity')`.as('severity'),
      sql<string | null>`json_extract(payload_json, '$.signal.title')`.as('title'),
    ])
    .where('company_id', '=', companyId)
    .where('target_type', '=', 'customer')
    .where('insight_type', '=', 'customer_signal')
    .where('valid_to', 'is', null)
    .where('target_id', 'in', ids)
    .execute();
  for (const s of signals) {
    if (!s.severity) continue;
    const f = facts.get(s.target_id) ?? { overdue: 0, last_touch_at: null, signal: null };
    f.signal = { severity: s.severity, title: s.title ?? 'Flagged by a signal' };
    facts.set(s.target_id, f);
  }
  return facts;
}

/** Open and overdue totals from the customer's invoices (a few dozen rows through invoices_customer). */
async function balanceOf(db: Db, companyId: string, customerId: string, today: string): Promise<CustomerBalance> {
  const row = await db
    .selectFrom('invoices')
    .select([
      sql<number>`count(*)`.as('open_count'),
      sql<number>`coalesce(sum(balance), 0)`.as('open_balance'),
      sql<number>`coalesce(sum(due_date < ${today} AND balance > 0), 0)`.as('overdue_count'),
      sql<number>`coalesce(sum(CASE WHEN due_date < ${today} AND balance > 0 THEN balance ELSE 0 END), 0)`.as('overdue_balance'),
    ])
    .where('company_id', '=', companyId)
    .where('customer_id', '=', customerId)
    .where('closing_reason', 'is', null)
    .executeTakeFirstOrThrow();
  return {
    open_invoice_count: Number(row.open_count),
    open_balance: fromMinor(Number(row.open_balance)),
    overdue_invoice_count: Number(row.overdue_count),
    overdue_balance: fromMinor(Number(row.overdue_balance)),
  };
}

async function lastReplyAt(db: Db, companyId: string, customerId: string): Promise<string | null> {
  const row = await db
    .selectFrom('communications')
    .select((eb) => eb.fn.max('occurred_at').as('at'))
    .where('company_id', '=', companyId)
    .where('customer_id', '=', customerId)
    .where('direction', '=', 'inbound')
    .where('kind', '=', 'email')
    .executeTakeFirst();
  return row?.at ?? null;
}

export async function getCustomer(db: Db, companyId: string, customerId: string, today: string): Promise<CustomerDetailDto> {
  const row = await baseQuery(db).where('c.id', '=', customerId).where('c.company_id', '=', companyId).executeTakeFirst();
  if (!row) throw new NotFoundError('Customer', customerId);
  const contacts = await db
    .selectFrom('customer_contacts')
    .select(['id', 'name', 'email', 'phone', 'title', 'is_billing', 'email_failed_at', 'email_failure'])
    .where('customer_id', '=', row.id)
    .orderBy('is_billing', 'desc')
    .orderBy('name')
    .orderBy('id')
    .execute();
  const locations = await db
    .selectFrom('customer_locations')
    .select(['id', 'name', 'address_line1', 'city', 'region', 'postal_code', 'country'])
    .where('customer_id', '=', row.id)
    .orderBy('name')
    .orderBy('id')
    .execute();
  return {
    ...toDto(row),
    contacts: contacts.map((c) => ({ ...c, is_billing: c.is_billing === 1, email_failing: c.email_failed_at !== null })),
    locations,
    balance: await balanceOf(db, companyId, row.id, today),
    last_reply_at: await lastReplyAt(db, companyId, row.id),
  };
}
