/**
 * Writing a plan inside the import's command: each row written is recorded, and every invoice the
 * import touched gets its paid amount, balance and closing from its settled payments. Money the
 * import brings in withdraws the engine proposals drafted on the old balance, in the same command.
 */
import { withdrawProposals } from '../supersede/withdraw';
import type { CommandTx } from '../engine';
import { applyLabelChanges, type LabelAssignment } from '../invoices/labels';
import { recomputeInvoiceBalance, SETTLED_STATUSES } from '../payments/balance';
import { yieldToEventLoop } from '../yielding';
import type { LabelLink, Plan, RowWrite } from './plan';
import { chunks } from '../chunks';

/** Fields every table row carries that say nothing about the change itself. */
function changeData(values: Record<string, unknown>): Record<string, unknown> {
  const { id: _id, company_id: _company, created_at: _created, updated_at: _updated, ...data } = values;
  return data;
}

/** Rows per multi-row INSERT: one statement per batch keeps a large import fast. */
const INSERT_BATCH = 200;
/** Change records written between turns of the event loop. */
const YIELD_EVERY = 50;

export async function applyPlan(tx: CommandTx, plan: Plan): Promise<void> {
  let batch: RowWrite[] = [];
  const flush = async () => {
    if (!batch.length) return;
    await tx.db
      .insertInto(batch[0].table)
      .values(batch.map((w) => w.insert) as never)
      .execute();
    for (const [i, w] of batch.entries()) {
      await tx.record(w.entity, w.id, 'insert', changeData(w.insert!));
      if (i % YIELD_EVERY === YIELD_EVERY - 1) await yieldToEventLoop();
    }
    batch = [];
    await yieldToEventLoop();
  };
  let updates = 0;
  // Writes are in dependency order (labels, customers, their locations and contacts, invoices,
  // payments); consecutive inserts into one table go in one statement.
  for (const w of plan.writes) {
    if (w.insert) {
      if (batch.length && (batch[0].table !== w.table || batch.length >= INSERT_BATCH)) await flush();
      batch.push(w);
      continue;
    }
    await flush();
    await tx.db
      .updateTable(w.table)
      .set({ ...w.update, updated_at: tx.now } as never)
      .where('id', '=', w.id)
      .execute();
    await tx.record(w.entity, w.id, 'update', w.update!);
    if (++updates % YIELD_EVERY === 0) await yieldToEventLoop();
  }
  await flush();
  const assignment = (l: LabelLink): LabelAssignment => [l.invoiceId, l.labelId];
  await applyLabelChanges(
    tx,
    plan.companyId,
    plan.links.filter((l) => l.add).map(assignment),
    plan.links.filter((l) => !l.add).map(assignment),
  );
  const paid: string[] = [];
  for (const [i, { id, before }] of plan.touched.entries()) {
    if (i % YIELD_EVERY === YIELD_EVERY - 1) await yieldToEventLoop();
    const after = await recomputeInvoiceBalance(tx.db, id, tx.now);
    const changed = (Object.keys(after) as Array<keyof typeof after>).filter((k) => after[k] !== before[k]);
    if (changed.length) await tx.record('invoice', id, 'update', Object.fromEntries(changed.map((k) => [k, after[k]])));
    if (after.paid_amount > before.paid_amount) paid.push(id);
  }
  await withdrawPaidProposals(tx, plan.companyId, paid);
}

/** Invoices per query when looking for proposals to withdraw. */
const CHUNK = 400;

/** The open engine proposals of invoices that received money: withdrawn as a payment withdraws them when recorded by hand. */
async function withdrawPaidProposals(tx: CommandTx, companyId: string, invoiceIds: string[]): Promise<void> {
  for (const ids of chunks(invoiceIds, CHUNK)) {
    // Most imported payments settle invoices nobody proposed anything for: one query finds the few that have some.
    const proposed = await tx.db
      .selectFrom('actions as a')
      .innerJoin('invoices as i', 'i.id', 'a.invoice_id')
      .select(['i.id', 'i.customer_id', 'i.balance', (eb) => eb.selectFrom('payments as p').select((p) => p.fn.max('p.payment_date').as('d')).whereRef('p.invoice_id', '=', 'i.id').where('p.status', 'in', SETTLED_STATUSES).as('last_paid')])
      .distinct()
      .where('a.company_id', '=', companyId)
      .where('a.invoice_id', 'in', ids)
      .where('a.status', 'in', ['proposed', 'scheduled'])
      .where('a.is_ai_recommended', '=', 1)
      .where('a.deleted_at', 'is', null)
      .execute();
    for (const inv of proposed) {
      await withdrawProposals(tx, companyId, { kind: 'payment', customerId: inv.customer_id, invoiceId: inv.id, paidInFull: inv.balance <= 0, on: inv.last_paid ?? tx.now.slice(0, 10) });
    }
    await yieldToEventLoop();
  }
}
