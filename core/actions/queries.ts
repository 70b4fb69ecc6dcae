/**
 * Reading actions: the list with its inbox categories, and one action. Both return the same
 * action view, names and invoice number joined in, with its approval log.
 */
import { type EvidenceItem, parseEvidence } from '../insights/evidence';
import { sql } from 'kysely';
import type { Db } from '../db/connection';
import { pageWindow, readPageById } from '../db/paging';
import type { ActionStatus, ActionType, ApprovalOperation } from '../db/schema';
import { NotFoundError } from '../errors';
import { chunks } from '../chunks';
import { fromMinor } from '../money';
import { likePattern } from '../invoices/filters';
import { type ActionDelivery, deliveries } from './delivery';
import type { ActionListFilter, ActionSort } from './rules';

export interface ApprovalLogEntry {
  operation: ApprovalOperation;
  reason: string | null;
  comment: string | null;
  /** Team member id of the approver. */
  approver: string | null;
  approver_name: string | null;
  /** The signed-in user who performed the operation. */
  user: string | null;
  created_at: string;
}

export interface ActionView {
  id: string;
  company: string;
  invoice: string | null;
  invoice_number: string | null;
  customer: string;
  customer_name: string;
  action_type: ActionType;
  status: ActionStatus;
  is_action_required: boolean;
  is_ai_recommended: boolean;
  description: string;
  recommendation_label: string | null;
  trigger_event_label: string | null;
  top_recommendation: string | null;
  metadata: Record<string, unknown>;
  response_deadline: string | null;
  channel_id: string | null;
  external_id: string | null;
  executed_at: string | null;
  executed_by: string | null;
  is_deleted: boolean;
  deleted_at: string | null;
  approval_log: ApprovalLogEntry[];
  created_at: string;
  updated_at: string;
  /** Why the engine proposed it (empty for actions people created). */
  evidence: EvidenceItem[];
  /** An approved email's send: queued, sending, sent or failed (null when none was queued). */
  delivery: ActionDelivery | null;
  /** The invoice's open balance, or for an action on the customer as a whole, that of the invoices it lists, else the customer's; null when none. */
  balance: number | null;
  currency: string | null;
  /** Days past due of the invoice (for a customer action, of the oldest open invoice it lists, else the customer's); 0 when not yet due. */
  days_past_due: number | null;
  /** The balance weighted by lateness and by the chance it is not paid within 30 days: the inbox's default order. */
  value_at_risk: number | null;
  /** A decision on the customer as a whole that lists invoices (metadata.invoice_ids): the first of them, in its order; empty otherwise. */
  listed_invoices: ListedInvoice[];
  /** How many invoices it lists (listed_invoices shows at most LISTED_SHOWN); 0 otherwise. */
  listed_invoice_count: number;
}

export interface ListedInvoice {
  id: string;
  invoice_number: string;
}

/** Listed invoices shown per action: a statement may list thousands, a row names the first few. */
export const LISTED_SHOWN = 25;

export interface ActionPage {
  count: number;
  page: number;
  page_size: number;
  data: ActionView[];
}

function baseQuery(db: Db, companyId: string) {
  return db
    .selectFrom('actions as a')
    .innerJoin('customers as c', 'c.id', 'a.customer_id')
    .leftJoin('invoices as i', 'i.id', 'a.invoice_id')
    .where('a.company_id', '=', companyId);
}

/** The sorts that read the action row alone. */
const ACTION_ONLY_SORTS: ReadonlySet<ActionSort> = new Set(['created', 'value_at_risk', 'recommendation', 'why', 'decide_by']);

/**
 * The actions matching a filter, read from the actions alone unless the filter or the sort needs
 * the customer or the invoice: every action has its customer (a foreign key) and at most one
 * invoice, so the joins change no count nor order, and at 100k actions they cost a lookup per action.
 */
function matchingQuery(db: Db, companyId: string, filter: ActionFilterWhere, sort?: ActionSort) {
  if (filter.search || filter.arOwners || (sort && !ACTION_ONLY_SORTS.has(sort))) return applyFilter(baseQuery(db, companyId), filter);
  return applyFilter(db.selectFrom('actions as a').where('a.company_id', '=', companyId) as unknown as BaseQuery, filter);
}

