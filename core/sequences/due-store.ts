/**
 * Due-date sequences in the database: scheduling an invoice's rows, letting invoices join (open,
 * not yet scheduled) and leave (closed), promoting a customer's day together and merging a day's
 * ready rows. Everything runs inside the caller's command (promote_due_steps, enrolment), so a
 * crash leaves either all of it or none.
 */
import { type ExpressionBuilder, sql } from 'kysely';
import type { Database } from '../db/schema';
import type { CommandTx } from '../engine';
import { insertScheduledStep } from '../holds/store';
import { dueRowIds, INVOICE_CLOSED, invoiceOpen, invoiceSchedule, leavingRowIds, mergeAssignments } from './due-dates';
import { localDate } from '../zones';
import { EMAIL_STEP_TYPE } from './rules';
import { chunks } from '../chunks';

interface SequenceRef {
  id: string;
  company_id: string;
  timezone: string;
}

interface StepRef {
  id: string;
  is_active: number;
  on_promise_missed: number;
  due_offset_days: number;
  offset_time: string;
}

/** Inserts the rows of each invoice's schedule for one enrollment. */
export async function scheduleInvoiceRows(
  tx: CommandTx,
  sequence: SequenceRef,
  enrollmentId: string,
  customerId: string,
  invoices: Array<{ id: string; due_date: string }>,
  steps: StepRef[],
  joinDate: string,
): Promise<number> {
  // A "promise missed" step waits for a broken promise (holds-store.ts schedules it then).
  const runnable = steps.filter((s) => s.is_active === 1 && s.on_promise_missed !== 1);
  let inserted = 0;
  for (const invoice of invoices) {
    for (const planned of invoiceSchedule(invoice.due_date, runnable, sequence.timezone, joinDate)) {
      await insertScheduledStep(tx, {
        company_id: sequence.company_id,
        enrollment_id: enrollmentId,
        sequence_id: sequence.id,
        step_id: planned.step_id,
        customer_id: customerId,
        invoice_id: invoice.id,
        scheduled_date: planned.scheduled_date,
        scheduled_at: planned.scheduled_at,
      });
      inserted += 1;
    }
  }
  return inserted;
}

/** The open invoices of a customer, soonest due first. */
export async function openInvoices(tx: CommandTx, companyId: string, customerId: string) {
  return tx.db
    .selectFrom('invoices')
    .select(['id', 'due_date'])
    .where('company_id', '=', companyId)
    .where('customer_id', '=', customerId)
    .where('closing_reason', 'is', null)
    .where('balance', '>', 0)
    .orderBy('due_date')
    .orderBy('id')
    .execute();
}

/**
 * Invoices leave and join the schedules of the company's active due-date enrollments: rows of a
 * closed invoice that have not run are cancelled (invoice_closed); an open invoice of an enrolled
 * customer without rows in the enrollment (new, imported, or refreshed from the ledger since) gets
 * its schedule from today.
 */
export async function syncDueSchedules(tx: CommandTx, companyId: string): Promise<{ left: number; joined: number }> {
  const pending = await tx.db
    .selectFrom('scheduled_steps as s')
    .innerJoin('sequences as q', 'q.id', 's.sequence_id')
    .innerJoin('invoices as i', 'i.id', 's.invoice_id')
    .select(['s.id', 's.send_started_at', 'i.closing_reason', 'i.balance'])
    .where('s.company_id', '=', companyId)
    .where('q.timing', '=', 'due_date')
    .where('s.status', 'in', ['scheduled', 'ready'])
    .where((eb) => eb.or([eb('i.closing_reason', 'is not', null), eb('i.balance', '<=', 0)]))
    .execute();
  const leaving = leavingRowIds(pending.map((r) => ({ id: r.id, invoice_open: invoiceOpen(r), claimed: r.send_started_at !== null })));
  for (const chunk of chunks(leaving)) {
    await tx.db.updateTable('scheduled_steps').set({ status: 'cancelled', cancel_reason: INVOICE_CLOSED, merged_into: null, updated_at: tx.now }).where('id', 'in', chunk).execute();
  }
  for (const id of leaving) await tx.record('scheduled_step', id, 'update', { status: 'cancelled', cancel_reason: INVOICE_CLOSED, merged_into: null });

  const joining = await tx.db
    .selectFrom('sequence_enrollments as e')
    .innerJoin('sequences as q', 'q.id', 'e.sequence_id')
    .innerJoin('invoices as i', (j) => j.onRef('i.customer_id', '=', 'e.customer_id').onRef('i.company_id', '=', 'e.company_id'))
    .select(['e.id as enrollment_id', 'e.customer_id', 'q.id as sequence_id', 'q.timezone', 'i.id as invoice_id', 'i.due_date'])
    .where('e.company_id', '=', companyId)
    .where('e.status', '=', 'active')
    .where('q.timing', '=', 'due_date')
    .where('i.closing_reason', 'is', null)
    // The unary + keeps SQLite on the enrolled customers' invoices: by the balance index it read
    // every open invoice of the company (3 s at 1M invoices).
    .where(sql`+i.balance`, '>', 0)
    .where((eb) => eb.not(eb.exists(eb.selectFrom('scheduled_steps as x').select('x.id').whereRef('x.enrollment_id', '=', 'e.id').whereRef('x.invoice_id', '=', 'i.id'))))
    .orderBy('e.id')
    .orderBy('i.due_date')
    .execute();
  let joined = 0;
  const stepsOf = new Map<string, StepRef[]>();
  for (const j of joining) {
    let steps = stepsOf.get(j.sequence_id);
    if (!steps) {
      steps = await tx.db.selectFrom('sequence_steps').select(['id', 'is_active', 'on_promise_missed', 'due_offset_days', 'offset_time']).where('sequence_id', '=', j.sequence_id).execute();
      stepsOf.set(j.sequence_id, steps);
    }
    const today = localDate(new Date(tx.now), j.timezone);
    joined += await scheduleInvoiceRows(tx, { id: j.sequence_id, company_id: companyId, timezone: j.timezone }, j.enrollment_id, j.customer_id, [{ id: j.invoice_id, due_date: j.due_date }], steps, today);
  }
  return { left: leaving.length, joined };
}

