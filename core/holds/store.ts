/**
 * The facts the hold rules (holds.ts) read, gathered for many customers in a few queries, and the
 * refresh that pauses and resumes enrollments by them inside one command. A promise is read from a
 * call, note or reply logged with a promise date, an action's commitment date, a label the company
 * marked as meaning a promise (a dispute label likewise marks a dispute), a reply's reading a
 * person corrected to a promise, and the automatic reading of the customer's latest reply (kept
 * with it; a reply recorded before readings were kept is read through the reader the composition
 * root installs, as core/replies/reading.ts lives above this layer).
 */
import { sql } from 'kysely';
import { chunks } from '../chunks';
import { COMMITMENT_DATE } from '../db/migrations/0099_promise_dates';
import type { Db } from '../db/connection';
import type { LabelMeaning } from '../db/schema';
import type { CommandTx } from '../engine';
import { newId } from '../ids';
import { type ChaseFacts, type Hold, type HoldSettings, pauseFor, promiseMissed } from './holds';
import { localDate, zonedToUtc } from '../zones';

type Reader = Db | CommandTx['db'];

/** Reads a promised payment date out of a customer's reply (its subject and body), written at `saidAt`; null when none. */
export type PromiseReader = (subject: string | null, body: string | null, saidAt: string) => string | null;

let readPromise: PromiseReader = () => null;

/** Installed once by the composition root with the engine's reading of promises. */
export function setPromiseReader(reader: PromiseReader): void {
  readPromise = reader;
}