const COLUMNS = [
  'a.id',
  'a.company_id',
  'a.invoice_id',
  'i.invoice_number',
  'a.customer_id',
  'c.name as customer_name',
  'a.action_type',
  'a.status',
  'a.is_action_required',
  'a.is_ai_recommended',
  'a.description',
  'a.recommendation_label',
  'a.trigger_event_label',
  'a.top_recommendation',
  'a.metadata',
  'a.response_deadline',
  'a.channel_id',
  'a.external_id',
  'a.executed_at',
  'a.executed_by',
  'a.deleted_at',
  'a.created_at',
  'a.updated_at',
  'a.evidence',
] as const;

/**
 * The figures a collector reads beside an action, as SQL over an action row (a, i) and today:
 * open balance, the due date it counts from, and days past due. A customer action (no invoice)
 * shows the open balance and oldest open due date of the invoices it lists (metadata.invoice_ids),
 * else the customer's. The value at risk is stored on the action (value-at-risk.ts).
 */
function figures(today: string) {
  const customerTotal = (column: string) =>
    sql`(SELECT ${sql.ref(`t.${column}`)} FROM customer_invoice_totals t WHERE t.company_id = a.company_id AND t.customer_id = a.customer_id)`;
  const listed = (of: ReturnType<typeof sql>) =>
    sql`(SELECT ${of} FROM json_each(a.metadata, '$.invoice_ids') j JOIN invoices x ON x.id = j.value WHERE x.company_id = a.company_id AND x.customer_id = a.customer_id)`;
  // CASE, not AND: json_type is only asked of valid JSON.
  const figure = (ofInvoice: ReturnType<typeof sql>, ofListed: ReturnType<typeof sql>, ofCustomer: ReturnType<typeof sql>) =>
    sql`(CASE WHEN a.invoice_id IS NOT NULL THEN ${ofInvoice} WHEN json_valid(a.metadata) = 0 THEN ${ofCustomer} WHEN json_type(a.metadata, '$.invoice_ids') = 'array' THEN ${listed(ofListed)} ELSE ${ofCustomer} END)`;
  const balance = sql<number | null>`${figure(sql`i.balance`, sql`sum(x.balance)`, customerTotal('balance'))}`;
  const due = sql<string | null>`${figure(sql`i.due_date`, sql`min(CASE WHEN x.balance > 0 THEN x.due_date END)`, customerTotal('oldest_open_due_date'))}`;
  const daysPastDue = sql<number | null>`(CASE WHEN ${due} IS NULL THEN NULL ELSE max(0, CAST(julianday(${today}) - julianday(${due}) AS INTEGER)) END)`;
  return { balance, due, daysPastDue };
}

/** The timestamp history filters and sorts by: execution, or the last change for actions cancelled before execution. */
const effectiveExecutedAt = sql<string>`coalesce(a.executed_at, a.updated_at)`;

/** The spec's searchable text: description, recommendation and trigger labels, customer name, invoice number. */
const SEARCHED_COLUMNS = ['a.description', 'a.recommendation_label', 'a.trigger_event_label', 'c.name', 'i.invoice_number'];

type BaseQuery = ReturnType<typeof baseQuery>;

function selectActions(query: BaseQuery, today: string) {
  const f = figures(today);
  return query.select(COLUMNS).select([
    f.balance.as('balance_minor'),
    sql<string | null>`coalesce(i.currency, c.currency)`.as('currency'),
    f.daysPastDue.as('days_past_due'),
    'a.value_at_risk as value_at_risk_minor',
  ]);
}

