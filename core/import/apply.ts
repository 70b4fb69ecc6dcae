/**
 * Writing a plan inside the import's command: each row written is recorded, and every invoice the
 * import touched gets its paid amount, balance and closing from its settled payments.
 */
import type { CommandTx } from '../engine';
import { applyLabelChanges, type LabelAssignment } from '../invoices/labels';
import { recomputeInvoiceBalance } from '../payments/balance';
import { yieldToEventLoop } from '../yielding';
import type { LabelLink, Plan, RowWrite } from './plan';

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
  for (const [i, { id, before }] of plan.touched.entries()) {
    if (i % YIELD_EVERY === YIELD_EVERY - 1) await yieldToEventLoop();
    const after = await recomputeInvoiceBalance(tx.db, id, tx.now);
    const changed = (Object.keys(after) as Array<keyof typeof after>).filter((k) => after[k] !== before[k]);
    if (changed.length) await tx.record('invoice', id, 'update', Object.fromEntries(changed.map((k) => [k, after[k]])));
  }
}
