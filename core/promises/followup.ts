/**
 * Following promises to pay: each day a job judges the promises whose last day (date + grace) has
 * passed, once each (a row in promise_followups). A kept one closes quietly; a broken one, still
 * unpaid, becomes a "promise broken" call in the Actions inbox (and My work through it) and the
 * customer's holds are refreshed in the same transaction, so the sequences the promise paused
 * resume (each step still asks the contact rule when it goes out).
 */
import { sql } from 'kysely';
import { COMMITMENT_DATE } from '../db/migrations/0099_promise_dates';
import type { PromiseOutcome } from '../db/schema';
import { addDays } from '../dates';
import { type CommandTx, type Engine, runCommand, systemActor } from '../engine';
import { refreshHolds } from '../holds/store';
import { shortDate } from '../holds/holds';
import { newId } from '../ids';
import { formatMoney } from '../money';
import { assessValueAtRisk } from '../actions/value-at-risk';
import { yieldToEventLoop } from '../yielding';
import { contactSettings } from '../contact/store';
import { graceEnd, judgedThrough, judgePromise } from './rules';

/** Promises judged per transaction: a first run judges every old promise of the ledger. */
const BATCH = 200;
/**
 * A promise whose last day ended longer ago than this is judged for the rates only: a catch-up
 * after weeks closed, or a ledger's history, does not fill the inbox with stale calls.
 */
export const BROKEN_ITEM_DAYS = 14;

interface Candidate {
  source: 'communication' | 'action';
  source_id: string;
  customer_id: string;
  invoice_id: string | null;
  promised_date: string;
  promised_amount: number | null;
  recorded_at: string;
}

/** Promises not judged yet whose date is on or before `lastDate` (today less the grace and a day). */
async function candidates(tx: CommandTx, companyId: string, lastDate: string, limit: number): Promise<Candidate[]> {
  const judged = (source: string, idColumn: string) =>
    sql<boolean>`NOT EXISTS (SELECT 1 FROM promise_followups f WHERE f.company_id = ${companyId} AND f.source = ${source} AND f.source_id = ${sql.ref(idColumn)})`;
  const logged = await tx.db
    .selectFrom('communications as m')
    .select(['m.id', 'm.customer_id', 'm.invoice_id', 'm.promise_date', 'm.promise_amount', 'm.occurred_at'])
    .where('m.company_id', '=', companyId)
    .where('m.promise_date', 'is not', null)
    .where('m.promise_date', '<=', lastDate)
    .where(judged('communication', 'm.id'))
    .orderBy('m.promise_date')
    .limit(limit)
    .$narrowType<{ promise_date: string }>()
    .execute();
  const commitment = sql<string | null>`${sql.raw(COMMITMENT_DATE)}`;
  const actions = await tx.db
    .selectFrom('actions as a')
    .select(['a.id', 'a.customer_id', 'a.invoice_id', commitment.as('promised'), 'a.created_at'])
    .where('a.company_id', '=', companyId)
    .where('a.deleted_at', 'is', null)
    .where('a.status', '!=', 'cancelled')
    .where(commitment, '<=', lastDate)
    .where(judged('action', 'a.id'))
    .orderBy('promised')
    .limit(limit)
    .$narrowType<{ promised: string }>()
    .execute();
  return [
    ...logged.map((m) => ({ source: 'communication' as const, source_id: m.id, customer_id: m.customer_id, invoice_id: m.invoice_id, promised_date: m.promise_date, promised_amount: m.promise_amount, recorded_at: m.occurred_at })),
    ...actions
      .filter((a) => /^\d{4}-\d{2}-\d{2}$/.test(a.promised))
      .map((a) => ({ source: 'action' as const, source_id: a.id, customer_id: a.customer_id, invoice_id: a.invoice_id, promised_date: a.promised, promised_amount: null, recorded_at: a.created_at })),
  ].slice(0, limit);
}

