/**
 * Writing actions: create, the five operations of the state machine, and soft delete. Each is one
 * command (one transaction, every written row recorded).
 */
import { type AttachmentKind, attachmentKinds } from '../documents/attachments';
import type { ActionStatus, ActionType, ActionsTable, ApprovalOperation } from '../db/schema';
import { type CommandTx, type Engine, runCommand, type Scope } from '../engine';
import { InvalidStateError, NotFoundError, ValidationError } from '../errors';
import { newId } from '../ids';
import { queueActionEmail } from './delivery';
import { withdrawSiblings } from '../supersede/withdraw';
import { type ActionView, getAction, parseMetadata } from './queries';
import { assessValueAtRisk } from './value-at-risk';
import { defaultDeadline, isExecution, nextStatus, parseResponseDeadline } from './rules';

type EngineLike = Pick<Engine, 'db' | 'clock'>;

export interface NewActionInput {
  customer?: string;
  invoice?: string | null;
  action_type: ActionType;
  status?: Extract<ActionStatus, 'proposed' | 'scheduled'>;
  description: string;
  recommendation_label?: string | null;
  trigger_event_label?: string | null;
  top_recommendation?: string | null;
  is_action_required?: boolean;
  is_ai_recommended?: boolean;
  metadata?: Record<string, unknown>;
  response_deadline?: string | null;
}

/** Creates an action for a customer, optionally on one of the customer's invoices. */
export async function createAction(engine: EngineLike, scope: Scope, input: NewActionInput): Promise<ActionView> {
  const given = input.response_deadline ? parseResponseDeadline(input.response_deadline) : null;
  return runCommand(engine, 'create_action', scope, async (tx) => {
    // A decision without a deadline gets one ahead, never a past or empty "Decide by".
    const deadline = given ?? defaultDeadline(tx.now);
    const { customerId, invoiceId } = await resolveTarget(tx, scope.companyId, input.customer, input.invoice ?? null);
    const id = newId();
    const row: ActionsTable = {
      id,
      company_id: scope.companyId,
      invoice_id: invoiceId,
      customer_id: customerId,
      action_type: input.action_type,
      status: input.status ?? 'proposed',
      description: input.description,
      recommendation_label: input.recommendation_label ?? null,
      trigger_event_label: input.trigger_event_label ?? null,
      is_action_required: input.is_action_required ? 1 : 0,
      top_recommendation: input.top_recommendation ?? null,
      is_ai_recommended: (input.is_ai_recommended ?? true) ? 1 : 0,
      metadata: JSON.stringify(input.metadata ?? {}),
      response_deadline: deadline,
      channel_id: null,
      external_id: null,
      executed_at: null,
      executed_by: null,
      deleted_at: null,
      created_at: tx.now,
      updated_at: tx.now,
      evidence: '[]',
      trigger_key: null,
      value_at_risk: null,
    };
    await tx.db.insertInto('actions').values(row).execute();
    await tx.record('action', id, 'insert', { ...row, metadata: input.metadata ?? {} });
    await assessValueAtRisk(tx.db, scope.companyId, tx.today, { actionIds: [id] });
    return getAction(tx.db, scope.companyId, id, tx.now.slice(0, 10));
  });
}

/** The customer and invoice of a new action: the invoice's customer when only the invoice is given. */
async function resolveTarget(tx: CommandTx, companyId: string, customer: string | undefined, invoice: string | null) {
  if (invoice) {
    const row = await tx.db.selectFrom('invoices').select(['id', 'customer_id']).where('company_id', '=', companyId).where('id', '=', invoice).executeTakeFirst();
    if (!row) throw new ValidationError('The invoice does not exist in this company', { invoice: ['Unknown invoice'] });
    if (customer && customer !== row.customer_id) {
      throw new ValidationError('The invoice belongs to another customer', { customer: ['Does not match the invoice’s customer'] });
    }
    return { customerId: row.customer_id, invoiceId: row.id };
  }
  if (!customer) throw new ValidationError('Give a customer or an invoice', { customer: ['Required when no invoice is given'] });
  const row = await tx.db.selectFrom('customers').select('id').where('company_id', '=', companyId).where('id', '=', customer).executeTakeFirst();
  if (!row) throw new ValidationError('The customer does not exist in this company', { customer: ['Unknown customer'] });
  return { customerId: row.id, invoiceId: null };
}

export interface ApproveInput {
  final_content?: string;
  final_subject?: string;
  /** An email action's documents, made when it is sent (attachments.ts). */
  attach?: AttachmentKind[];
  approved_by?: string | null;
  comment?: string;
  /** Send anyway through the contact rule's holds, for this reason (kept in the change log). */
  override_reason?: string;
}

export interface RejectInput {
  reason?: string;
  approved_by?: string | null;
  comment?: string;
}

export interface SendInput {
  final_content?: string;
  channel_id?: string;
  external_id?: string;
  response_deadline?: string;
}

