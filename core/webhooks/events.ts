import { ACTION_EMAIL } from '../actions/delivery';

/**
 * The events scripts can follow, read from the change record: each change a command wrote says
 * which events it is. Pure, so the catalogue is tested row by row.
 */

export const EVENT_TYPES = [
  'invoice.created',
  'invoice.updated',
  'invoice.closed',
  'payment.created',
  'action.proposed',
  'action.approved',
  'action.completed',
  'action.failed',
  'promise.created',
  'promise.kept',
  'promise.broken',
  'dispute.opened',
  'dispute.resolved',
  'reply.received',
  'portal.submission',
  'bank_statement.imported',
  'sync.rejected',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** The entities whose changes can be events: the materializer reads no other change row. */
export const EVENT_ENTITIES = ['invoice', 'payment', 'action', 'action_approval', 'job', 'communication', 'promise_followup', 'dispute', 'portal_submission', 'bank_statement'] as const;

export interface ChangeRow {
  entity: string;
  entity_id: string;
  op: 'insert' | 'update' | 'delete';
  /** JSON of the fields written. */
  data: string;
}

export interface NewEvent {
  type: EventType;
  resource_type: string;
  resource_id: string;
  data: Record<string, unknown>;
}

type Fields = Record<string, unknown>;

const has = (data: Fields, key: string) => data[key] !== undefined && data[key] !== null;

/** Which events one change is, in the order a script should see them; `job` is the job a job change is about. */
export function eventsOfChange(change: ChangeRow, job?: { kind: string; subject_id: string | null }): NewEvent[] {
  let data: Fields;
  try {
    data = JSON.parse(change.data) as Fields;
  } catch {
    return [];
  }
  const event = (type: EventType, resource_type = change.entity): NewEvent => ({ type, resource_type, resource_id: change.entity_id, data: { id: change.entity_id, ...data } });
  const { entity, op } = change;
  if (entity === 'invoice') {
    if (op === 'insert') return [event('invoice.created')];
    if (op !== 'update') return [];
    return has(data, 'closed_date') ? [event('invoice.updated'), event('invoice.closed')] : [event('invoice.updated')];
  }
  if (entity === 'payment' && op === 'insert') return [event('payment.created')];
  if (entity === 'action') {
    if (op === 'insert') return [event('action.proposed')];
    if (op !== 'update') return [];
    return data.status === 'completed' ? [event('action.completed')] : [];
  }
  // An approved email's send gave up: the job names the action it was for.
  if (entity === 'job' && op === 'update' && data.status === 'failed' && job?.kind === ACTION_EMAIL && job.subject_id) {
    return [{ type: 'action.failed', resource_type: 'action', resource_id: job.subject_id, data: { id: job.subject_id, error: data.last_error ?? null } }];
  }
  if (entity === 'action_approval' && op === 'insert') {
    const actionId = typeof data.action_id === 'string' ? data.action_id : change.entity_id;
    return [{ type: 'action.approved', resource_type: 'action', resource_id: actionId, data: { id: actionId, approval_id: change.entity_id, ...data } }];
  }
  if (entity === 'communication') {
    const events: NewEvent[] = [];
    if (op === 'insert' && data.kind === 'email' && data.direction === 'inbound') events.push(event('reply.received'));
    if ((op === 'insert' && has(data, 'promise_date')) || data.reading_kind === 'promise') events.push(event('promise.created'));
    return events;
  }
  if (entity === 'promise_followup' && op === 'insert') {
    if (data.outcome === 'kept') return [event('promise.kept', 'promise')];
    if (data.outcome === 'broken') return [event('promise.broken', 'promise')];
    return [];
  }
  if (entity === 'dispute') {
    if (op === 'insert') return [event('dispute.opened')];
    if (op === 'update' && data.status === 'resolved') return [event('dispute.resolved')];
    return [];
  }
  if (entity === 'portal_submission' && op === 'insert') return [event('portal.submission')];
  if (entity === 'bank_statement' && op === 'insert') return [event('bank_statement.imported')];
  return [];
}

/** A rejected sync operation on the team server: what a script watching a desktop's writes needs to know. */
export function rejectionEvent(row: { seq: number; client_id: string; mutation_id: number; command: string; reason: string | null; created_at: string }): NewEvent {
  const id = `${row.client_id}:${row.mutation_id}`;
  return { type: 'sync.rejected', resource_type: 'sync_operation', resource_id: id, data: { id, client_id: row.client_id, mutation_id: row.mutation_id, command: row.command, reason: row.reason, rejected_at: row.created_at } };
}

/** Whether an endpoint subscribed to `types` (["*"] for all) wants `type`. */
export function subscribes(types: readonly string[], type: string): boolean {
  return types.includes('*') || types.includes(type);
}
