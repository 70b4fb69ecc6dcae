/**
 * Enrollments: a customer in a sequence. Enrolling schedules one queue row per active step; bulk
 * enrolment re-enrolls customers already in the sequence; stopping completes the enrollment and
 * cancels what has not become ready yet.
 */
import type { Selectable } from 'kysely';
import type { Db } from '../db/connection';
import { pageWindow, readPage } from '../db/paging';
import type { EnrollmentStatus, PauseKind, SequencesTable, SequenceTiming } from '../db/schema';
import { type CommandTx, type Engine, runCommand, type Scope } from '../engine';
import { isValidDate, MAX_DATE, MIN_DATE } from '../dates';
import { DomainError, InvalidStateError, NotFoundError, ValidationError } from '../errors';
import { shortDate } from '../holds/holds';
import { newId } from '../ids';
import { openInvoices, scheduleInvoiceRows } from './due-store';
import { insertScheduledStep, refreshHolds } from '../holds/store';
import { scheduleStep } from './schedule';
import { localDate } from '../zones';
import { BULK_ENROLL_MAX, CAUGHT_UP, caughtUpSteps, type OnEnrolled } from './rules';
import { customerRow, enrollmentRow, finishEnrollment, sequenceRow, stepRows } from './store';

export interface EnrollmentView {
  id: string;
  sequence: string;
  sequence_name: string;
  customer: string;
  customer_name: string;
  status: EnrollmentStatus;
  start_date: string;
  stop_reason: string | null;
  completed_at: string | null;
  created_at: string;
  updated_at: string;
  /** What pauses it: 'reply', 'promise', 'dispute' (found by itself) or 'manual' (the collector); null when running. */
  pause_kind: PauseKind | null;
  /** The pause in words ("Paused: Tri-County promised payment by Nov 27"). */
  pause_reason: string | null;
  paused_at: string | null;
  /** A promise's date: the enrollment resumes when it passes unpaid. */
  paused_until: string | null;
  /** The sequence's timing: in a due-date enrollment each open invoice has its own schedule. */
  timing: SequenceTiming;
}

type Sequence = Selectable<SequencesTable>;

function companyEnrollments(db: Db, companyId: string) {
  return db.selectFrom('sequence_enrollments as e').where('e.company_id', '=', companyId);
}

function withNames(query: ReturnType<typeof companyEnrollments>) {
  return query
    .innerJoin('sequences as q', 'q.id', 'e.sequence_id')
    .innerJoin('customers as c', 'c.id', 'e.customer_id')
    .select([
      'e.id',
      'e.sequence_id',
      'q.name as sequence_name',
      'e.customer_id',
      'c.name as customer_name',
      'e.status',
      'e.start_date',
      'e.stop_reason',
      'e.completed_at',
      'e.created_at',
      'e.updated_at',
      'e.paused_kind',
      'e.paused_reason',
      'e.paused_at',
      'e.paused_until',
      'q.timing',
    ]);
}

type EnrollmentRow = Awaited<ReturnType<ReturnType<typeof withNames>['executeTakeFirstOrThrow']>>;

function toView(r: EnrollmentRow): EnrollmentView {
  return {
    id: r.id,
    sequence: r.sequence_id,
    sequence_name: r.sequence_name,
    customer: r.customer_id,
    customer_name: r.customer_name,
    status: r.status,
    start_date: r.start_date,
    stop_reason: r.stop_reason,
    completed_at: r.completed_at,
    created_at: r.created_at,
    updated_at: r.updated_at,
    pause_kind: r.paused_kind,
    pause_reason: r.paused_reason,
    paused_at: r.paused_at,
    paused_until: r.paused_until,
    timing: r.timing,
  };
}

export async function getEnrollment(db: Db, companyId: string, id: string): Promise<EnrollmentView> {
  const row = await withNames(companyEnrollments(db, companyId)).where('e.id', '=', id.toLowerCase()).executeTakeFirst();
  if (!row) throw new NotFoundError('Enrollment', id);
  return toView(row);
}

export interface EnrollmentListFilter {
  sequenceId: string | null;
  customerId: string | null;
  statuses: EnrollmentStatus[] | null;
  page: number;
  pageSize: number;
}

/** Newest first (ids are time-ordered). */
export async function listEnrollments(db: Db, companyId: string, f: EnrollmentListFilter) {
  let where = companyEnrollments(db, companyId);
  if (f.sequenceId) where = where.where('e.sequence_id', '=', f.sequenceId.toLowerCase());
  if (f.customerId) where = where.where('e.customer_id', '=', f.customerId.toLowerCase());
  if (f.statuses) where = where.where('e.status', 'in', f.statuses);
  const { count, rows } = await readPage(where, withNames(where).orderBy('e.id', 'desc'), pageWindow(f.page, f.pageSize));
  return { count, page: f.page, page_size: f.pageSize, data: rows.map(toView) };
}

function assertActive(sequence: Sequence): void {
  if (sequence.status !== 'active') {
    throw new InvalidStateError(`Customers can only be enrolled in an active sequence; this one is ${sequence.status}`, 'sequence_not_active');
  }
}