export interface CancelInput {
  reason?: string;
  approved_by?: string | null;
}

export function approveAction(engine: EngineLike, scope: Scope, actionId: string, input: ApproveInput): Promise<ActionView> {
  return operate(engine, scope, actionId, 'approve', {
    approvedBy: input.approved_by,
    comment: input.comment,
    finalContent: input.final_content,
    finalSubject: input.final_subject,
    attach: input.attach,
    overrideReason: input.override_reason,
  });
}

export function rejectAction(engine: EngineLike, scope: Scope, actionId: string, input: RejectInput): Promise<ActionView> {
  return operate(engine, scope, actionId, 'reject', { approvedBy: input.approved_by, comment: input.comment, reason: input.reason });
}

export function sendAction(engine: EngineLike, scope: Scope, actionId: string, input: SendInput): Promise<ActionView> {
  const deadline = input.response_deadline === undefined ? undefined : parseResponseDeadline(input.response_deadline);
  return operate(engine, scope, actionId, 'send', {
    finalContent: input.final_content,
    delivery: { channel_id: input.channel_id, external_id: input.external_id, response_deadline: deadline },
  });
}

export function cancelAction(engine: EngineLike, scope: Scope, actionId: string, input: CancelInput): Promise<ActionView> {
  return operate(engine, scope, actionId, 'cancel', { approvedBy: input.approved_by, reason: input.reason });
}

export function completeAction(engine: EngineLike, scope: Scope, actionId: string): Promise<ActionView> {
  return operate(engine, scope, actionId, 'complete', {});
}

interface OperationInput {
  /** undefined: the caller's own team member; null: nobody. */
  approvedBy?: string | null;
  reason?: string;
  comment?: string;
  finalContent?: string;
  finalSubject?: string;
  attach?: AttachmentKind[];
  /** Send anyway through the contact rule's holds, for this reason (kept in the change log). */
  overrideReason?: string;
  /** Omitted delivery fields keep their current values. */
  delivery?: { channel_id?: string; external_id?: string; response_deadline?: string };
}

async function operate(engine: EngineLike, scope: Scope, actionId: string, operation: ApprovalOperation, input: OperationInput): Promise<ActionView> {
  return runCommand(engine, `${operation}_action`, scope, async (tx) => {
    const action = await tx.db
      .selectFrom('actions')
      .select(['id', 'status', 'metadata', 'deleted_at', 'action_type', 'customer_id', 'invoice_id', 'trigger_key'])
      .where('company_id', '=', scope.companyId)
      .where('id', '=', actionId)
      .executeTakeFirst();
    if (!action) throw new NotFoundError('Action', actionId);
    if (action.deleted_at) throw new InvalidStateError(`Cannot ${operation} a deleted action`);
    const status = nextStatus(action.status, operation);
    const approverId = await resolveApprover(tx, scope, input.approvedBy);

    const changes: Partial<ActionsTable> = { status, updated_at: tx.now };
    const stored = parseMetadata(action.metadata);
    let metadata = stored;
    if (input.finalContent !== undefined) metadata = { ...metadata, final_content: input.finalContent };
    if (input.finalSubject !== undefined) metadata = { ...metadata, final_subject: input.finalSubject };
    if (input.attach !== undefined) metadata = { ...metadata, attach: attachmentKinds(input.attach) };
    // An approved call or task is somebody's work: the approver's, else the customer's AR owner's.
    if (operation === 'approve' && action.action_type !== 'email') metadata = { ...metadata, assignee: await assigneeOf(tx, scope.companyId, approverId, action.customer_id) };
    if (metadata !== stored) changes.metadata = JSON.stringify(metadata);
    if (input.delivery) {
      for (const key of ['channel_id', 'external_id', 'response_deadline'] as const) {
        if (input.delivery[key] !== undefined) changes[key] = input.delivery[key];
      }
    }
    if (isExecution(operation)) {
      // The actions_last_touch trigger copies these onto the invoice as its last touch.
      changes.executed_at = tx.now;
      changes.executed_by = scope.actor.name;
    }
    await tx.db.updateTable('actions').set(changes).where('id', '=', actionId).execute();
    await tx.record('action', actionId, 'update', changes.metadata ? { ...changes, metadata: JSON.parse(changes.metadata) } : changes);

    const entry = {
      id: newId(),
      company_id: scope.companyId,
      action_id: actionId,
      operation,
      reason: input.reason ?? null,
      comment: input.comment ?? null,
      approver_id: approverId,
      user_id: scope.actor.userId,
      created_at: tx.now,
    };
    await tx.db.insertInto('action_approvals').values(entry).execute();
    await tx.record('action_approval', entry.id, 'insert', entry);
    // One decision per trigger: the option chosen cancels the others.
    if (operation === 'approve' || operation === 'send' || operation === 'complete') await withdrawSiblings(tx, scope.companyId, action);
    // Approving an email sends it: the send is queued in the approval's own transaction.
    if (operation === 'approve' && action.action_type === 'email') await queueActionEmail(tx, scope.companyId, actionId, scope.actor, metadata, input.overrideReason);
    return getAction(tx.db, scope.companyId, actionId, tx.now.slice(0, 10));
  });
}

