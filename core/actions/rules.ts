/**
 * The action state machine and the small rules around it, as pure functions: the commands apply
 * them inside a transaction, the tests call them directly.
 */
import type { ActionStatus, ActionType, ApprovalOperation } from '../db/schema';
import { addDays, isValidDate } from '../dates';
import { InvalidStateError, ValidationError } from '../errors';
import { type OwnerFilter, parseEnumList, parseOwnerFilter } from '../sequences/rules';

export const ACTION_STATUSES = ['proposed', 'scheduled', 'processing', 'completed', 'cancelled'] as const satisfies readonly ActionStatus[];
export const ACTION_TYPES = ['email', 'call', 'task'] as const satisfies readonly ActionType[];
export const ACTION_OPERATIONS = ['approve', 'reject', 'send', 'cancel', 'complete'] as const satisfies readonly ApprovalOperation[];

/**
 * Source statuses per operation, and where each leads. approve, reject and send are as the spec
 * states them. The spec leaves cancel and complete open: both are allowed from every status that
 * is not yet final (proposed, scheduled, processing), so an approved action can still be finished
 * by hand or called off, while a completed or cancelled action is never reopened or re-finished.
 * reject is "any status except completed", so rejecting a cancelled action is allowed (it logs again).
 */
const TRANSITIONS: Record<ApprovalOperation, { from: readonly ActionStatus[]; to: ActionStatus }> = {
  approve: { from: ['proposed', 'scheduled'], to: 'processing' },
  reject: { from: ['proposed', 'scheduled', 'processing', 'cancelled'], to: 'cancelled' },
  send: { from: ['proposed', 'scheduled'], to: 'completed' },
  cancel: { from: ['proposed', 'scheduled', 'processing'], to: 'cancelled' },
  complete: { from: ['proposed', 'scheduled', 'processing'], to: 'completed' },
};

/** The status an operation leads to from `status`; an operation the status does not allow is a 400 invalid_state. */
export function nextStatus(status: ActionStatus, operation: ApprovalOperation): ActionStatus {
  const rule = TRANSITIONS[operation];
  if (!rule.from.includes(status)) {
    throw new InvalidStateError(`Cannot ${operation} an action whose status is ${status}; allowed from: ${rule.from.join(', ')}`);
  }
  return rule.to;
}

/** send and complete execute the action: they set executed_at (the invoice's last touch). */
export function isExecution(operation: ApprovalOperation): boolean {
  return operation === 'send' || operation === 'complete';
}

/** Days a new decision gives the collector before its "Decide by", when none is given (the engine's proposals too). */
export const DECIDE_WITHIN_DAYS = 2;

/** The default "Decide by": 17:00 UTC `DECIDE_WITHIN_DAYS` after `from` (a date), always ahead of the moment it is made. */
export function defaultDeadline(from: string): string {
  const day = new Date(`${from.slice(0, 10)}T17:00:00.000Z`);
  day.setUTCDate(day.getUTCDate() + DECIDE_WITHIN_DAYS);
  return day.toISOString();
}

const ZONED_DATE_TIME = /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-](\d{2}):?(\d{2}))$/i;

/**
 * response_deadline must be an ISO 8601 date-time with a zone (Z or an offset); it is stored in
 * UTC. A date alone or a local time without a zone cannot be placed in time, so it is a 400.
 */
export function parseResponseDeadline(value: string): string {
  const m = ZONED_DATE_TIME.exec(value.trim());
  const invalid = () =>
    new ValidationError('response_deadline is not a timezone-aware ISO 8601 date-time', {
      response_deadline: ['Use an ISO 8601 date-time with a zone, e.g. 2026-12-01T17:00:00Z or 2026-12-01T12:00:00-05:00'],
    });
  if (!m) throw invalid();
  const [, date, hh, mm, ss, , offH, offM] = m;
  const inRange = +hh <= 23 && +mm <= 59 && (ss === undefined || +ss <= 59) && (offH === undefined || (+offH <= 23 && +offM <= 59));
  const ms = Date.parse(value.trim());
  // Date.parse rolls 2026-02-30 over into March; the round trip of the date part catches it.
  if (!inRange || Number.isNaN(ms) || !sameCalendarDate(date) || !isValidDate(date)) throw invalid();
  return new Date(ms).toISOString();
}