function validStartDate(value: string | undefined, sequence: Sequence, now: Date): string {
  if (value === undefined) return localDate(now, sequence.timezone);
  if (!isValidDate(value)) throw new ValidationError('The request body is invalid', { start_date: [`Use a date YYYY-MM-DD from ${MIN_DATE} to ${MAX_DATE}`] });
  return value;
}

/**
 * Inserts an active enrollment and its scheduled rows: from the start, one row per active step
 * (start_date + offset_days at offset_time in the sequence's zone); from due dates, one row per
 * step and open invoice (due date + due_offset_days), with start_date as the day they join.
 */
async function insertEnrollment(tx: CommandTx, sequence: Sequence, customerId: string, startDate: string, steps: Awaited<ReturnType<typeof stepRows>>): Promise<string> {
  const enrollment = {
    id: newId(),
    company_id: sequence.company_id,
    sequence_id: sequence.id,
    customer_id: customerId,
    status: 'active' as const,
    start_date: startDate,
    stop_reason: null,
    completed_at: null,
    created_at: tx.now,
    updated_at: tx.now,
  };
  await tx.db.insertInto('sequence_enrollments').values(enrollment).execute();
  await tx.record('sequence_enrollment', enrollment.id, 'insert', enrollment);
  await refreshHolds(tx, sequence.company_id, [customerId]);
  if (sequence.timing === 'due_date') {
    // Each open invoice on its own schedule from its due date; later invoices join in syncDueSchedules.
    await scheduleInvoiceRows(tx, sequence, enrollment.id, customerId, await openInvoices(tx, sequence.company_id, customerId), steps, startDate);
    return enrollment.id;
  }
  // A "promise missed" step waits for a broken promise (holds-store.ts schedules it then).
  const planned = steps.filter((step) => step.is_active === 1 && step.on_promise_missed !== 1).map((step) => ({ step, ...scheduleStep(startDate, step, sequence.timezone) }));
  const caughtUp = new Set(caughtUpSteps(planned.map((p) => ({ step_type: p.step.step_type, scheduled_date: p.scheduled_date, scheduled_at: p.scheduled_at })), tx.now, localDate(new Date(tx.now), sequence.timezone)));
  for (const [i, p] of planned.entries()) {
    const id = await insertScheduledStep(tx, {
      company_id: sequence.company_id,
      enrollment_id: enrollment.id,
      sequence_id: sequence.id,
      step_id: p.step.id,
      customer_id: customerId,
      invoice_id: null,
      scheduled_date: p.scheduled_date,
      scheduled_at: p.scheduled_at,
    });
    if (!caughtUp.has(i)) continue;
    await tx.db.updateTable('scheduled_steps').set({ status: 'cancelled', cancel_reason: CAUGHT_UP, updated_at: tx.now }).where('id', '=', id).execute();
    await tx.record('scheduled_step', id, 'update', { status: 'cancelled', cancel_reason: CAUGHT_UP });
  }
  return enrollment.id;
}

export interface EnrollInput {
  sequence_id: string;
  customer_id: string;
  start_date?: string;
  /** A customer already in the sequence: keep that enrollment, restart (a new one from start_date), or ask (409). Absent: keep, as the specification says. */
  on_enrolled?: OnEnrolled;
}

/** `on_enrolled: ask` for someone already enrolled: nothing changes until the caller says keep or restart. */
function alreadyEnrolled(message: string): DomainError {
  return new DomainError(409, 'already_enrolled', message, { on_enrolled: ['Say keep (the enrollment stays as it is) or restart (a new enrollment from the start date)'] });
}

/**
 * One customer: 201 with a new enrollment. Already in the sequence: keep (the default, the
 * specification's 200 with the active enrollment untouched), restart (the active one completes as
 * "re-enrolled" and a new one starts, 201), or ask (409 already_enrolled, nothing written).
 */
export async function enrollCustomer(engine: Engine, scope: Scope, input: EnrollInput): Promise<{ created: boolean; enrollment: EnrollmentView }> {
  const result = await runCommand(engine, 'enroll_customer', scope, async (tx) => {
    const sequence = await sequenceRow(tx.db, scope.companyId, input.sequence_id);
    const customer = await customerRow(tx.db, scope.companyId, input.customer_id);
    assertActive(sequence);
    const startDate = validStartDate(input.start_date, sequence, engine.clock.now());
    const existing = await tx.db
      .selectFrom('sequence_enrollments')
      .select('id')
      .where('sequence_id', '=', sequence.id)
      .where('customer_id', '=', customer.id)
      .where('status', '=', 'active')
      .executeTakeFirst();
    if (existing) {
      const onEnrolled = input.on_enrolled ?? 'keep';
      if (onEnrolled === 'keep') return { created: false, id: existing.id };
      if (onEnrolled === 'ask') {
        const since = (await enrollmentRow(tx.db, scope.companyId, existing.id)).start_date;
        throw alreadyEnrolled(`${customer.name} is already in "${sequence.name}" (started ${shortDate(since)}). Keep that enrollment, or restart it from ${shortDate(startDate)}.`);
      }
      await finishEnrollment(tx, existing.id, 're-enrolled');
    }
    return { created: true, id: await insertEnrollment(tx, sequence, customer.id, startDate, await stepRows(tx.db, sequence.id)) };
  });
  return { created: result.created, enrollment: await getEnrollment(engine.db, scope.companyId, result.id) };
}

