/**
 * The outreach queue: scheduled steps of every enrollment. Reading it first promotes the steps that
 * are due to ready, so catching up after days without a read is explicit and idempotent (a step
 * moves from scheduled to ready once, however late). Ready steps are sent (email) or completed.
 */
import { sql } from 'kysely';
import type { Db } from '../db/connection';
import { pageWindow, readPage } from '../db/paging';
import { loggedFieldErrors } from '../communications/rules';
import { insertCommunication } from '../communications/store';
import type { CallOutcome, PauseKind, ScheduledStepStatus, SequenceTiming, StepType } from '../db/schema';
import { type CommandTx, type Engine, runCommand, type Scope } from '../engine';
import { NotFoundError, ValidationError } from '../errors';
import { newId } from '../ids';
import { chunks } from '../chunks';
import { toMinor } from '../money';
import { companyName, loadCustomers, loadInvoices, primaryInvoice, templateContext } from './context';
import { DAY_WINDOW_MS, type EmailOut, heldForTheDay, sameLocalDay } from './daily-limit';
import { dueDateRowsToPromote, mergeReadyRows, quietHold, syncDueSchedules } from './due-store';
import { stopWords } from '../holds/holds';
import { refreshHolds } from '../holds/store';
import { assertNotPaused, assertReadyUnclaimed, CATEGORY_STATUSES, CAUGHT_UP, EMAIL_STEP_TYPE, isPastReady, LAST_TOUCH_QUIET_DAYS, type OwnerFilter, type QueueCategory, REPLIED, SKIPPED } from './rules';
import { localDate } from '../zones';
import { completeIfFinished } from './store';
import { renderTemplate, templateValues } from './templates';

const DAY_MS = 86_400_000;

/**
 * scheduled -> ready for every due step of the company whose enrollment is not paused (the holds
 * are refreshed first, in the same command). Last-touch awareness: a due email step is
 * held while the customer had a manual outbound email or call (one not sent by a sequence step), or
 * an executed email/call action, in the last LAST_TOUCH_QUIET_DAYS days; it becomes ready once that
 * quiet period has passed. Returns the number promoted.
 */
export async function promoteDueSteps(engine: Pick<Engine, 'db' | 'clock'>, scope: Scope): Promise<number> {
  return runCommand(engine, 'promote_due_steps', scope, async (tx) => {
    await refreshHolds(tx, scope.companyId, null);
    await syncDueSchedules(tx, scope.companyId);
    const quietSince = new Date(Date.parse(tx.now) - LAST_TOUCH_QUIET_DAYS * DAY_MS).toISOString();
    const due = await tx.db
      .selectFrom('scheduled_steps as s')
      .innerJoin('sequence_steps as st', 'st.id', 's.step_id')
      .innerJoin('sequence_enrollments as e', 'e.id', 's.enrollment_id')
      .innerJoin('sequences as q', 'q.id', 's.sequence_id')
      .select('s.id')
      .where('s.company_id', '=', scope.companyId)
      .where('s.status', '=', 'scheduled')
      .where('s.scheduled_at', '<=', tx.now)
      .where('e.paused_kind', 'is', null)
      .where('q.timing', '=', 'enrollment_start')
      .where((eb) => eb.not(quietHold(eb, quietSince)))
      .execute();
    const dueIds = [...due.map((r) => r.id), ...(await dueDateRowsToPromote(tx, scope.companyId, quietSince))];
    const held = await holdForTheDay(tx, scope.companyId, dueIds);
    const ids = dueIds.filter((id) => !held.has(id));
    for (const chunk of chunks(ids)) {
      await tx.db.updateTable('scheduled_steps').set({ status: 'ready', updated_at: tx.now }).where('id', 'in', chunk).where('status', '=', 'scheduled').execute();
    }
    for (const id of ids) await tx.record('scheduled_step', id, 'update', { status: 'ready' });
    await mergeReadyRows(tx, scope.companyId);
    return ids.length;
  });
}

/**
 * The daily limit (daily-limit.ts) inside promotion: of the rows about to become ready and the
 * ready email rows no send has claimed, those whose customer already got an email today. Due rows
 * stay scheduled; ready ones go back to scheduled (unmerged), so the ready category never offers
 * a second email of the day. Tomorrow they become ready again. Returns the held ids.
 */
