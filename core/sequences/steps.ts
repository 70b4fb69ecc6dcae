/**
 * Sequence steps: create with defaults, read, update (not once executed), delete (not once executed).
 * Changes apply to enrollments made afterwards; steps already scheduled keep their time, but an
 * email is rendered from the step's templates when it is sent.
 */
import type { Selectable } from 'kysely';
import type { Db } from '../db/connection';
import type { SequenceStepsTable } from '../db/schema';
import { ATTACHMENT_KINDS, attachmentKinds } from '../documents/attachments';
import { storedAttach } from './attachments';
import { type CommandTx, type Engine, runCommand, type Scope } from '../engine';
import { ConflictError, ValidationError } from '../errors';
import { newId } from '../ids';
import { isValidOffsetTime } from '../zones';
import { assertStepEditable, EXECUTED_STATUSES, OFFSET_DAYS_MAX, STEP_DEFAULTS, type StepFields } from './rules';
import { completeIfFinished, sequenceRow, stepRow, stepRows, touchSequence } from './store';

export interface StepView extends StepFields {
  id: string;
  sequence: string;
  /** True once the step was executed for some enrollment: its content is then frozen. */
  has_history: boolean;
  created_at: string;
  updated_at: string;
}

type StepRow = Selectable<SequenceStepsTable>;

function toStepView(row: StepRow, hasHistory: boolean): StepView {
  return { id: row.id, sequence: row.sequence_id, ...fieldsOf(row), has_history: hasHistory, created_at: row.created_at, updated_at: row.updated_at };
}

/** The editable fields of a stored step, as the API and the rules see them. */
function fieldsOf(row: StepRow): StepFields {
  return {
    step_type: row.step_type,
    label: row.label,
    offset_days: row.offset_days,
    offset_time: row.offset_time,
    is_active: row.is_active === 1,
    subject_template: row.subject_template,
    body_plain_template: row.body_plain_template,
    body_html_template: row.body_html_template,
    instructions: row.instructions,
    on_promise_missed: row.on_promise_missed === 1,
    due_offset_days: row.due_offset_days,
    attach: storedAttach(row.attach),
  };
}

export type StepInput = Partial<StepFields>;

/** The core's own checks, so every caller (API, CLI, import) gets the same 400s. */
function validated(input: StepInput): StepInput {
  const errors: Record<string, string[]> = {};
  const out: StepInput = { ...input };
  if (input.label !== undefined) {
    out.label = input.label.trim();
    if (!out.label) errors.label = ['Must not be blank'];
  }
  if (input.offset_time !== undefined && !isValidOffsetTime(input.offset_time)) errors.offset_time = ['Use HH:MM (00:00 to 23:59)'];
  if (input.offset_days !== undefined && (!Number.isInteger(input.offset_days) || input.offset_days < 0 || input.offset_days > OFFSET_DAYS_MAX)) {
    errors.offset_days = [`An integer from 0 to ${OFFSET_DAYS_MAX}`];
  }
  if (input.due_offset_days !== undefined && (!Number.isInteger(input.due_offset_days) || Math.abs(input.due_offset_days) > OFFSET_DAYS_MAX)) {
    errors.due_offset_days = [`An integer from -${OFFSET_DAYS_MAX} (before the due date) to ${OFFSET_DAYS_MAX} (after it)`];
  }
  if (input.attach !== undefined) {
    const unknown = input.attach.filter((k) => !(ATTACHMENT_KINDS as readonly string[]).includes(k));
    if (unknown.length) errors.attach = [`Unknown document ${unknown.join(', ')}; use ${ATTACHMENT_KINDS.join(', ')}`];
    else out.attach = attachmentKinds(input.attach);
  }
  if (Object.keys(errors).length) throw new ValidationError('The request body is invalid', errors);
  return out;
}

async function hasHistory(db: Db | CommandTx['db'], stepId: string): Promise<boolean> {
  const row = await db.selectFrom('scheduled_steps').select('id').where('step_id', '=', stepId).where('status', 'in', EXECUTED_STATUSES).limit(1).executeTakeFirst();
  return row !== undefined;
}

function columns(fields: StepInput): Partial<StepRow> {
  const out: Partial<StepRow> = {};
  for (const [key, value] of Object.entries(fields) as Array<[keyof StepFields, unknown]>) {
    if (value === undefined) continue;
    (out as Record<string, unknown>)[key] = key === 'is_active' || key === 'on_promise_missed' ? (value ? 1 : 0) : key === 'attach' ? JSON.stringify(value) : value;
  }
  return out;
}

export async function listSteps(db: Db, companyId: string, sequenceId: string): Promise<StepView[]> {
  const sequence = await sequenceRow(db, companyId, sequenceId);
  return stepViews(db, sequence.id);
}

