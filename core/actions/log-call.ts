/**
 * Doing an approved call or task: logging the call (or a note for a task) on the action's customer
 * and invoice completes the action, in one transaction.
 */
import type { CallOutcome } from '../db/schema';
import { type Engine, runCommand, type Scope } from '../engine';
import { InvalidStateError, NotFoundError } from '../errors';
import { newId } from '../ids';
import { logCommunication } from '../communications/log';
import type { LoggedKind } from '../communications/rules';
import { type ActionView, getAction } from './queries';

export interface LogActionInput {
  kind?: LoggedKind;
  outcome?: CallOutcome | null;
  body?: string | null;
  promise_date?: string | null;
  /** Major units. */
  promise_amount?: number | null;
}

export async function logActionCall(engine: Pick<Engine, 'db' | 'clock'>, scope: Scope, actionId: string, input: LogActionInput): Promise<ActionView> {
  return runCommand(engine, 'log_action_call', scope, async (tx) => {
    const action = await tx.db
      .selectFrom('actions')
      .select(['id', 'status', 'deleted_at', 'action_type', 'customer_id', 'invoice_id'])
      .where('company_id', '=', scope.companyId)
      .where('id', '=', actionId)
      .executeTakeFirst();
    if (!action) throw new NotFoundError('Action', actionId);
    if (action.deleted_at) throw new InvalidStateError('Cannot log a deleted action');
    if (action.action_type === 'email') throw new InvalidStateError('An email action is done by sending it, not by logging a call');
    if (action.status !== 'processing') throw new InvalidStateError(`Only an approved call or task is done by logging it; this one is ${action.status}`);
    // The same command the invoice panel logs calls with, in this transaction (a savepoint).
    const logged = await logCommunication({ db: tx.db, clock: engine.clock }, scope, {
      customer_id: action.customer_id,
      invoice_id: action.invoice_id,
      kind: input.kind ?? 'call',
      outcome: input.outcome ?? null,
      body: input.body ?? null,
      promise_date: input.promise_date ?? null,
      promise_amount: input.promise_amount ?? null,
    });
    const done = { status: 'completed' as const, executed_at: tx.now, executed_by: tx.actor.name, updated_at: tx.now };
    await tx.db.updateTable('actions').set(done).where('id', '=', actionId).execute();
    await tx.record('action', actionId, 'update', done);
    const entry = {
      id: newId(),
      company_id: scope.companyId,
      action_id: actionId,
      operation: 'complete' as const,
      reason: null,
      comment: logged.kind === 'call' ? 'Call logged' : 'Note logged',
      approver_id: null,
      user_id: scope.actor.userId,
      created_at: tx.now,
    };
    await tx.db.insertInto('action_approvals').values(entry).execute();
    await tx.record('action_approval', entry.id, 'insert', entry);
    return getAction(tx.db, scope.companyId, actionId, tx.now.slice(0, 10));
  });
}