function applyFilter(query: BaseQuery, f: ActionFilterWhere): BaseQuery {
  let q = query;
  switch (f.category) {
    case 'needs_action':
      q = q.where('a.status', '=', 'proposed').where('a.is_action_required', '=', 1).where('a.is_ai_recommended', '=', 1);
      break;
    case 'awaiting_customer':
      q = q.where('a.status', '=', 'proposed').where('a.top_recommendation', '=', 'wait_for_customer');
      break;
    case 'history':
      // Written as a status list first, so SQLite reads the two statuses from an index instead of every action.
      q = q.where('a.status', 'in', ['completed', 'cancelled']).where((eb) => eb.or([eb('a.status', '=', 'completed'), eb('a.is_ai_recommended', '=', 1)]));
      if (f.executedFrom) q = q.where(effectiveExecutedAt, '>=', f.executedFrom);
      if (f.executedUntil) q = q.where(effectiveExecutedAt, '<', f.executedUntil);
      break;
    case 'in_progress':
      q = q.where('a.status', '=', 'processing');
      break;
    case 'alternatives':
      q = q.where('a.status', '=', 'proposed').where('a.is_action_required', '=', 1);
      break;
    case null:
      break;
  }
  if (f.statuses) q = q.where('a.status', 'in', f.statuses);
  if (f.invoiceId) {
    const id = f.invoiceId;
    // An invoice's decisions include the one on its customer that lists it (a statement, a review of old balances): it is not repeated per invoice.
    const listed = sql<boolean>`(a.customer_id = (SELECT x.customer_id FROM invoices x WHERE x.id = ${id}) AND a.invoice_id IS NULL AND json_valid(a.metadata) AND json_type(a.metadata, '$.invoice_ids') = 'array' AND EXISTS (SELECT 1 FROM json_each(a.metadata, '$.invoice_ids') j WHERE j.value = ${id}))`;
    // An invoice's alternatives are its own decision's options only.
    q = f.category === 'alternatives' ? q.where('a.invoice_id', '=', id) : q.where((eb) => eb.or([eb('a.invoice_id', '=', id), listed]));
  }
  if (f.customerId) q = q.where('a.customer_id', '=', f.customerId);
  // A customer's alternatives without an invoice: the options of its decisions on the customer as a whole.
  if (f.category === 'alternatives' && !f.invoiceId) q = q.where('a.invoice_id', 'is', null);
  if (f.actionTypes) q = q.where('a.action_type', 'in', f.actionTypes);
  const owners = f.arOwners;
  if (owners) {
    q = q.where((eb) => eb.or([...(owners.ids.length ? [eb('c.ar_owner_id', 'in', owners.ids)] : []), ...(owners.unassigned ? [eb('c.ar_owner_id', 'is', null)] : [])]));
  }
  if (!f.includeDeleted) q = q.where('a.deleted_at', 'is', null);
  // One row per decision: the alternatives are offered in the recommendation's panel (an invoice's, or the customer's as a whole).
  if (!f.includeAlternatives) q = q.where((eb) => eb.or([eb('a.top_recommendation', 'is', null), eb('a.top_recommendation', '!=', 'alternative')]));
  if (f.search) {
    const pattern = likePattern(f.search);
    const like = (column: string) => sql<boolean>`${sql.ref(column)} LIKE ${pattern} ESCAPE '\\'`;
    q = q.where((eb) => eb.or(SEARCHED_COLUMNS.map(like)));
  }
  return q;
}

type ActionFilterWhere = Omit<ActionListFilter, 'page' | 'pageSize'>;

/** What each sort orders by; empty values (no invoice, no deadline) go last either way. */
function sortKey(sort: ActionSort, category: ActionListFilter['category'], today: string) {
  const f = figures(today);
  switch (sort) {
    case 'created':
      return category === 'history' ? effectiveExecutedAt : sql`a.created_at`;
    case 'value_at_risk':
      return sql`a.value_at_risk`;
    case 'balance':
      return f.balance;
    case 'days_past_due':
      return f.daysPastDue;
    case 'customer':
      return sql`c.name COLLATE NOCASE`;
    case 'recommendation':
      return sql`a.recommendation_label COLLATE NOCASE`;
    case 'why':
      return sql`a.trigger_event_label COLLATE NOCASE`;
    case 'decide_by':
      return sql`a.response_deadline`;
  }
}

/**
 * One page of actions, in the filter's order (by default newest first; history newest execution
 * first). The id breaks ties, so pages never overlap.
 */
export async function listActions(db: Db, companyId: string, filter: ActionListFilter, today: string): Promise<ActionPage> {
  const key = sortKey(filter.sort, filter.category, today);
  const direction = filter.descending ? 'desc' : 'asc';
  const orderedIds = matchingQuery(db, companyId, filter, filter.sort).select('a.id').orderBy(sql`${key} IS NULL`).orderBy(key, direction).orderBy('a.id', direction);
  const rowsOf = (ids: string[]) => selectActions(baseQuery(db, companyId), today).where('a.id', 'in', ids).execute();
  const { count, rows } = await readPageById(matchingQuery(db, companyId, filter), orderedIds, pageWindow(filter.page, filter.pageSize), rowsOf);
  const ids = rows.map((r) => r.id);
  const logs = await approvalLogs(db, ids);
  const sends = await deliveries(db, companyId, ids);
  const listed = await listedInvoices(db, companyId, rows);
  return { count, page: filter.page, page_size: filter.pageSize, data: rows.map((r) => toView(r, logs.get(r.id) ?? [], sends.get(r.id) ?? null, listed)) };
}