/** The chase facts of each customer named (ids already the company's). */
export async function chaseFacts(db: Reader, companyId: string, customerIds: string[]): Promise<Map<string, ChaseFacts>> {
  const out = new Map<string, ChaseFacts>();
  const graceDays = (await db.selectFrom('companies').select('promise_grace_days').where('id', '=', companyId).executeTakeFirst())?.promise_grace_days ?? 0;
  for (const ids of chunks([...new Set(customerIds)])) {
    const customers = await db.selectFrom('customers').select(['id', 'name']).where('company_id', '=', companyId).where('id', 'in', ids).execute();
    for (const c of customers) out.set(c.id, { customerName: c.name, openInvoices: [], lastReplyAt: null, lastAnswerAt: null, replyHandledAt: null, resumedAt: null, promises: [], disputes: [], graceDays });
    const open = await db
      .selectFrom('invoices')
      .select(['id', 'customer_id', 'invoice_number'])
      .where('company_id', '=', companyId)
      .where('customer_id', 'in', ids)
      .where('closing_reason', 'is', null)
      // The unary + keeps SQLite on the customers' invoices: by the balance or due-date indexes it
      // read every open invoice of the company (2 s at 1M invoices).
      .where(sql`+balance`, '>', 0)
      .orderBy(sql`+due_date`)
      .orderBy('invoice_number')
      .execute();
    for (const i of open) out.get(i.customer_id)?.openInvoices.push({ id: i.id, invoice_number: i.invoice_number });

    const touches = await db
      .selectFrom('communications')
      .select(['customer_id', 'direction', (eb) => eb.fn.max('occurred_at').as('at')])
      .where('company_id', '=', companyId)
      .where('customer_id', 'in', ids)
      // A call either way that got through (any outcome but no answer or a wrong number) answers their reply as an email of ours does.
      .where((eb) => eb.or([eb.and([eb('kind', '=', 'call'), eb.or([eb('outcome', 'is', null), eb('outcome', 'not in', ['no_answer', 'wrong_number'])])]), eb.and([eb('direction', '=', 'inbound'), eb('kind', '=', 'email')]), eb.and([eb('direction', '=', 'outbound'), eb('kind', '=', 'email')])]))
      .groupBy(['customer_id', 'direction', 'kind'])
      .select('kind')
      .execute();
    for (const t of touches) {
      const f = out.get(t.customer_id);
      if (!f) continue;
      if (t.direction === 'inbound' && t.kind === 'email') f.lastReplyAt = t.at;
      else if (f.lastAnswerAt === null || t.at > f.lastAnswerAt) f.lastAnswerAt = t.at;
    }

    // A collector's Resume marks the customer's replies handled: their reminders stop waiting on them too.
    const handled = await db
      .selectFrom('sequence_enrollments')
      .select(['customer_id', (eb) => eb.fn.max('reply_handled_at').as('at')])
      .where('company_id', '=', companyId)
      .where('customer_id', 'in', ids)
      .where('reply_handled_at', 'is not', null)
      .groupBy('customer_id')
      .execute();
    for (const h of handled) {
      const f = out.get(h.customer_id);
      if (f) {
        f.replyHandledAt = h.at;
        f.resumedAt = h.at;
      }
    }

    const logged = await db
      .selectFrom('communications')
      .select(['customer_id', 'invoice_id', 'promise_date'])
      .where('company_id', '=', companyId)
      .where('customer_id', 'in', ids)
      .where('promise_date', 'is not', null)
      .execute();
    for (const p of logged) out.get(p.customer_id)?.promises.push({ date: p.promise_date, invoiceId: p.invoice_id });

    const commitment = sql<string | null>`${sql.raw(COMMITMENT_DATE)}`;
    const actions = await db
      .selectFrom('actions')
      .select(['customer_id', 'invoice_id', commitment.as('promised')])
      .where('company_id', '=', companyId)
      .where('customer_id', 'in', ids)
      .where('deleted_at', 'is', null)
      .where('status', '!=', 'cancelled')
      .where(commitment, 'is not', null)
      .$narrowType<{ promised: string }>()
      .execute();
    for (const a of actions) out.get(a.customer_id)?.promises.push({ date: a.promised, invoiceId: a.invoice_id });

    // A reply's reading a person corrected to a promise stands like a logged promise.
    const corrected = await db
      .selectFrom('communications')
      .select(['customer_id', 'invoice_id', 'reading_date'])
      .where('company_id', '=', companyId)
      .where('customer_id', 'in', ids)
      .where('reading_corrected_at', 'is not', null)
      .where('reading_kind', '=', 'promise')
      .where('reading_date', 'is not', null)
      .execute();
    for (const p of corrected) out.get(p.customer_id)?.promises.push({ date: p.reading_date, invoiceId: p.invoice_id, readAt: null });

    // The latest reply of each customer, as read automatically (kept with it, else read now: replies recorded before 0350).
    const replies = await db
      .selectFrom('communications as m')
      .select(['m.customer_id', 'm.invoice_id', 'm.subject', 'm.body', 'm.occurred_at', 'm.reading_kind', 'm.reading_date', 'm.reading_corrected_at'])
      .where('m.company_id', '=', companyId)
      .where('m.customer_id', 'in', ids)
      .where('m.direction', '=', 'inbound')
      .where('m.kind', '=', 'email')
      .where('m.occurred_at', '=', (eb) =>
        eb
          .selectFrom('communications as x')
          .select((x) => x.fn.max('x.occurred_at').as('latest'))
          .whereRef('x.company_id', '=', 'm.company_id')
          .whereRef('x.customer_id', '=', 'm.customer_id')
          .where('x.direction', '=', 'inbound')
          .where('x.kind', '=', 'email'),
      )
      .execute();
    for (const r of replies) {
      if (r.reading_corrected_at !== null) continue;
      const date = r.reading_kind === null ? readPromise(r.subject, r.body, r.occurred_at) : r.reading_kind === 'promise' ? r.reading_date : null;
      if (date) out.get(r.customer_id)?.promises.push({ date, invoiceId: r.invoice_id, readAt: r.occurred_at });
    }

    // Replies read as disputing an invoice (automatically, or so corrected by a person): each waits for an answer.
    const disputing = await db
      .selectFrom('communications')
      .select(['customer_id', 'invoice_id', 'occurred_at'])
      .where('company_id', '=', companyId)
      .where('customer_id', 'in', ids)
      .where('direction', '=', 'inbound')
      .where('kind', '=', 'email')
      .where('reading_kind', '=', 'dispute')
      .execute();
    for (const d of disputing) {
      const f = out.get(d.customer_id);
      if (f) (f.proposedDisputes ??= []).push({ invoiceId: d.invoice_id, at: d.occurred_at });
    }

    const labelled = await db
      .selectFrom('invoice_labels as il')
      .innerJoin('labels as l', 'l.id', 'il.label_id')
      .innerJoin('invoices as i', 'i.id', 'il.invoice_id')
      .select(['i.customer_id', 'i.id as invoice_id', 'l.meaning as kind'])
      .where('il.company_id', '=', companyId)
      .where('l.company_id', '=', companyId)
      .where('i.customer_id', 'in', ids)
      .where('i.closing_reason', 'is', null)
      .where('l.meaning', 'is not', null)
      .$narrowType<{ kind: LabelMeaning }>()
      .execute();
    for (const l of labelled) {
      const f = out.get(l.customer_id);
      if (!f) continue;
      if (l.kind === 'dispute') f.disputes.push({ invoiceId: l.invoice_id, reason: null });
      else f.promises.push({ date: null, invoiceId: l.invoice_id });
    }

    const disputes = await db
      .selectFrom('disputes')
      .select(['customer_id', 'invoice_id', 'reason'])
      .where('company_id', '=', companyId)
      .where('customer_id', 'in', ids)
      .where('status', '=', 'open')
      .orderBy('created_at')
      .execute();
    // A dispute record names its reason: it goes before a bare label on the same invoice.
    for (const d of disputes) out.get(d.customer_id)?.disputes.unshift({ invoiceId: d.invoice_id, reason: d.reason });
  }
  return out;
}