/** The team member an approved call or task is given to: the approver, else the customer's AR owner; null when neither. */
async function assigneeOf(tx: CommandTx, companyId: string, approverId: string | null, customerId: string): Promise<{ id: string; name: string } | null> {
  const owner = await tx.db.selectFrom('customers').select('ar_owner_id').where('id', '=', customerId).executeTakeFirst();
  const id = approverId ?? owner?.ar_owner_id ?? null;
  if (!id) return null;
  const member = await tx.db.selectFrom('team_members').select(['id', 'name']).where('company_id', '=', companyId).where('id', '=', id).executeTakeFirst();
  return member ?? null;
}

export interface RetryInput {
  /** An edited text to send instead of the one approved. */
  final_content?: string;
  final_subject?: string;
  /** Send anyway through the contact rule's holds, for this reason. */
  override_reason?: string;
}

/**
 * Sends an approved email action again after its send failed (or sends one approved before sends
 * were queued), optionally with an edited text. Only an approved email action whose send is not
 * under way or done can be retried.
 */
export async function retryAction(engine: EngineLike, scope: Scope, actionId: string, input: RetryInput): Promise<ActionView> {
  return runCommand(engine, 'retry_action', scope, async (tx) => {
    const action = await tx.db
      .selectFrom('actions')
      .select(['id', 'status', 'metadata', 'deleted_at', 'action_type'])
      .where('company_id', '=', scope.companyId)
      .where('id', '=', actionId)
      .executeTakeFirst();
    if (!action) throw new NotFoundError('Action', actionId);
    if (action.deleted_at) throw new InvalidStateError('Cannot retry a deleted action');
    if (action.action_type !== 'email') throw new InvalidStateError('Only an email action is sent; a call or task is done by logging it');
    if (action.status !== 'processing') throw new InvalidStateError(`Only an approved action can be sent again; this one is ${action.status}`);
    const edits: Record<string, string> = {};
    if (input.final_content !== undefined) edits.final_content = input.final_content;
    if (input.final_subject !== undefined) edits.final_subject = input.final_subject;
    const metadata = { ...parseMetadata(action.metadata), ...edits };
    if (Object.keys(edits).length) {
      const changes = { metadata: JSON.stringify(metadata), updated_at: tx.now };
      await tx.db.updateTable('actions').set(changes).where('id', '=', actionId).execute();
      await tx.record('action', actionId, 'update', { ...changes, metadata });
    }
    await queueActionEmail(tx, scope.companyId, actionId, scope.actor, metadata, input.override_reason);
    return getAction(tx.db, scope.companyId, actionId, tx.now.slice(0, 10));
  });
}

/**
 * approved_by names a team member of this company (the spec's "company contact"); an unknown id
 * is a 400. Without it the caller's own team member is the approver, if the caller has one.
 */
async function resolveApprover(tx: CommandTx, scope: Scope, approvedBy: string | null | undefined): Promise<string | null> {
  if (approvedBy === null) return null;
  if (approvedBy !== undefined) {
    const member = await tx.db.selectFrom('team_members').select('id').where('company_id', '=', scope.companyId).where('id', '=', approvedBy.toLowerCase()).executeTakeFirst();
    if (!member) throw new ValidationError('approved_by is not a team member of this company', { approved_by: ['Unknown team member'] });
    return member.id;
  }
  if (!scope.actor.userId) return null;
  const own = await tx.db
    .selectFrom('team_members')
    .select('id')
    .where('company_id', '=', scope.companyId)
    .where('user_id', '=', scope.actor.userId)
    .orderBy('is_active', 'desc')
    .orderBy('id')
    .executeTakeFirst();
  return own?.id ?? null;
}

/**
 * Soft delete: the action leaves every list unless deleted ones are included, and stays readable by
 * id. updated_at is left alone, so a cancelled action keeps its place in history. Deleting again
 * changes nothing.
 */
export async function deleteAction(engine: EngineLike, scope: Scope, actionId: string): Promise<void> {
  await runCommand(engine, 'delete_action', scope, async (tx) => {
    const action = await tx.db.selectFrom('actions').select(['id', 'deleted_at']).where('company_id', '=', scope.companyId).where('id', '=', actionId).executeTakeFirst();
    if (!action) throw new NotFoundError('Action', actionId);
    if (action.deleted_at) return;
    await tx.db.updateTable('actions').set({ deleted_at: tx.now }).where('id', '=', actionId).execute();
    await tx.record('action', actionId, 'update', { deleted_at: tx.now });
  });
}