async function holdForTheDay(tx: CommandTx, companyId: string, promoting: string[]): Promise<Set<string>> {
  const rowsOf = () =>
    tx.db
      .selectFrom('scheduled_steps as s')
      .innerJoin('sequence_steps as st', 'st.id', 's.step_id')
      .innerJoin('sequences as q', 'q.id', 's.sequence_id')
      .select(['s.id', 's.customer_id', 'st.step_type', 'q.timezone', 's.merged_into', 's.status'])
      .where('s.company_id', '=', companyId);
  const candidates = await rowsOf().where('s.status', '=', 'ready').where('s.send_started_at', 'is', null).where('st.step_type', '=', EMAIL_STEP_TYPE).execute();
  for (const chunk of chunks(promoting)) candidates.push(...(await rowsOf().where('s.id', 'in', chunk).execute()));
  const customers = [...new Set(candidates.filter((r) => r.step_type === EMAIL_STEP_TYPE).map((r) => r.customer_id))];
  const held = heldForTheDay(candidates, await emailsOfTheDay(tx, companyId, customers), tx.now);
  const demoted = candidates.filter((r) => r.status === 'ready' && held.has(r.id)).map((r) => r.id);
  for (const chunk of chunks(demoted)) {
    await tx.db.updateTable('scheduled_steps').set({ status: 'scheduled', merged_into: null, updated_at: tx.now }).where('id', 'in', chunk).execute();
  }
  for (const id of demoted) await tx.record('scheduled_step', id, 'update', { status: 'scheduled', merged_into: null });
  return held;
}

/**
 * "Emailed this customer lately": the emails of these customers that may fall on a sequence's
 * today (daily-limit.ts counts them per local day): every outbound email recorded, from any
 * channel, and every step's send claimed and still on the wire (but `exceptStepId`'s own).
 */
export async function emailsOfTheDay(tx: CommandTx, companyId: string, customerIds: string[], exceptStepId?: string): Promise<EmailOut[]> {
  const since = new Date(Date.parse(tx.now) - DAY_WINDOW_MS).toISOString();
  const out: EmailOut[] = [];
  for (const chunk of chunks(customerIds)) {
    out.push(
      ...(await tx.db
        .selectFrom('communications')
        .select(['customer_id', 'occurred_at as at'])
        .where('company_id', '=', companyId)
        .where('customer_id', 'in', chunk)
        .where('direction', '=', 'outbound')
        .where('kind', '=', 'email')
        .where('occurred_at', '>=', since)
        .execute()),
      ...(await tx.db
        .selectFrom('scheduled_steps')
        .select(['customer_id', 'send_started_at as at'])
        .where('company_id', '=', companyId)
        .where('customer_id', 'in', chunk)
        .where('status', '=', 'ready')
        .$if(exceptStepId !== undefined, (q) => q.where('id', '!=', exceptStepId as string))
        .where('send_started_at', '>=', since)
        .$narrowType<{ at: string }>()
        .execute()),
    );
  }
  return out;
}

export interface QueueRowView {
  id: string;
  sequence: string;
  sequence_name: string;
  step: string;
  step_label: string;
  step_type: StepType;
  enrollment: string;
  customer: string;
  customer_name: string;
  /** The customer's AR owner (team member id) and name. */
  ar_owner: string | null;
  ar_owner_name: string | null;
  invoice: string | null;
  invoice_number: string | null;
  scheduled_date: string;
  scheduled_at: string;
  status: ScheduledStepStatus;
  /** The subject sent; for an email step not sent yet, a preview rendered with today's data. */
  email_subject: string | null;
  sender_connection_id: string | null;
  message_id: string | null;
  sent_at: string | null;
  error: string | null;
  /** When the customer last replied by email (any of their replies); null if never. */
  replied_at: string | null;
  /**
   * Why the step is not going out: 'paused' (its enrollment is paused, see pause_reason),
   * 'recent_contact' (a due email step held while the customer was contacted by hand in the last
   * LAST_TOUCH_QUIET_DAYS days), 'emailed_today' (a due email step waiting for tomorrow: a sequence
   * already emailed the customer today, and one email a day goes out), 'replied' (cancelled because
   * the customer replied, before pauses existed), 'skipped' (the collector skipped it), 'caught_up'
   * (an earlier email of a back-dated enrollment: one catch-up email went in its place), 'stopped'
   * (a person stopped contact with the customer, paused or do not contact: see pause_reason); null otherwise.
   */
  hold_reason: 'paused' | 'recent_contact' | 'emailed_today' | 'replied' | 'skipped' | 'caught_up' | 'stopped' | null;
  /** What pauses the step's enrollment: a hold found by itself or the collector's pause; null when running. */
  pause_kind: PauseKind | null;
  /** The pause in words ("Paused: Tri-County promised payment by Nov 27"); a person's stop on the customer first, in the contact rule's words. */
  pause_reason: string | null;
  /** The collector's own subject and body, sent in place of the templates; null when not edited. */
  edited_subject: string | null;
  edited_body: string | null;
  edited_at: string | null;
  created_at: string;
  updated_at: string;
  /** The sequence's timing: steps from the enrollment start, or per invoice from its due date. */
  timing: SequenceTiming;
  /** The step's invoice's due date and the step's offset from it (due-date sequences; null otherwise). */
  due_date: string | null;
  due_offset_days: number | null;
  /** The row whose one email also covers this row's invoice (same customer and day); null when it leads or stands alone. */
  merged_into: string | null;
  /** The invoices this row's one email is about: its own and those merged into it, soonest due first. */
  covered_invoices: Array<{ id: string; invoice_number: string; due_date: string }>;
}