/** Sum of settled payments (minor units) on these invoices dated from `from` through `to`. */
async function paidBetween(tx: CommandTx, invoiceIds: string[], from: string, to: string): Promise<number> {
  if (invoiceIds.length === 0) return 0;
  const row = await tx.db
    .selectFrom('payments')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('amount'), sql<number>`0`).as('paid'))
    .where('invoice_id', 'in', invoiceIds)
    .where('status', 'in', ['PAID', 'PARTIAL'])
    .where('payment_date', '>=', from)
    .where('payment_date', '<=', to)
    .executeTakeFirstOrThrow();
  return Number(row.paid);
}

/** What the promise was about: its invoice, or the customer's invoices due by the promise's date. */
async function promisedInvoices(tx: CommandTx, companyId: string, p: Candidate) {
  let q = tx.db.selectFrom('invoices').select(['id', 'invoice_number', 'total_amount', 'balance', 'closing_reason', 'currency']).where('company_id', '=', companyId);
  q = p.invoice_id ? q.where('id', '=', p.invoice_id) : q.where('customer_id', '=', p.customer_id).where('due_date', '<=', p.promised_date).where((eb) => eb.or([eb('closing_reason', 'is', null), eb('closing_reason', 'in', ['paid', 'overpaid'])]));
  return q.execute();
}

/** Another promise about the same thing, made after this one and before its last day, replaced it. */
async function replaced(tx: CommandTx, companyId: string, p: Candidate, lastDay: string): Promise<boolean> {
  const until = `${addDays(lastDay, 1)}T00:00:00.000Z`;
  const logged = await tx.db
    .selectFrom('communications')
    .select('id')
    .where('company_id', '=', companyId)
    .where('customer_id', '=', p.customer_id)
    .where('promise_date', 'is not', null)
    .where('id', '!=', p.source_id)
    .where('occurred_at', '>', p.recorded_at)
    .where('occurred_at', '<', until)
    .$if(p.invoice_id !== null, (q) => q.where('invoice_id', '=', p.invoice_id))
    .$if(p.invoice_id === null, (q) => q.where('invoice_id', 'is', null))
    .limit(1)
    .executeTakeFirst();
  if (logged) return true;
  const commitment = sql<string | null>`${sql.raw(COMMITMENT_DATE)}`;
  const action = await tx.db
    .selectFrom('actions')
    .select('id')
    .where('company_id', '=', companyId)
    .where('customer_id', '=', p.customer_id)
    .where('deleted_at', 'is', null)
    .where('status', '!=', 'cancelled')
    .where(commitment, 'is not', null)
    .where('id', '!=', p.source_id)
    .where('created_at', '>', p.recorded_at)
    .where('created_at', '<', until)
    .$if(p.invoice_id !== null, (q) => q.where('invoice_id', '=', p.invoice_id))
    .$if(p.invoice_id === null, (q) => q.where('invoice_id', 'is', null))
    .limit(1)
    .executeTakeFirst();
  return action !== undefined;
}

/** Judges one promise and writes its row; a broken one still owed and recent gets its action. Returns its outcome. */
async function judgeOne(tx: CommandTx, companyId: string, p: Candidate, graceDays: number, ids: () => string): Promise<{ outcome: PromiseOutcome; itemMade: boolean }> {
  const lastDay = graceEnd(p.promised_date, graceDays);
  const invoices = await promisedInvoices(tx, companyId, p);
  const credited = p.invoice_id !== null && invoices.some((i) => i.closing_reason === 'credit_memo' || i.closing_reason === 'written_off');
  const invoiceIds = invoices.map((i) => i.id);
  const paid = await paidBetween(tx, invoiceIds, p.recorded_at.slice(0, 10), lastDay);
  let owed = 0;
  for (const i of invoices) owed += Math.max(0, i.total_amount - (await paidBetween(tx, [i.id], '0000-01-01', lastDay)));
  const outcome = judgePromise({ promisedAmount: p.promised_amount, paid, owed, superseded: credited || (p.invoice_id === null && invoices.length === 0) || (await replaced(tx, companyId, p, lastDay)) });
  const stillOwed = invoices.reduce((sum, i) => sum + Math.max(0, i.balance), 0);
  const recent = lastDay >= addDays(tx.today, -BROKEN_ITEM_DAYS);
  const actionId = outcome === 'broken' && recent && stillOwed > 0 ? await brokenPromiseAction(tx, companyId, p, lastDay, { paid, currency: invoices[0]?.currency ?? 'USD', number: p.invoice_id ? (invoices[0]?.invoice_number ?? null) : null }, ids) : null;
  const row = {
    id: ids(),
    company_id: companyId,
    customer_id: p.customer_id,
    invoice_id: p.invoice_id,
    source: p.source,
    source_id: p.source_id,
    promised_date: p.promised_date,
    promised_amount: p.promised_amount,
    grace_days: graceDays,
    outcome,
    paid_amount: paid,
    action_id: actionId,
    judged_at: tx.now,
  };
  await tx.db.insertInto('promise_followups').values(row).execute();
  const { id, ...data } = row;
  await tx.record('promise_followup', id, 'insert', data);
  return { outcome, itemMade: actionId !== null };
}