/** One action of the company, whatever its status, soft-deleted ones included; 404 otherwise. */
export async function getAction(db: Db, companyId: string, actionId: string, today: string): Promise<ActionView> {
  const row = await selectActions(baseQuery(db, companyId), today).where('a.id', '=', actionId).executeTakeFirst();
  if (!row) throw new NotFoundError('Action', actionId);
  const logs = await approvalLogs(db, [row.id]);
  const sends = await deliveries(db, companyId, [row.id]);
  return toView(row, logs.get(row.id) ?? [], sends.get(row.id) ?? null, await listedInvoices(db, companyId, [row]));
}

/** Each customer-level action's listed invoices: how many, and the first LISTED_SHOWN named (an id of no invoice of this company, from an API caller's metadata, is not). */
type Listed = Map<string, { count: number; invoices: ListedInvoice[] }>;

async function listedInvoices(db: Db, companyId: string, rows: Array<{ id: string; invoice_id: string | null; metadata: string }>): Promise<Listed> {
  const lists = new Map<string, { count: number; ids: string[] }>();
  for (const r of rows) {
    if (r.invoice_id !== null) continue;
    const ids = listedIds(parseMetadata(r.metadata).invoice_ids);
    if (ids.length) lists.set(r.id, { count: ids.length, ids: ids.slice(0, LISTED_SHOWN) });
  }
  const names = new Map<string, string>();
  for (const part of chunks([...new Set([...lists.values()].flatMap((l) => l.ids))])) {
    const found = await db.selectFrom('invoices').select(['id', 'invoice_number']).where('company_id', '=', companyId).where('id', 'in', part).execute();
    for (const f of found) names.set(f.id, f.invoice_number);
  }
  const out: Listed = new Map();
  for (const [actionId, l] of lists) out.set(actionId, { count: l.count, invoices: l.ids.flatMap((id) => (names.has(id) ? [{ id, invoice_number: names.get(id)! }] : [])) });
  return out;
}

function listedIds(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((x): x is string => typeof x === 'string') : [];
}

async function approvalLogs(db: Db, actionIds: string[]): Promise<Map<string, ApprovalLogEntry[]>> {
  const out = new Map<string, ApprovalLogEntry[]>();
  if (!actionIds.length) return out;
  const rows = await db
    .selectFrom('action_approvals as l')
    .leftJoin('team_members as t', 't.id', 'l.approver_id')
    .select(['l.action_id', 'l.operation', 'l.reason', 'l.comment', 'l.approver_id', 't.name as approver_name', 'l.user_id', 'l.created_at'])
    .where('l.action_id', 'in', actionIds)
    .orderBy('l.created_at')
    .orderBy('l.id')
    .execute();
  for (const r of rows) {
    const list = out.get(r.action_id) ?? [];
    list.push({
      operation: r.operation,
      reason: r.reason,
      comment: r.comment,
      approver: r.approver_id,
      approver_name: r.approver_name,
      user: r.user_id,
      created_at: r.created_at,
    });
    out.set(r.action_id, list);
  }
  return out;
}

type ActionRow = Awaited<ReturnType<ReturnType<typeof selectActions>['executeTakeFirstOrThrow']>>;

function toView(r: ActionRow, log: ApprovalLogEntry[], delivery: ActionDelivery | null, listed: Listed): ActionView {
  const mine = listed.get(r.id);
  return {
    id: r.id,
    company: r.company_id,
    invoice: r.invoice_id,
    invoice_number: r.invoice_number,
    customer: r.customer_id,
    customer_name: r.customer_name,
    action_type: r.action_type,
    status: r.status,
    is_action_required: r.is_action_required === 1,
    is_ai_recommended: r.is_ai_recommended === 1,
    description: r.description,
    recommendation_label: r.recommendation_label,
    trigger_event_label: r.trigger_event_label,
    top_recommendation: r.top_recommendation,
    metadata: parseMetadata(r.metadata),
    response_deadline: r.response_deadline,
    channel_id: r.channel_id,
    external_id: r.external_id,
    executed_at: r.executed_at,
    executed_by: r.executed_by,
    is_deleted: r.deleted_at !== null,
    deleted_at: r.deleted_at,
    approval_log: log,
    created_at: r.created_at,
    updated_at: r.updated_at,
    evidence: parseEvidence(r.evidence),
    delivery,
    balance: r.balance_minor === null ? null : fromMinor(r.balance_minor),
    currency: r.currency,
    days_past_due: r.days_past_due,
    value_at_risk: r.value_at_risk_minor === null ? null : fromMinor(r.value_at_risk_minor),
    listed_invoices: mine?.invoices ?? [],
    listed_invoice_count: mine?.count ?? 0,
  };
}

export function parseMetadata(text: string): Record<string, unknown> {
  const value: unknown = JSON.parse(text);
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