/** Which holds a sequence pauses on. */
export function settingsOf(q: { pause_on_reply: number; pause_on_promise: number; pause_on_dispute: number }): HoldSettings {
  return { reply: q.pause_on_reply === 1, promise: q.pause_on_promise === 1, dispute: q.pause_on_dispute === 1 };
}

/** What pauses one enrollment by itself today (a collector's pause aside), by its sequence's settings. */
export function enrollmentHold(
  e: { reply_handled_at: string | null; created_at: string; pause_on_reply: number; pause_on_promise: number; pause_on_dispute: number },
  facts: ChaseFacts,
  today: string,
): Hold | null {
  // A reply written before the customer was enrolled was read by whoever enrolled them. Each
  // enrollment keeps its own mark: a Resume on one does not resume the customer's other sequences.
  const handled = [e.reply_handled_at, e.created_at].filter((x): x is string => x !== null).sort().at(-1) ?? null;
  return pauseFor({ ...facts, replyHandledAt: handled, resumedAt: e.reply_handled_at }, settingsOf(e), today);
}

export interface RefreshResult {
  paused: number;
  resumed: number;
  /** Enrollments paused because of a reply, this refresh. */
  pausedByReply: number;
}

/**
 * Pauses and resumes the active enrollments of a company (or of some customers) by what holds their
 * chase today. A pause by the collector ('manual') is theirs to lift. A promise that paused an
 * enrollment and then broke schedules the sequence's "promise missed" steps, once.
 */