/** The "promise broken" item: a call proposed in the Actions inbox, for the customer's AR owner to make. */
async function brokenPromiseAction(tx: CommandTx, companyId: string, p: Candidate, lastDay: string, about: { paid: number; currency: string; number: string | null }, ids: () => string): Promise<string> {
  const customer = await tx.db.selectFrom('customers').select('name').where('id', '=', p.customer_id).executeTakeFirstOrThrow();
  const what = about.number ? `to pay ${about.number}` : 'payment';
  const amount = p.promised_amount !== null ? ` (${formatMoney(p.promised_amount, about.currency)})` : '';
  const came = about.paid > 0 ? `only ${formatMoney(about.paid, about.currency)} came` : 'nothing came';
  const description = `${customer.name} promised ${what}${amount} by ${shortDate(p.promised_date, tx.today)}; ${came} by the end of the grace days (${shortDate(lastDay, tx.today)}). Call to ask why and for a new date.`;
  const id = ids();
  const metadata = { promise_broken: { source: p.source, source_id: p.source_id, promised_date: p.promised_date, promised_amount: p.promised_amount, grace_end: lastDay } };
  const row = {
    id,
    company_id: companyId,
    invoice_id: p.invoice_id,
    customer_id: p.customer_id,
    action_type: 'call' as const,
    status: 'proposed' as const,
    description,
    recommendation_label: 'Call about the broken promise',
    trigger_event_label: 'Promise broken',
    is_action_required: 1 as const,
    top_recommendation: null,
    // Recommended by ardesk (not typed in by a person): the inbox's Needs action lists it.
    is_ai_recommended: 1 as const,
    metadata: JSON.stringify(metadata),
    response_deadline: null,
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
  await tx.record('action', id, 'insert', { ...row, metadata });
  await assessValueAtRisk(tx.db, companyId, tx.today, { actionIds: [id] });
  return id;
}

export interface FollowUpResult {
  kept: number;
  broken: number;
  void: number;
  /** Broken promises that became a "promise broken" item. */
  items: number;
}

/**
 * Judges every promise of the company whose last day (its date plus the company's grace days, the
 * contact rule's setting) has passed, in transactions of BATCH promises, yielding between them.
 * Running it again judges nothing twice (one row per promise). `ids` makes the new rows' ids (the
 * seed passes its own, so the same seed gives the same rows).
 */
export async function followPromises(engine: Pick<Engine, 'db' | 'clock'>, companyId: string, ids: () => string = newId): Promise<FollowUpResult> {
  const graceDays = (await contactSettings(engine.db, companyId)).promiseGraceDays;
  const result: FollowUpResult = { kept: 0, broken: 0, void: 0, items: 0 };
  for (;;) {
    const done = await runCommand(engine, 'follow_promises', { actor: systemActor, companyId }, async (tx) => {
      const batch = await candidates(tx, companyId, judgedThrough(tx.today, graceDays), BATCH);
      const resumed = new Set<string>();
      for (const p of batch) {
        const { outcome, itemMade } = await judgeOne(tx, companyId, p, graceDays, ids);
        result[outcome] += 1;
        if (itemMade) {
          result.items += 1;
          resumed.add(p.customer_id);
        }
      }
      // The chase of a customer whose promise broke resumes now, through the holds (and the contact rule at each send).
      if (resumed.size) await refreshHolds(tx, companyId, [...resumed]);
      return batch.length < BATCH;
    });
    if (done) return result;
    await yieldToEventLoop();
  }
}