function sameCalendarDate(date: string): boolean {
  const d = new Date(`${date}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === date;
}

/** The spec's four, and in_progress (extension): approved actions being carried out. */
export const ACTION_CATEGORIES = ['needs_action', 'awaiting_customer', 'history', 'alternatives', 'in_progress'] as const;
export type ActionCategory = (typeof ACTION_CATEGORIES)[number];

export const DEFAULT_PAGE_SIZE = 20;
/** The spec gives no maximum; larger requests are clamped (as the invoice limit is) and the envelope echoes the size used. */
export const MAX_PAGE_SIZE = 100;

/**
 * Orders of the list (extension). created: newest first (history: newest execution first), the
 * spec's order. value_at_risk: what the collector stands to lose, highest first (see queries.ts).
 * The others are the inbox's columns.
 */
export const ACTION_SORTS = ['created', 'value_at_risk', 'balance', 'days_past_due', 'customer', 'recommendation', 'why', 'decide_by'] as const;
export type ActionSort = (typeof ACTION_SORTS)[number];
/** Amounts, lateness and dates are read largest or newest first; words from A and deadlines soonest first. */
const DESCENDING_BY_DEFAULT: ReadonlySet<ActionSort> = new Set(['created', 'value_at_risk', 'balance', 'days_past_due']);

export interface ActionListInput {
  category?: ActionCategory;
  status?: string;
  invoiceId?: string;
  customerId?: string;
  /** Comma-separated action types (extension). */
  actionType?: string;
  /** Comma-separated AR owner member ids, __unassigned__ for none (extension). */
  arOwner?: string;
  search?: string;
  includeDeleted?: boolean;
  /** false: the alternatives of a recommendation are left out, one row per decision (extension). */
  includeAlternatives?: boolean;
  executedAfter?: string;
  executedBefore?: string;
  sort?: ActionSort;
  direction?: 'asc' | 'desc';
  page?: number;
  pageSize?: number;
}

/** The list request after the cross-parameter rules: what the query needs, nothing left to decide. */
export interface ActionListFilter {
  category: ActionCategory | null;
  statuses: ActionStatus[] | null;
  invoiceId: string | null;
  customerId: string | null;
  actionTypes: ActionType[] | null;
  arOwners: OwnerFilter | null;
  search: string | null;
  includeDeleted: boolean;
  includeAlternatives: boolean;
  /** Inclusive lower bound on the effective execution timestamp (UTC). */
  executedFrom: string | null;
  /** Exclusive upper bound: the day after executed_before, so that whole day is included. */
  executedUntil: string | null;
  sort: ActionSort;
  descending: boolean;
  page: number;
  pageSize: number;
}

/** Applies the spec's rules between list parameters; every refusal is a 400 naming the field. */
export function resolveActionList(input: ActionListInput): ActionListFilter {
  const errors: Record<string, string[]> = {};
  const category = input.category ?? null;

  let statuses: ActionStatus[] | null = null;
  const parts = (input.status ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (parts.length) {
    const unknown = parts.filter((s) => !(ACTION_STATUSES as readonly string[]).includes(s));
    if (unknown.length) errors.status = [`Unknown status ${unknown.join(', ')}; use ${ACTION_STATUSES.join(', ')}`];
    else statuses = [...new Set(parts as ActionStatus[])];
  }

  // Extension: with customer_id alone, the options of the decisions on the customer as a whole.
  if (category === 'alternatives' && !input.invoiceId && !input.customerId) errors.invoice_id = ['category=alternatives needs invoice_id (or customer_id, for the decisions on the customer as a whole)'];
  if (category !== 'history') {
    if (input.executedAfter) errors.executed_after = ['Only allowed with category=history'];
    if (input.executedBefore) errors.executed_before = ['Only allowed with category=history'];
  } else if (input.executedAfter && input.executedBefore && input.executedAfter > input.executedBefore) {
    errors.executed_before = ['Must be on or after executed_after'];
  }
  const collect = <T>(parse: () => T): T | null => {
    try {
      return parse();
    } catch (err) {
      if (!(err instanceof ValidationError)) throw err;
      Object.assign(errors, err.errors ?? {});
      return null;
    }
  };
  const actionTypes = input.actionType === undefined ? null : collect(() => parseEnumList(input.actionType!, ACTION_TYPES, 'action_type'));
  const arOwners = input.arOwner === undefined ? null : collect(() => parseOwnerFilter(input.arOwner!));
  if (Object.keys(errors).length) throw new ValidationError('The query parameters are invalid', errors);

  const search = input.search?.trim() || null;
  return {
    category,
    statuses,
    invoiceId: input.invoiceId ?? null,
    customerId: input.customerId ?? null,
    actionTypes,
    arOwners,
    search,
    includeDeleted: input.includeDeleted ?? category === 'history',
    includeAlternatives: input.includeAlternatives ?? true,
    executedFrom: input.executedAfter ?? null,
    executedUntil: input.executedBefore ? addDays(input.executedBefore, 1) : null,
    sort: input.sort ?? 'created',
    descending: input.direction ? input.direction === 'desc' : DESCENDING_BY_DEFAULT.has(input.sort ?? 'created'),
    page: input.page ?? 1,
    pageSize: Math.min(input.pageSize ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE),
  };
}