type StepRows = ExpressionBuilder<Database & { s: Database['scheduled_steps']; st: Database['sequence_steps'] }, 's' | 'st'>;

/**
 * Last-touch awareness, on the scheduled step `s` of step `st`: an email step waits while its
 * customer had, since `quietSince`, a manual outbound email or call (one no sequence step sent) or
 * an executed email or call action.
 */
export function quietHold(eb: StepRows, quietSince: string) {
  const touched = eb
    .selectFrom('communications as m')
    .select('m.id')
    .whereRef('m.company_id', '=', 's.company_id')
    .whereRef('m.customer_id', '=', 's.customer_id')
    .where('m.direction', '=', 'outbound')
    .where('m.kind', 'in', ['email', 'call'])
    .where('m.occurred_at', '>', quietSince)
    .where((m) => m.not(m.exists(m.selectFrom('scheduled_steps as x').select('x.id').whereRef('x.communication_id', '=', 'm.id'))));
  const acted = eb
    .selectFrom('actions as a')
    .select('a.id')
    .where((a) =>
      a.and([
        a('a.company_id', '=', a.ref('s.company_id')),
        a('a.customer_id', '=', a.ref('s.customer_id')),
        a('a.status', '=', 'completed'),
        a('a.action_type', 'in', ['email', 'call']),
        a('a.deleted_at', 'is', null),
        a('a.executed_at', '>', quietSince),
      ]),
    );
  return eb.and([eb('st.step_type', '=', EMAIL_STEP_TYPE), eb.or([eb.exists(touched), eb.exists(acted)])]);
}

/**
 * The scheduled rows of due-date enrollments (not paused) that become ready now: a customer's day
 * moves together (dueRowIds). The last-touch hold (quietHold) is the enrollment-start promotion's.
 */
export async function dueDateRowsToPromote(tx: CommandTx, companyId: string, quietSince: string): Promise<string[]> {
  const rows = await tx.db
    .selectFrom('scheduled_steps as s')
    .innerJoin('sequence_steps as st', 'st.id', 's.step_id')
    .innerJoin('sequence_enrollments as e', 'e.id', 's.enrollment_id')
    .innerJoin('sequences as q', 'q.id', 's.sequence_id')
    .select((eb) => ['s.id', 's.enrollment_id', 's.scheduled_date', 's.scheduled_at', 'st.step_type', quietHold(eb, quietSince).as('held')])
    .where('s.company_id', '=', companyId)
    .where('s.status', '=', 'scheduled')
    .where('q.timing', '=', 'due_date')
    .where('e.paused_kind', 'is', null)
    // Local days run at most 14 hours ahead of UTC: nothing later than tomorrow (UTC) can be due today.
    .where('s.scheduled_date', '<=', addUtcDay(tx.now))
    .execute();
  return dueRowIds(
    rows.map((r) => ({ ...r, held: Boolean(r.held) })),
    tx.now,
  );
}

function addUtcDay(now: string): string {
  return new Date(Date.parse(now) + 86_400_000).toISOString().slice(0, 10);
}

/** Re-merges the ready rows of due-date enrollments (mergeAssignments) and writes the changes. */
export async function mergeReadyRows(tx: CommandTx, companyId: string): Promise<void> {
  const rows = await tx.db
    .selectFrom('scheduled_steps as s')
    .innerJoin('sequence_steps as st', 'st.id', 's.step_id')
    .innerJoin('sequences as q', 'q.id', 's.sequence_id')
    .select(['s.id', 's.enrollment_id', 's.scheduled_date', 'st.step_type', 'st.due_offset_days', 's.merged_into', 's.send_started_at', 's.edited_at'])
    .where('s.company_id', '=', companyId)
    .where('s.status', '=', 'ready')
    .where('q.timing', '=', 'due_date')
    .execute();
  const assigned = mergeAssignments(
    rows.map((r) => ({
      id: r.id,
      enrollment_id: r.enrollment_id,
      scheduled_date: r.scheduled_date,
      step_type: r.step_type,
      due_offset_days: r.due_offset_days,
      merged_into: r.merged_into,
      // Any claim, even a stale one: its retry sends the email already written, with the same Message-ID.
      claimed: r.send_started_at !== null,
      edited: r.edited_at !== null,
    })),
  );
  for (const r of rows) {
    const next = assigned.get(r.id) ?? null;
    if (next === r.merged_into) continue;
    await tx.db.updateTable('scheduled_steps').set({ merged_into: next, updated_at: tx.now }).where('id', '=', r.id).execute();
    await tx.record('scheduled_step', r.id, 'update', { merged_into: next });
  }
}
