/**
 * Sequences: reusable outreach programs. List, create (optionally copying another's steps), read,
 * update, activate/archive, and the overview the editor opens with.
 */
import { type Selectable, sql } from 'kysely';
import type { Db } from '../db/connection';
import { pageWindow, readPage } from '../db/paging';
import type { SequencesTable, SequenceStatus, SequenceTiming } from '../db/schema';
import { type CommandTx, type Engine, runCommand, type Scope } from '../engine';
import { ConflictError, NotFoundError, ValidationError } from '../errors';
import { newId } from '../ids';
import { refreshHolds } from '../holds/store';
import { canonicalTimeZone } from '../zones';
import { DEFAULT_TIMEZONE, nextSequenceStatus, type SequenceAction } from './rules';
import { activeConnection, finishEnrollment, sequenceRow, stepRows } from './store';
import { stepViews, type StepView } from './steps';

export interface SequenceView {
  id: string;
  company: string;
  name: string;
  timezone: string;
  send_followups_in_thread: boolean;
  sender_connection_id: string | null;
  status: SequenceStatus;
  /** Which holds pause enrollments by themselves: an unanswered reply, a standing promise, an open dispute. */
  pause_on_reply: boolean;
  pause_on_promise: boolean;
  pause_on_dispute: boolean;
  /** When steps run: days after each enrollment's start, or per open invoice from its due date. */
  timing: SequenceTiming;
  step_count: number;
  active_enrollment_count: number;
  created_at: string;
  updated_at: string;
}

export interface SequenceList {
  count: number;
  page: number;
  page_size: number;
  data: SequenceView[];
}

export interface SequenceListFilter {
  statuses: SequenceStatus[] | null;
  search: string | null;
  page: number;
  pageSize: number;
}

type SequenceRow = Selectable<SequencesTable> & { step_count: number; active_enrollment_count: number };