/**
 * The hold reason the queue shows (see QueueRowView.hold_reason). A due email step kept scheduled
 * waits for tomorrow when a sequence step emailed the customer on the sequence's day
 * (`last_step_email_at`, sent or on the wire); otherwise a manual contact holds it.
 */
export function holdReason(
  r: {
    step_type: StepType;
    status: ScheduledStepStatus;
    scheduled_at: string;
    stop_reason: string | null;
    paused_kind: PauseKind | null;
    cancel_reason: string | null;
    last_step_email_at?: string | null;
    timezone?: string;
  },
  now: string,
): QueueRowView['hold_reason'] {
  if (r.status === 'cancelled' && r.cancel_reason === SKIPPED) return 'skipped';
  if (r.status === 'cancelled' && r.cancel_reason === CAUGHT_UP) return 'caught_up';
  if (r.status === 'cancelled' && r.stop_reason === REPLIED) return 'replied';
  if ((r.status === 'scheduled' || r.status === 'ready') && r.paused_kind !== null) return 'paused';
  if (r.status === 'scheduled' && r.step_type === EMAIL_STEP_TYPE && r.scheduled_at <= now) {
    return r.last_step_email_at && r.timezone && sameLocalDay(r.last_step_email_at, now, r.timezone) ? 'emailed_today' : 'recent_contact';
  }
  return null;
}

export interface QueueFilter {
  category: QueueCategory;
  stepTypes: StepType[] | null;
  sequenceId: string | null;
  enrollmentId: string | null;
  customerId: string | null;
  arOwner: OwnerFilter | null;
  search: string | null;
  page: number;
  pageSize: number;
}

export interface QueuePage {
  count: number;
  page: number;
  page_size: number;
  data: QueueRowView[];
}

function base(db: Db, companyId: string) {
  return db
    .selectFrom('scheduled_steps as s')
    .innerJoin('sequence_steps as st', 'st.id', 's.step_id')
    .innerJoin('sequences as q', 'q.id', 's.sequence_id')
    .innerJoin('customers as c', 'c.id', 's.customer_id')
    .innerJoin('sequence_enrollments as e', 'e.id', 's.enrollment_id')
    .leftJoin('invoices as i', 'i.id', 's.invoice_id')
    .leftJoin('team_members as tm', 'tm.id', 'c.ar_owner_id')
    .leftJoin('email_connections as ec', 'ec.id', 'q.sender_connection_id')
    .where('s.company_id', '=', companyId);
}

