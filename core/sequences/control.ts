/**
 * The collector's hand on the chase: pause or resume an enrollment, skip a step, snooze it to a
 * date, or write an email step's subject and body themselves before it goes out. Each is one
 * command; a step already sent, completed or being sent is never changed.
 */
import { isValidDate, MAX_DATE } from '../dates';
import { type CommandTx, type Engine, runCommand, type Scope } from '../engine';
import { InvalidStateError, NotFoundError, ValidationError } from '../errors';
import { refreshHolds } from '../holds/store';
import { shortDate } from '../holds/holds';
import { type EnrollmentView, getEnrollment } from './enrollments';
import { getQueueRow, type QueueRowView } from './queue';
import { assertReadyUnclaimed, EMAIL_STEP_TYPE, SKIPPED } from './rules';
import { localDate, zonedToUtc } from '../zones';
import { completeIfFinished, enrollmentRow } from './store';

const SUBJECT_MAX = 1_000;
const BODY_MAX = 100_000;

async function activeEnrollment(tx: CommandTx, companyId: string, id: string) {
  const e = await enrollmentRow(tx.db, companyId, id);
  if (e.status !== 'active') throw new InvalidStateError('The enrollment is completed', 'enrollment_completed');
  return e;
}

/** The collector pauses an enrollment: it stays paused, whatever the holds say, until they resume it. */
export async function pauseEnrollment(engine: Engine, scope: Scope, id: string): Promise<EnrollmentView> {
  const enrollmentId = await runCommand(engine, 'pause_enrollment', scope, async (tx) => {
    const e = await activeEnrollment(tx, scope.companyId, id);
    if (e.paused_kind === 'manual') return e.id;
    const timezone = (await tx.db.selectFrom('sequences').select('timezone').where('id', '=', e.sequence_id).executeTakeFirstOrThrow()).timezone;
    const set = {
      paused_kind: 'manual' as const,
      paused_reason: `Paused by ${tx.actor.name} on ${shortDate(localDate(new Date(tx.now), timezone))}`,
      paused_at: tx.now,
      paused_until: null,
      paused_invoice_id: null,
      updated_at: tx.now,
    };
    await tx.db.updateTable('sequence_enrollments').set(set).where('id', '=', e.id).execute();
    await tx.record('sequence_enrollment', e.id, 'update', set);
    return e.id;
  });
  return getEnrollment(engine.db, scope.companyId, enrollmentId);
}

/**
 * The collector resumes an enrollment: their own pause ends and the customer's replies so far count
 * as handled. A promise or dispute that still stands pauses it again at once (the response says so).
 */
export async function resumeEnrollment(engine: Engine, scope: Scope, id: string): Promise<EnrollmentView> {
  const enrollmentId = await runCommand(engine, 'resume_enrollment', scope, async (tx) => {
    const e = await activeEnrollment(tx, scope.companyId, id);
    const set = { paused_kind: null, paused_reason: null, paused_at: null, paused_until: null, paused_invoice_id: null, reply_handled_at: tx.now, updated_at: tx.now };
    await tx.db.updateTable('sequence_enrollments').set(set).where('id', '=', e.id).execute();
    await tx.record('sequence_enrollment', e.id, 'update', set);
    await refreshHolds(tx, scope.companyId, [e.customer_id]);
    return e.id;
  });
  return getEnrollment(engine.db, scope.companyId, enrollmentId);
}

/** A pending step (scheduled or ready, not being sent) of the company, with its sequence's zone. */
async function pendingStep(tx: CommandTx, companyId: string, id: string) {
  const row = await tx.db
    .selectFrom('scheduled_steps as s')
    .innerJoin('sequence_steps as st', 'st.id', 's.step_id')
    .innerJoin('sequences as q', 'q.id', 's.sequence_id')
    .select(['s.id', 's.status', 's.enrollment_id', 's.send_started_at', 'st.step_type', 'st.offset_time', 'q.timezone'])
    .where('s.company_id', '=', companyId)
    .where('s.id', '=', id.toLowerCase())
    .executeTakeFirst();
  if (!row) throw new NotFoundError('Scheduled step', id);
  if (row.status !== 'scheduled') assertReadyUnclaimed(row.status, row.send_started_at, tx.now);
  return row;
}

/** Skips one step: it is cancelled (shown in history as skipped) and the enrollment goes on. */
export async function skipStep(engine: Engine, scope: Scope, id: string): Promise<QueueRowView> {
  const stepId = await runCommand(engine, 'skip_scheduled_step', scope, async (tx) => {
    const row = await pendingStep(tx, scope.companyId, id);
    await tx.db.updateTable('scheduled_steps').set({ status: 'cancelled', cancel_reason: SKIPPED, updated_at: tx.now }).where('id', '=', row.id).execute();
    await tx.record('scheduled_step', row.id, 'update', { status: 'cancelled', cancel_reason: SKIPPED });
    await completeIfFinished(tx, row.enrollment_id);
    return row.id;
  });
  return getQueueRow(engine, scope.companyId, stepId);
}

/** Moves a step to a later day (at its usual time of day); it becomes ready again then. */
export async function snoozeStep(engine: Engine, scope: Scope, id: string, date: string): Promise<QueueRowView> {
  const stepId = await runCommand(engine, 'snooze_scheduled_step', scope, async (tx) => {
    const row = await pendingStep(tx, scope.companyId, id);
    const today = localDate(new Date(tx.now), row.timezone);
    if (!isValidDate(date) || date <= today || date > MAX_DATE) {
      throw new ValidationError('The request body is invalid', { date: [`A day after today (${shortDate(today)}), as YYYY-MM-DD`] });
    }
    const set = { status: 'scheduled' as const, scheduled_date: date, scheduled_at: zonedToUtc(date, row.offset_time, row.timezone), updated_at: tx.now };
    await tx.db.updateTable('scheduled_steps').set(set).where('id', '=', row.id).execute();
    await tx.record('scheduled_step', row.id, 'update', set);
    return row.id;
  });
  return getQueueRow(engine, scope.companyId, stepId);
}

/** Keeps the collector's subject and body with an email step; null for both goes back to the templates. */
export async function editStep(engine: Engine, scope: Scope, id: string, input: { subject: string | null; body: string | null }): Promise<QueueRowView> {
  const subject = input.subject?.trim() ?? null;
  const body = input.body?.trim() ?? null;
  const errors: Record<string, string[]> = {};
  if ((subject === null) !== (body === null)) errors[subject === null ? 'subject' : 'body'] = ['Give both the subject and the body, or neither to go back to the templates'];
  if (subject === '') errors.subject = ['Must not be blank'];
  if (body === '') errors.body = ['Must not be blank'];
  if (subject && subject.length > SUBJECT_MAX) errors.subject = [`At most ${SUBJECT_MAX} characters`];
  if (body && body.length > BODY_MAX) errors.body = [`At most ${BODY_MAX} characters`];
  if (Object.keys(errors).length) throw new ValidationError('The request body is invalid', errors);
  const stepId = await runCommand(engine, 'edit_scheduled_step', scope, async (tx) => {
    const row = await pendingStep(tx, scope.companyId, id);
    if (row.step_type !== EMAIL_STEP_TYPE) throw new InvalidStateError('Only an email step has a subject and body to edit', 'not_email_step');
    const set = { edited_subject: subject, edited_body: body, edited_at: subject === null ? null : tx.now, updated_at: tx.now };
    await tx.db.updateTable('scheduled_steps').set(set).where('id', '=', row.id).execute();
    await tx.record('scheduled_step', row.id, 'update', set);
    return row.id;
  });
  return getQueueRow(engine, scope.companyId, stepId);
}