/** The steps of a sequence (already checked to be the company's), in firing order, each with its history flag. */
export async function stepViews(db: Db, sequenceId: string): Promise<StepView[]> {
  const rows = await stepRows(db, sequenceId);
  const executed = await db.selectFrom('scheduled_steps').select('step_id').distinct().where('sequence_id', '=', sequenceId).where('status', 'in', EXECUTED_STATUSES).execute();
  const withHistory = new Set(executed.map((r) => r.step_id));
  return rows.map((r) => toStepView(r, withHistory.has(r.id)));
}

export async function getStep(db: Db, companyId: string, sequenceId: string, stepId: string): Promise<StepView> {
  const sequence = await sequenceRow(db, companyId, sequenceId);
  const row = await stepRow(db, companyId, sequence.id, stepId);
  return toStepView(row, await hasHistory(db, row.id));
}

export async function createStep(engine: Engine, scope: Scope, sequenceId: string, input: StepInput): Promise<StepView> {
  const ids = await runCommand(engine, 'create_sequence_step', scope, async (tx) => {
    const sequence = await sequenceRow(tx.db, scope.companyId, sequenceId);
    const fields = { ...STEP_DEFAULTS, ...Object.fromEntries(Object.entries(validated(input)).filter(([, v]) => v !== undefined)) } as StepFields;
    const last = await tx.db.selectFrom('sequence_steps').select((eb) => eb.fn.max('position').as('p')).where('sequence_id', '=', sequence.id).executeTakeFirst();
    const row = {
      id: newId(),
      company_id: scope.companyId,
      sequence_id: sequence.id,
      position: Number(last?.p ?? 0) + 1,
      ...(columns(fields) as Omit<StepRow, 'id' | 'company_id' | 'sequence_id' | 'position' | 'created_at' | 'updated_at'>),
      created_at: tx.now,
      updated_at: tx.now,
    };
    await tx.db.insertInto('sequence_steps').values(row).execute();
    await tx.record('sequence_step', row.id, 'insert', row);
    await touchSequence(tx, sequence.id);
    return { sequence: sequence.id, step: row.id };
  });
  return getStep(engine.db, scope.companyId, ids.sequence, ids.step);
}

export async function updateStep(engine: Engine, scope: Scope, sequenceId: string, stepId: string, input: StepInput): Promise<StepView> {
  const ids = await runCommand(engine, 'update_sequence_step', scope, async (tx) => {
    const sequence = await sequenceRow(tx.db, scope.companyId, sequenceId);
    const current = await stepRow(tx.db, scope.companyId, sequence.id, stepId);
    const patch = validated(input);
    assertStepEditable(await hasHistory(tx.db, current.id), fieldsOf(current), patch);
    const changes = columns(patch);
    if (Object.keys(changes).length) {
      await tx.db
        .updateTable('sequence_steps')
        .set({ ...changes, updated_at: tx.now })
        .where('id', '=', current.id)
        .execute();
      await tx.record('sequence_step', current.id, 'update', changes);
      await touchSequence(tx, sequence.id);
    }
    return { sequence: sequence.id, step: current.id };
  });
  return getStep(engine.db, scope.companyId, ids.sequence, ids.step);
}

/**
 * Removes a step that never ran, with its pending (scheduled or ready) and cancelled queue rows;
 * an enrollment left with nothing to run completes. A step with execution history is a 409.
 */
export async function deleteStep(engine: Engine, scope: Scope, sequenceId: string, stepId: string): Promise<void> {
  await runCommand(engine, 'delete_sequence_step', scope, async (tx) => {
    const sequence = await sequenceRow(tx.db, scope.companyId, sequenceId);
    const step = await stepRow(tx.db, scope.companyId, sequence.id, stepId);
    if (await hasHistory(tx.db, step.id)) throw new ConflictError('The step has execution history and cannot be deleted; deactivate it instead', 'step_has_history');
    const queued = await tx.db.selectFrom('scheduled_steps').select(['id', 'enrollment_id']).where('step_id', '=', step.id).execute();
    await tx.db.deleteFrom('scheduled_steps').where('step_id', '=', step.id).execute();
    for (const q of queued) await tx.record('scheduled_step', q.id, 'delete', {});
    await tx.db.deleteFrom('sequence_steps').where('id', '=', step.id).execute();
    await tx.record('sequence_step', step.id, 'delete', {});
    await touchSequence(tx, sequence.id);
    for (const enrollmentId of new Set(queued.map((q) => q.enrollment_id))) await completeIfFinished(tx, enrollmentId);
  });
}