function withColumns(q: ReturnType<typeof base>) {
  return q.select([
    's.id',
    's.sequence_id',
    'q.name as sequence_name',
    'q.timezone',
    'ec.from_name as sequence_sender_name',
    's.step_id',
    'st.label as step_label',
    'st.step_type',
    'st.subject_template',
    's.enrollment_id',
    's.customer_id',
    'c.name as customer_name',
    'c.ar_owner_id',
    'tm.name as ar_owner_name',
    's.invoice_id',
    'i.invoice_number',
    's.scheduled_date',
    's.scheduled_at',
    's.status',
    's.email_subject',
    's.sender_connection_id',
    's.message_id',
    's.sent_at',
    's.error',
    's.created_at',
    's.updated_at',
    'e.stop_reason',
    'e.paused_kind',
    'e.paused_reason',
    'c.contact_stop',
    'c.contact_stop_reason',
    'c.contact_stop_by',
    'c.contact_stop_at',
    's.edited_subject',
    's.edited_body',
    's.edited_at',
    's.cancel_reason',
    'q.timing',
    'i.due_date',
    'st.due_offset_days',
    's.merged_into',
    sql<string | null>`(SELECT max(coalesce(x.sent_at, x.send_started_at)) FROM scheduled_steps x
      WHERE x.company_id = s.company_id AND x.customer_id = s.customer_id AND x.status IN ('sent', 'ready') AND coalesce(x.sent_at, x.send_started_at) IS NOT NULL)`.as('last_step_email_at'),
    sql<string | null>`(SELECT max(m.occurred_at) FROM communications m
      WHERE m.company_id = s.company_id AND m.customer_id = s.customer_id AND m.direction = 'inbound' AND m.kind = 'email')`.as('replied_at'),
  ]);
}

type Row = Awaited<ReturnType<ReturnType<typeof withColumns>['executeTakeFirstOrThrow']>>;

/** Shapes rows, rendering subject previews for email steps that have not been sent. */
async function toViews(db: Db, companyId: string, rows: Row[], now: Date): Promise<QueueRowView[]> {
  const previews = rows.filter((r) => r.step_type === EMAIL_STEP_TYPE && (r.status === 'scheduled' || r.status === 'ready') && r.email_subject === null && r.edited_subject === null);
  const customers = await loadCustomers(
    db,
    companyId,
    previews.map((r) => r.customer_id),
  );
  const invoices = await loadInvoices(
    db,
    companyId,
    previews.flatMap((r) => (r.invoice_id ? [r.invoice_id] : [])),
  );
  const company = previews.length ? await companyName(db, companyId) : '';
  const nowIso = now.toISOString();
  const leaders = rows.filter((r) => r.timing === 'due_date' && r.merged_into === null).map((r) => r.id);
  const merged = leaders.length
    ? await db
        .selectFrom('scheduled_steps as s')
        .innerJoin('invoices as i', 'i.id', 's.invoice_id')
        .select(['s.merged_into', 'i.id', 'i.invoice_number', 'i.due_date'])
        .where('s.company_id', '=', companyId)
        .where('s.merged_into', 'in', leaders)
        .execute()
    : [];
  const covered = (r: Row) =>
    [...(r.invoice_id && r.invoice_number && r.due_date ? [{ id: r.invoice_id, invoice_number: r.invoice_number, due_date: r.due_date }] : []), ...merged.filter((m) => m.merged_into === r.id).map(({ id, invoice_number, due_date }) => ({ id, invoice_number, due_date }))].sort(
      (a, b) => a.due_date.localeCompare(b.due_date) || a.invoice_number.localeCompare(b.invoice_number),
    );
  return rows.map((r) => {
    const pending = r.status === 'scheduled' || r.status === 'ready';
    // A person's stop holds every channel: the step waits, in the rule's words, whatever its enrollment says.
    const stopped = pending && r.contact_stop !== null ? stopWords(r, localDate(now, r.timezone)) : null;
    let subject = r.email_subject ?? r.edited_subject;
    const customer = customers.get(r.customer_id);
    if (subject === null && customer && previews.includes(r)) {
      const ctx = templateContext(customer, primaryInvoice(customer, r.invoice_id ? invoices.get(r.invoice_id) : null), company, r.sequence_sender_name, localDate(now, r.timezone));
      subject = renderTemplate(r.subject_template, templateValues(ctx));
    }
    return {
      id: r.id,
      sequence: r.sequence_id,
      sequence_name: r.sequence_name,
      step: r.step_id,
      step_label: r.step_label,
      step_type: r.step_type,
      enrollment: r.enrollment_id,
      customer: r.customer_id,
      customer_name: r.customer_name,
      ar_owner: r.ar_owner_id,
      ar_owner_name: r.ar_owner_name,
      invoice: r.invoice_id,
      invoice_number: r.invoice_number,
      scheduled_date: r.scheduled_date,
      scheduled_at: r.scheduled_at,
      status: r.status,
      email_subject: subject,
      sender_connection_id: r.sender_connection_id,
      message_id: r.message_id,
      sent_at: r.sent_at,
      error: r.error,
      replied_at: r.replied_at,
      hold_reason: stopped ? 'stopped' : holdReason(r, nowIso),
      pause_kind: pending ? r.paused_kind : null,
      pause_reason: stopped ?? (pending ? r.paused_reason : null),
      edited_subject: r.edited_subject,
      edited_body: r.edited_body,
      edited_at: r.edited_at,
      created_at: r.created_at,
      updated_at: r.updated_at,
      timing: r.timing,
      due_date: r.timing === 'due_date' ? r.due_date : null,
      due_offset_days: r.timing === 'due_date' ? r.due_offset_days : null,
      merged_into: r.merged_into,
      covered_invoices: covered(r),
    };
  });
}

