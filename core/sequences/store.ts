/**
 * Row loaders and the writes shared by several sequence commands (finishing an enrollment).
 * Every read is scoped by company: another company's id is simply not found.
 */
import { sql, type Transaction } from 'kysely';
import type { Db } from '../db/connection';
import type { Database } from '../db/schema';
import type { CommandTx } from '../engine';
import { NotFoundError, ValidationError } from '../errors';

type Reader = Db | Transaction<Database>;

export async function sequenceRow(db: Reader, companyId: string, id: string) {
  const row = await db.selectFrom('sequences').selectAll().where('company_id', '=', companyId).where('id', '=', id.toLowerCase()).executeTakeFirst();
  if (!row) throw new NotFoundError('Sequence', id);
  return row;
}

export async function stepRow(db: Reader, companyId: string, sequenceId: string, stepId: string) {
  const row = await db
    .selectFrom('sequence_steps')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('sequence_id', '=', sequenceId)
    .where('id', '=', stepId.toLowerCase())
    .executeTakeFirst();
  if (!row) throw new NotFoundError('Sequence step', stepId);
  return row;
}

/** Steps in firing order: by the offset the sequence's timing uses, then time of day, then the order they were added. */
export async function stepRows(db: Reader, sequenceId: string) {
  return db
    .selectFrom('sequence_steps')
    .selectAll()
    .where('sequence_id', '=', sequenceId)
    .orderBy(sql`CASE WHEN (SELECT timing FROM sequences WHERE id = ${sequenceId}) = 'due_date' THEN due_offset_days ELSE offset_days END`)
    .orderBy('offset_time')
    .orderBy('position')
    .orderBy('id')
    .execute();
}

export async function enrollmentRow(db: Reader, companyId: string, id: string) {
  const row = await db.selectFrom('sequence_enrollments').selectAll().where('company_id', '=', companyId).where('id', '=', id.toLowerCase()).executeTakeFirst();
  if (!row) throw new NotFoundError('Enrollment', id);
  return row;
}

export async function customerRow(db: Reader, companyId: string, id: string) {
  const row = await db.selectFrom('customers').select(['id', 'name', 'ar_owner_id']).where('company_id', '=', companyId).where('id', '=', id.toLowerCase()).executeTakeFirst();
  if (!row) throw new NotFoundError('Customer', id);
  return row;
}

/** An active email connection of the company, named by sender_connection_id; anything else is a 400 on that field. */
export async function activeConnection(db: Reader, companyId: string, id: string) {
  const conn = await db.selectFrom('email_connections').selectAll().where('company_id', '=', companyId).where('id', '=', id.toLowerCase()).executeTakeFirst();
  if (!conn) throw new ValidationError('The request body is invalid', { sender_connection_id: ['No email connection with this id in the company'] });
  if (conn.is_active !== 1) throw new ValidationError('The request body is invalid', { sender_connection_id: ['The email connection is not active'] });
  return conn;
}

/** A change to a sequence's steps is a change to the sequence. */
export async function touchSequence(tx: CommandTx, sequenceId: string): Promise<void> {
  await tx.db.updateTable('sequences').set({ updated_at: tx.now }).where('id', '=', sequenceId).execute();
  await tx.record('sequence', sequenceId, 'update', { updated_at: tx.now });
}

/**
 * Completes an active enrollment and cancels its steps that are still scheduled (not yet ready:
 * ready ones stay in the queue for the collector). Returns how many steps it cancelled.
 */
export async function finishEnrollment(tx: CommandTx, enrollmentId: string, stopReason: string | null): Promise<number> {
  await tx.db
    .updateTable('sequence_enrollments')
    .set({ status: 'completed', stop_reason: stopReason, completed_at: tx.now, updated_at: tx.now })
    .where('id', '=', enrollmentId)
    .execute();
  await tx.record('sequence_enrollment', enrollmentId, 'update', { status: 'completed', stop_reason: stopReason, completed_at: tx.now });
  const pending = await tx.db.selectFrom('scheduled_steps').select('id').where('enrollment_id', '=', enrollmentId).where('status', '=', 'scheduled').execute();
  if (pending.length === 0) return 0;
  await tx.db.updateTable('scheduled_steps').set({ status: 'cancelled', updated_at: tx.now }).where('enrollment_id', '=', enrollmentId).where('status', '=', 'scheduled').execute();
  for (const p of pending) await tx.record('scheduled_step', p.id, 'update', { status: 'cancelled' });
  return pending.length;
}

/**
 * An active enrollment whose steps have all run (nothing scheduled or ready) is complete. A
 * due-date enrollment stays: the customer's next open invoice joins it.
 */
export async function completeIfFinished(tx: CommandTx, enrollmentId: string): Promise<void> {
  const enrollment = await tx.db
    .selectFrom('sequence_enrollments as e')
    .innerJoin('sequences as q', 'q.id', 'e.sequence_id')
    .select(['e.status', 'q.timing'])
    .where('e.id', '=', enrollmentId)
    .executeTakeFirst();
  if (enrollment?.status !== 'active' || enrollment.timing === 'due_date') return;
  const open = await tx.db.selectFrom('scheduled_steps').select('id').where('enrollment_id', '=', enrollmentId).where('status', 'in', ['scheduled', 'ready']).limit(1).executeTakeFirst();
  if (open) return;
  await tx.db.updateTable('sequence_enrollments').set({ status: 'completed', completed_at: tx.now, updated_at: tx.now }).where('id', '=', enrollmentId).execute();
  await tx.record('sequence_enrollment', enrollmentId, 'update', { status: 'completed', completed_at: tx.now });
}