export async function refreshHolds(tx: CommandTx, companyId: string, customerIds: string[] | null): Promise<RefreshResult> {
  let query = tx.db
    .selectFrom('sequence_enrollments as e')
    .innerJoin('sequences as q', 'q.id', 'e.sequence_id')
    .select(['e.id', 'e.customer_id', 'e.sequence_id', 'e.created_at', 'e.paused_kind', 'e.paused_reason', 'e.paused_until', 'e.paused_invoice_id', 'e.reply_handled_at', 'q.timezone', 'q.pause_on_reply', 'q.pause_on_promise', 'q.pause_on_dispute'])
    .where('e.company_id', '=', companyId)
    .where('e.status', '=', 'active');
  if (customerIds) {
    if (customerIds.length === 0) return { paused: 0, resumed: 0, pausedByReply: 0 };
    query = query.where('e.customer_id', 'in', customerIds);
  }
  const enrollments = await query.execute();
  const result: RefreshResult = { paused: 0, resumed: 0, pausedByReply: 0 };
  if (enrollments.length === 0) return result;
  const facts = await chaseFacts(tx.db, companyId, enrollments.map((e) => e.customer_id));
  const now = new Date(tx.now);
  for (const e of enrollments) {
    if (e.paused_kind === 'manual') continue;
    const f = facts.get(e.customer_id);
    if (!f) continue;
    const today = localDate(now, e.timezone);
    const hold = enrollmentHold(e, f, today);
    const next = hold ? { paused_kind: hold.kind, paused_reason: hold.reason, paused_until: hold.until, paused_invoice_id: hold.invoiceId } : { paused_kind: null, paused_reason: null, paused_until: null, paused_invoice_id: null };
    if (next.paused_kind === e.paused_kind && next.paused_reason === e.paused_reason && next.paused_until === e.paused_until) continue;
    const changes = { ...next, paused_at: hold ? (e.paused_kind ? undefined : tx.now) : null, updated_at: tx.now };
    const set = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
    await tx.db.updateTable('sequence_enrollments').set(set).where('id', '=', e.id).execute();
    await tx.record('sequence_enrollment', e.id, 'update', set);
    if (hold && !e.paused_kind) {
      result.paused += 1;
      if (hold.kind === 'reply') result.pausedByReply += 1;
    }
    if (!hold && e.paused_kind) result.resumed += 1;
    if (promiseMissed({ kind: e.paused_kind, until: e.paused_until, invoiceId: e.paused_invoice_id }, hold, f, today)) {
      await scheduleMissedSteps(tx, companyId, e, now);
    }
  }
  return result;
}

/** The sequence's active "promise missed" steps, due now, each once per enrollment. */
async function scheduleMissedSteps(tx: CommandTx, companyId: string, e: { id: string; customer_id: string; sequence_id: string; paused_invoice_id: string | null; timezone: string }, now: Date): Promise<void> {
  const steps = await tx.db.selectFrom('sequence_steps').select(['id', 'offset_time']).where('sequence_id', '=', e.sequence_id).where('on_promise_missed', '=', 1).where('is_active', '=', 1).execute();
  for (const step of steps) {
    const already = await tx.db.selectFrom('scheduled_steps').select('id').where('enrollment_id', '=', e.id).where('step_id', '=', step.id).limit(1).executeTakeFirst();
    if (already) continue;
    const date = localDate(now, e.timezone);
    await insertScheduledStep(tx, {
      company_id: companyId,
      enrollment_id: e.id,
      sequence_id: e.sequence_id,
      step_id: step.id,
      customer_id: e.customer_id,
      invoice_id: e.paused_invoice_id,
      scheduled_date: date,
      scheduled_at: [zonedToUtc(date, step.offset_time, e.timezone), tx.now].sort()[0],
    });
  }
}

/** Where and when a step is scheduled; the rest of its row starts empty. */
export interface NewScheduledStep {
  company_id: string;
  enrollment_id: string;
  sequence_id: string;
  step_id: string;
  customer_id: string;
  invoice_id: string | null;
  scheduled_date: string;
  scheduled_at: string;
}

/**
 * Schedules one step, recorded in the change log. It lives here, the lowest module that schedules
 * steps (a broken promise's step), so the sequences above share it.
 */
export async function insertScheduledStep(tx: CommandTx, step: NewScheduledStep): Promise<string> {
  const row = {
    id: newId(),
    ...step,
    status: 'scheduled' as const,
    sender_connection_id: null,
    email_subject: null,
    sent_at: null,
    error: null,
    created_at: tx.now,
    updated_at: tx.now,
  };
  await tx.db.insertInto('scheduled_steps').values(row).execute();
  await tx.record('scheduled_step', row.id, 'insert', row);
  return row.id;
}