export async function getQueueRow(engine: Pick<Engine, 'db' | 'clock'>, companyId: string, id: string): Promise<QueueRowView> {
  const row = await withColumns(base(engine.db, companyId)).where('s.id', '=', id.toLowerCase()).executeTakeFirst();
  if (!row) throw new NotFoundError('Scheduled step', id);
  return (await toViews(engine.db, companyId, [row], engine.clock.now()))[0];
}

/** Every scheduled step of one enrollment, whatever its state, in firing order. */
export async function enrollmentSteps(engine: Pick<Engine, 'db' | 'clock'>, companyId: string, enrollmentId: string): Promise<QueueRowView[]> {
  const rows = await withColumns(base(engine.db, companyId)).where('s.enrollment_id', '=', enrollmentId).orderBy('s.scheduled_at').orderBy('s.id').execute();
  return toViews(engine.db, companyId, rows, engine.clock.now());
}

function filtered(db: Db, companyId: string, f: QueueFilter) {
  // A row merged into another is sent in that row's email: the queue lists the email once.
  let q = base(db, companyId).where('s.status', 'in', CATEGORY_STATUSES[f.category]).where('s.merged_into', 'is', null);
  // A paused enrollment's steps, and those of a customer a person stopped, are listed under paused only: ready never offers one to send.
  if (f.category === 'paused') q = q.where((eb) => eb.or([eb('e.paused_kind', 'is not', null), eb('c.contact_stop', 'is not', null)]));
  else if (f.category !== 'history') q = q.where('e.paused_kind', 'is', null).where('c.contact_stop', 'is', null);
  if (f.stepTypes) q = q.where('st.step_type', 'in', f.stepTypes);
  if (f.sequenceId) q = q.where('s.sequence_id', '=', f.sequenceId.toLowerCase());
  if (f.enrollmentId) q = q.where('s.enrollment_id', '=', f.enrollmentId.toLowerCase());
  if (f.customerId) q = q.where('s.customer_id', '=', f.customerId.toLowerCase());
  const owners = f.arOwner;
  if (owners) {
    q = q.where((eb) => eb.or([...(owners.ids.length ? [eb('c.ar_owner_id', 'in', owners.ids)] : []), ...(owners.unassigned ? [eb('c.ar_owner_id', 'is', null)] : [])]));
  }
  if (f.search) {
    const text = f.search;
    q = q.where(
      sql<boolean>`(instr(lower(q.name), lower(${text})) > 0 OR instr(lower(st.label), lower(${text})) > 0
        OR instr(lower(c.name), lower(${text})) > 0 OR instr(lower(coalesce(s.email_subject, st.subject_template)), lower(${text})) > 0)`,
    );
  }
  return q;
}

/**
 * One page of the queue after promoting due steps. ready and upcoming run soonest first; history
 * runs latest first (by when the step was sent or last changed). The id breaks ties.
 */
export async function listQueue(engine: Engine, scope: Scope, f: QueueFilter): Promise<QueuePage> {
  await promoteDueSteps(engine, scope);
  const matching = filtered(engine.db, scope.companyId, f);
  const rows = withColumns(matching);
  const ordered =
    f.category === 'history'
      ? rows.orderBy(sql`coalesce(s.sent_at, s.updated_at)`, 'desc').orderBy('s.id', 'desc')
      : rows.orderBy('s.scheduled_at').orderBy('s.id');
  const { count, rows: data } = await readPage(matching, ordered, pageWindow(f.page, f.pageSize));
  return { count, page: f.page, page_size: f.pageSize, data: await toViews(engine.db, scope.companyId, data, engine.clock.now()) };
}