export interface BulkEnrollResult {
  enrolled_count: number;
  /** Customers already in the sequence, restarted (on_enrolled restart). */
  updated_count: number;
  /** Customers already in the sequence, left as they were (on_enrolled keep). */
  kept_count: number;
  skipped_count: number;
  /** The ids counted in skipped_count (unknown to the company). */
  skipped_customer_ids: string[];
}

/**
 * Many customers, one start date, all in one transaction. Those already actively enrolled go as the
 * caller says: restart (the default, the specification's re-enrolment) completes the stale
 * enrollment ("re-enrolled") and starts a new one (updated_count), keep leaves it (kept_count), ask
 * refuses the request (409 already_enrolled, nothing written). Unknown customers, or other
 * companies', are skipped; a repeated id counts once.
 */
export async function bulkEnroll(engine: Engine, scope: Scope, sequenceId: string, input: { customer_ids: string[]; start_date?: string; on_enrolled?: OnEnrolled }): Promise<BulkEnrollResult> {
  if (input.customer_ids.length === 0) throw new ValidationError('The request body is invalid', { customer_ids: ['Must not be empty'] });
  if (input.customer_ids.length > BULK_ENROLL_MAX) throw new ValidationError('The request body is invalid', { customer_ids: [`At most ${BULK_ENROLL_MAX} ids`] });
  return runCommand(engine, 'bulk_enroll_customers', scope, async (tx) => {
    const sequence = await sequenceRow(tx.db, scope.companyId, sequenceId);
    assertActive(sequence);
    const startDate = validStartDate(input.start_date, sequence, engine.clock.now());
    const ids = [...new Set(input.customer_ids.map((id) => id.toLowerCase()))];
    const known = new Set(
      (await tx.db.selectFrom('customers').select('id').where('company_id', '=', scope.companyId).where('id', 'in', ids).execute()).map((r) => r.id),
    );
    const active = new Map(
      (
        await tx.db
          .selectFrom('sequence_enrollments')
          .select(['id', 'customer_id'])
          .where('sequence_id', '=', sequence.id)
          .where('status', '=', 'active')
          .where('customer_id', 'in', ids)
          .execute()
      ).map((r) => [r.customer_id, r.id]),
    );
    const onEnrolled = input.on_enrolled ?? 'restart';
    if (active.size > 0 && onEnrolled === 'ask') {
      const names = (await tx.db.selectFrom('customers').select('name').where('id', 'in', [...active.keys()]).orderBy('name').limit(4).execute()).map((c) => c.name);
      const who = active.size === 1 ? `${names[0]} is` : `${active.size} of them (${names.slice(0, 3).join(', ')}${active.size > 3 ? ', …' : ''}) are`;
      throw alreadyEnrolled(`${who} already in "${sequence.name}". Keep their enrollment${active.size === 1 ? '' : 's'}, or restart from ${shortDate(startDate)}.`);
    }
    const steps = await stepRows(tx.db, sequence.id);
    const result: BulkEnrollResult = { enrolled_count: 0, updated_count: 0, kept_count: 0, skipped_count: 0, skipped_customer_ids: [] };
    for (const customerId of ids) {
      if (!known.has(customerId)) {
        result.skipped_count += 1;
        result.skipped_customer_ids.push(customerId);
        continue;
      }
      const stale = active.get(customerId);
      if (stale && onEnrolled === 'keep') {
        result.kept_count += 1;
        continue;
      }
      if (stale) await finishEnrollment(tx, stale, 're-enrolled');
      await insertEnrollment(tx, sequence, customerId, startDate, steps);
      if (stale) result.updated_count += 1;
      else result.enrolled_count += 1;
    }
    return result;
  });
}

/** Completes an active enrollment; a completed one is refused (400), never silently re-stopped. */
export async function stopEnrollment(engine: Engine, scope: Scope, id: string, stopReason: string | null): Promise<{ enrollment: EnrollmentView; cancelled_scheduled_steps: number }> {
  const result = await runCommand(engine, 'stop_enrollment', scope, async (tx) => {
    const enrollment = await enrollmentRow(tx.db, scope.companyId, id);
    if (enrollment.status !== 'active') throw new InvalidStateError('The enrollment is already completed');
    const reason = stopReason?.trim() || 'stopped';
    return { id: enrollment.id, cancelled: await finishEnrollment(tx, enrollment.id, reason) };
  });
  return { enrollment: await getEnrollment(engine.db, scope.companyId, result.id), cancelled_scheduled_steps: result.cancelled };
}
