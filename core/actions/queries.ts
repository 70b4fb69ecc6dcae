/**
 * Reading actions: the list with its inbox categories, and one action. Both return the same
 * action view, names and invoice number joined in, with its approval log.
 */
import { type EvidenceItem, parseEvidence } from '../insights/evidence';
import { sql } from 'kysely';
import type { Db } from '../db/connection';
import type { ActionStatus, ActionType, ApprovalOperation } from '../db/schema';
import { NotFoundError } from '../errors';
import { likePattern } from '../invoices/filters';
import { type ActionDelivery, deliveries } from './delivery';
import type { ActionListFilter } from './rules';

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
}

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

/**
 * The count reads the actions alone unless a filter needs the customer or the invoice: every
 * action has its customer (a foreign key) and at most one invoice, so the joins change no count,
 * and at 100k actions they cost a lookup per action.
 */
function countQuery(db: Db, companyId: string, filter: ActionFilterWhere) {
  if (filter.search || filter.arOwners) return applyFilter(baseQuery(db, companyId), filter);
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

/** The timestamp history filters and sorts by: execution, or the last change for actions cancelled before execution. */
const effectiveExecutedAt = sql<string>`coalesce(a.executed_at, a.updated_at)`;

/** The spec's searchable text: description, recommendation and trigger labels, customer name, invoice number. */
const SEARCHED_COLUMNS = ['a.description', 'a.recommendation_label', 'a.trigger_event_label', 'c.name', 'i.invoice_number'];

type BaseQuery = ReturnType<typeof baseQuery>;

function selectActions(query: BaseQuery) {
  return query.select(COLUMNS);
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
  if (f.invoiceId) q = q.where('a.invoice_id', '=', f.invoiceId);
  if (f.customerId) q = q.where('a.customer_id', '=', f.customerId);
  if (f.actionTypes) q = q.where('a.action_type', 'in', f.actionTypes);
  const owners = f.arOwners;
  if (owners) {
    q = q.where((eb) => eb.or([...(owners.ids.length ? [eb('c.ar_owner_id', 'in', owners.ids)] : []), ...(owners.unassigned ? [eb('c.ar_owner_id', 'is', null)] : [])]));
  }
  if (!f.includeDeleted) q = q.where('a.deleted_at', 'is', null);
  // One row per decision: an invoice's alternatives are offered in its recommendation's panel.
  if (!f.includeAlternatives) q = q.where((eb) => eb.or([eb('a.top_recommendation', 'is', null), eb('a.top_recommendation', '!=', 'alternative'), eb('a.invoice_id', 'is', null)]));
  if (f.search) {
    const pattern = likePattern(f.search);
    const like = (column: string) => sql<boolean>`${sql.ref(column)} LIKE ${pattern} ESCAPE '\\'`;
    q = q.where((eb) => eb.or(SEARCHED_COLUMNS.map(like)));
  }
  return q;
}

type ActionFilterWhere = Omit<ActionListFilter, 'page' | 'pageSize'>;

/**
 * One page of actions. History is newest execution first; every other list is newest first by
 * creation. The id breaks ties, so pages never overlap.
 */
export async function listActions(db: Db, companyId: string, filter: ActionListFilter): Promise<ActionPage> {
  const where = applyFilter(baseQuery(db, companyId), filter);
  const { count } = await countQuery(db, companyId, filter)
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  let rowsQuery = selectActions(where);
  rowsQuery = filter.category === 'history' ? rowsQuery.orderBy(effectiveExecutedAt, 'desc') : rowsQuery.orderBy('a.created_at', 'desc');
  const rows = await rowsQuery
    .orderBy('a.id', 'desc')
    .limit(filter.pageSize)
    .offset((filter.page - 1) * filter.pageSize)
    .execute();
  const ids = rows.map((r) => r.id);
  const logs = await approvalLogs(db, ids);
  const sends = await deliveries(db, companyId, ids);
  return { count: Number(count), page: filter.page, page_size: filter.pageSize, data: rows.map((r) => toView(r, logs.get(r.id) ?? [], sends.get(r.id) ?? null)) };
}

/** One action of the company, whatever its status, soft-deleted ones included; 404 otherwise. */
export async function getAction(db: Db, companyId: string, actionId: string): Promise<ActionView> {
  const row = await selectActions(baseQuery(db, companyId)).where('a.id', '=', actionId).executeTakeFirst();
  if (!row) throw new NotFoundError('Action', actionId);
  const logs = await approvalLogs(db, [row.id]);
  const sends = await deliveries(db, companyId, [row.id]);
  return toView(row, logs.get(row.id) ?? [], sends.get(row.id) ?? null);
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

function toView(r: ActionRow, log: ApprovalLogEntry[], delivery: ActionDelivery | null): ActionView {
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
  };
}

export function parseMetadata(text: string): Record<string, unknown> {
  const value: unknown = JSON.parse(text);
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