export interface CompleteStepInput {
  /** Call steps only. */
  outcome?: CallOutcome | null;
  note?: string | null;
  /** Call steps with outcome promised_to_pay only. */
  promise_date?: string | null;
  /** Major units. */
  promise_amount?: number | null;
}

/** A call's outcome and promise belong to call steps, and follow the rules of a logged call. */
function completionErrors(stepType: StepType, input: CompleteStepInput, note: string | null, now: string) {
  const promise = { promise_date: input.promise_date ?? null, promise_amount: input.promise_amount == null ? null : toMinor(input.promise_amount) };
  if (stepType === 'call') return loggedFieldErrors({ kind: 'call', outcome: input.outcome ?? null, body: note, ...promise, occurred_at: now }, now);
  const errors: Record<string, string[]> = {};
  for (const field of ['outcome', 'promise_date', 'promise_amount'] as const) {
    if (input[field] != null) errors[field] = ['Only a call step has an outcome or a promise'];
  }
  return errors;
}

/**
 * Marks a ready step done (extension): the way call and task steps leave the queue. A call records
 * an outbound call with its outcome and promise, a task an internal note (with the note given); an
 * email step completed here was handled outside ardesk and records nothing. Past ready: returned as
 * it is.
 */
export async function completeQueueStep(engine: Engine, scope: Scope, id: string, input: CompleteStepInput): Promise<QueueRowView> {
  const note = input.note?.trim() || null;
  await promoteDueSteps(engine, scope);
  const stepId = await runCommand(engine, 'complete_scheduled_step', scope, async (tx) => {
    const row = await tx.db
      .selectFrom('scheduled_steps as s')
      .innerJoin('sequence_steps as st', 'st.id', 's.step_id')
      .innerJoin('sequence_enrollments as e', 'e.id', 's.enrollment_id')
      .select(['s.id', 's.status', 's.enrollment_id', 's.customer_id', 's.invoice_id', 's.send_started_at', 'st.step_type', 'st.label', 'e.paused_reason'])
      .where('s.company_id', '=', scope.companyId)
      .where('s.id', '=', id.toLowerCase())
      .executeTakeFirst();
    if (!row) throw new NotFoundError('Scheduled step', id);
    if (isPastReady(row.status)) return row.id;
    const errors = completionErrors(row.step_type, input, note, tx.now);
    if (Object.keys(errors).length) throw new ValidationError('The completion is invalid', errors);
    assertReadyUnclaimed(row.status, row.send_started_at, tx.now);
    assertNotPaused(row.paused_reason);
    let communicationId: string | null = null;
    if (row.step_type !== EMAIL_STEP_TYPE) {
      // A call is about the step's invoice, else the customer's oldest open one (its last touch);
      // a task is internal work and touches no invoice of its own accord.
      const customer = row.step_type === 'call' && !row.invoice_id ? (await loadCustomers(tx.db, scope.companyId, [row.customer_id])).get(row.customer_id) : undefined;
      communicationId = await insertCommunication(tx, {
        id: newId(),
        company_id: scope.companyId,
        customer_id: row.customer_id,
        invoice_id: row.invoice_id ?? (customer ? (primaryInvoice(customer, null)?.id ?? null) : null),
        kind: row.step_type === 'call' ? ('call' as const) : ('note' as const),
        direction: row.step_type === 'call' ? ('outbound' as const) : ('internal' as const),
        subject: row.label,
        body: note,
        occurred_at: tx.now,
        author_user_id: tx.actor.userId,
        author_name: tx.actor.name,
        email_connection_id: null,
        message_id: null,
        created_at: tx.now,
        outcome: row.step_type === 'call' ? (input.outcome ?? null) : null,
        promise_date: input.promise_date ?? null,
        promise_amount: input.promise_amount == null ? null : toMinor(input.promise_amount),
      });
    }
    await tx.db.updateTable('scheduled_steps').set({ status: 'completed', communication_id: communicationId, updated_at: tx.now }).where('id', '=', row.id).execute();
    await tx.record('scheduled_step', row.id, 'update', { status: 'completed', communication_id: communicationId });
    await completeIfFinished(tx, row.enrollment_id);
    return row.id;
  });
  return getQueueRow(engine, scope.companyId, stepId);
}