function toView(row: SequenceRow): SequenceView {
  return {
    id: row.id,
    company: row.company_id,
    name: row.name,
    timezone: row.timezone,
    send_followups_in_thread: row.send_followups_in_thread === 1,
    sender_connection_id: row.sender_connection_id,
    status: row.status,
    pause_on_reply: row.pause_on_reply === 1,
    pause_on_promise: row.pause_on_promise === 1,
    pause_on_dispute: row.pause_on_dispute === 1,
    timing: row.timing,
    step_count: Number(row.step_count),
    active_enrollment_count: Number(row.active_enrollment_count),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function companySequences(db: Db, companyId: string) {
  return db.selectFrom('sequences as q').where('q.company_id', '=', companyId);
}

function withCounts(query: ReturnType<typeof companySequences>) {
  return query
    .selectAll('q')
    .select([
      sql<number>`(SELECT count(*) FROM sequence_steps st WHERE st.sequence_id = q.id)`.as('step_count'),
      sql<number>`(SELECT count(*) FROM sequence_enrollments e WHERE e.sequence_id = q.id AND e.status = 'active')`.as('active_enrollment_count'),
    ]);
}

export async function getSequence(db: Db, companyId: string, id: string): Promise<SequenceView> {
  const row = await withCounts(companySequences(db, companyId)).where('q.id', '=', id.toLowerCase()).executeTakeFirst();
  if (!row) throw new NotFoundError('Sequence', id);
  return toView(row);
}

/** Sequences by name (case-insensitive), then id; search is a case-insensitive partial match on the name. */
export async function listSequences(db: Db, companyId: string, f: SequenceListFilter): Promise<SequenceList> {
  let where = companySequences(db, companyId);
  if (f.statuses) where = where.where('q.status', 'in', f.statuses);
  if (f.search) where = where.where(sql<boolean>`instr(lower(q.name), lower(${f.search})) > 0`);
  const ordered = withCounts(where).orderBy(sql`q.name COLLATE NOCASE`).orderBy('q.id');
  const { count, rows } = await readPage(where, ordered, pageWindow(f.page, f.pageSize));
  return { count, page: f.page, page_size: f.pageSize, data: rows.map(toView) };
}

function validName(name: string): string {
  const trimmed = name.trim();
  if (!trimmed) throw new ValidationError('The request body is invalid', { name: ['Must not be blank'] });
  return trimmed;
}

function validTimeZone(value: string): string {
  const zone = canonicalTimeZone(value.trim());
  if (!zone) throw new ValidationError('The request body is invalid', { timezone: [`${value} is not an IANA time zone (e.g. America/New_York)`] });
  return zone;
}

async function assertNameFree(tx: CommandTx, companyId: string, name: string, exceptId: string | null): Promise<void> {
  let q = tx.db.selectFrom('sequences').select('id').where('company_id', '=', companyId).where(sql<boolean>`name = ${name} COLLATE NOCASE`);
  if (exceptId) q = q.where('id', '<>', exceptId);
  if (await q.executeTakeFirst()) throw new ConflictError(`A sequence named "${name}" already exists`, 'duplicate_name');
}

export interface CreateSequenceInput {
  name: string;
  timezone?: string;
  duplicate_from?: string;
  send_followups_in_thread?: boolean;
  sender_connection_id?: string | null;
  timing?: SequenceTiming;
}

export async function createSequence(engine: Engine, scope: Scope, input: CreateSequenceInput): Promise<SequenceView> {
  const id = await runCommand(engine, 'create_sequence', scope, async (tx) => {
    const name = validName(input.name);
    const timezone = validTimeZone(input.timezone ?? DEFAULT_TIMEZONE);
    let source: string | null = null;
    if (input.duplicate_from) {
      const found = await tx.db.selectFrom('sequences').select('id').where('company_id', '=', scope.companyId).where('id', '=', input.duplicate_from.toLowerCase()).executeTakeFirst();
      if (!found) throw new ValidationError('The request body is invalid', { duplicate_from: ['No sequence with this id in the company'] });
      source = found.id;
    }
    const sender = input.sender_connection_id ? (await activeConnection(tx.db, scope.companyId, input.sender_connection_id)).id : null;
    await assertNameFree(tx, scope.companyId, name, null);
    const row = {
      id: newId(),
      company_id: scope.companyId,
      name,
      timezone,
      send_followups_in_thread: input.send_followups_in_thread ? (1 as const) : (0 as const),
      sender_connection_id: sender,
      status: 'draft' as const,
      timing: input.timing ?? 'enrollment_start',
      created_at: tx.now,
      updated_at: tx.now,
    };
    await tx.db.insertInto('sequences').values(row).execute();
    await tx.record('sequence', row.id, 'insert', row);
    if (source) {
      for (const step of await stepRows(tx.db, source)) {
        const copy = { ...step, id: newId(), sequence_id: row.id, created_at: tx.now, updated_at: tx.now };
        await tx.db.insertInto('sequence_steps').values(copy).execute();
        await tx.record('sequence_step', copy.id, 'insert', copy);
      }
    }
    return row.id;
  });
  return getSequence(engine.db, scope.companyId, id);
}

export interface UpdateSequenceInput {
  name?: string;
  timezone?: string;
  /** null or "" clears the sender. */
  sender_connection_id?: string | null;
  send_followups_in_thread?: boolean;
  pause_on_reply?: boolean;
  pause_on_promise?: boolean;
  pause_on_dispute?: boolean;
  timing?: SequenceTiming;
}

const PAUSE_SETTINGS = ['pause_on_reply', 'pause_on_promise', 'pause_on_dispute'] as const;

export async function updateSequence(engine: Engine, scope: Scope, id: string, input: UpdateSequenceInput): Promise<SequenceView> {
  const seqId = await runCommand(engine, 'update_sequence', scope, async (tx) => {
    const current = await sequenceRow(tx.db, scope.companyId, id);
    const changes: Partial<Selectable<SequencesTable>> = {};
    if (input.name !== undefined) {
      const name = validName(input.name);
      if (name !== current.name) {
        await assertNameFree(tx, scope.companyId, name, current.id);
        changes.name = name;
      }
    }
    if (input.timezone !== undefined) changes.timezone = validTimeZone(input.timezone);
    if (input.sender_connection_id !== undefined) {
      changes.sender_connection_id = input.sender_connection_id ? (await activeConnection(tx.db, scope.companyId, input.sender_connection_id)).id : null;
    }
    if (input.send_followups_in_thread !== undefined) changes.send_followups_in_thread = input.send_followups_in_thread ? 1 : 0;
    for (const key of PAUSE_SETTINGS) if (input[key] !== undefined) changes[key] = input[key] ? 1 : 0;
    if (input.timing !== undefined && input.timing !== current.timing) {
      // Schedules already made follow the old timing: mixing both in one program would be unreadable.
      const enrolled = await tx.db.selectFrom('sequence_enrollments').select('id').where('sequence_id', '=', current.id).where('status', '=', 'active').limit(1).executeTakeFirst();
      if (enrolled) throw new ConflictError('The timing can change only while no customer is enrolled: stop the enrollments first', 'has_active_enrollments');
      changes.timing = input.timing;
    }
    if (Object.keys(changes).length) {
      await tx.db
        .updateTable('sequences')
        .set({ ...changes, updated_at: tx.now })
        .where('id', '=', current.id)
        .execute();
      await tx.record('sequence', current.id, 'update', changes);
      // A hold switched on or off pauses or resumes the enrollments now, not at the next queue read.
      if (PAUSE_SETTINGS.some((k) => k in changes)) await refreshHolds(tx, scope.companyId, await enrolledCustomers(tx, current.id));
    }
    return current.id;
  });
  return getSequence(engine.db, scope.companyId, seqId);
}

async function enrolledCustomers(tx: CommandTx, sequenceId: string): Promise<string[]> {
  const rows = await tx.db.selectFrom('sequence_enrollments').select('customer_id').distinct().where('sequence_id', '=', sequenceId).where('status', '=', 'active').execute();
  return rows.map((r) => r.customer_id);
}

/**
 * activate / archive. Archiving also ends the program for everyone in it: each active enrollment
 * is completed (stop_reason "sequence archived") and its not-yet-ready steps are cancelled.
 */
export async function changeSequenceStatus(engine: Engine, scope: Scope, id: string, action: SequenceAction): Promise<SequenceView> {
  const seqId = await runCommand(engine, `${action}_sequence`, scope, async (tx) => {
    const current = await sequenceRow(tx.db, scope.companyId, id);
    const status = nextSequenceStatus(current.status, action);
    await tx.db.updateTable('sequences').set({ status, updated_at: tx.now }).where('id', '=', current.id).execute();
    await tx.record('sequence', current.id, 'update', { status });
    if (status === 'archived') {
      const active = await tx.db.selectFrom('sequence_enrollments').select('id').where('sequence_id', '=', current.id).where('status', '=', 'active').execute();
      for (const e of active) await finishEnrollment(tx, e.id, 'sequence archived');
    }
    return current.id;
  });
  return getSequence(engine.db, scope.companyId, seqId);
}

export interface SenderOption {
  id: string;
  name: string;
  from_email: string;
  from_name: string | null;
  /** The user owning the mailbox; null for a shared company mailbox. */
  user_id: string | null;
  is_default: boolean;
  allow_shared_sending: boolean;
  is_sequence_sender: boolean;
}

export interface SequenceOverview {
  sequence: SequenceView;
  steps: StepView[];
  active_enrollment_count: number;
  email_connections: SenderOption[];
}

/**
 * The caller's choice of senders for this sequence: active connections that are the caller's own,
 * shared (allow_shared_sending), or the sequence's configured sender, as send queue step allows.
 */
async function senderOptions(db: Db, companyId: string, userId: string | null, sequenceSender: string | null): Promise<SenderOption[]> {
  const rows = await db
    .selectFrom('email_connections')
    .select(['id', 'name', 'from_email', 'from_name', 'user_id', 'is_default', 'allow_shared_sending'])
    .where('company_id', '=', companyId)
    .where('is_active', '=', 1)
    .where((eb) =>
      eb.or([eb('allow_shared_sending', '=', 1), ...(userId ? [eb('user_id', '=', userId)] : []), ...(sequenceSender ? [eb('id', '=', sequenceSender)] : [])]),
    )
    .orderBy('name')
    .orderBy('id')
    .execute();
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    from_email: r.from_email,
    from_name: r.from_name,
    user_id: r.user_id,
    is_default: r.is_default === 1,
    allow_shared_sending: r.allow_shared_sending === 1,
    is_sequence_sender: r.id === sequenceSender,
  }));
}

export async function sequenceOverview(db: Db, companyId: string, id: string, userId: string | null): Promise<SequenceOverview> {
  const sequence = await getSequence(db, companyId, id);
  return {
    sequence,
    steps: await stepViews(db, sequence.id),
    active_enrollment_count: sequence.active_enrollment_count,
    email_connections: await senderOptions(db, companyId, userId, sequence.sender_connection_id),
  };
}
