/**
 * Label assignments (invoice_labels rows), written and recorded the same way by every writer
 * (invoice edits, bulk updates, imports): each assignment is the change entity 'invoice_label' with
 * the id `<invoiceId>:<labelId>`, as a row has no id of its own.
 */
import { withdrawProposals } from '../supersede/withdraw';
import type { CommandTx } from '../engine';
import { refreshHolds } from '../holds/store';
import { chunks } from '../chunks';

/** [invoiceId, labelId] */
export type LabelAssignment = [string, string];

/** Rows or ids per statement: keeps a large bulk update or import well under SQLite's parameter limit. */
const CHUNK = 400;

export function assignmentId(invoiceId: string, labelId: string): string {
  return `${invoiceId}:${labelId}`;
}

/** Inserts the `add` assignments and deletes the `remove` ones, recording each, and applies what their labels mean. */
export async function applyLabelChanges(tx: CommandTx, companyId: string, add: LabelAssignment[], remove: LabelAssignment[]): Promise<void> {
  for (const chunk of chunks(add, CHUNK)) {
    await tx.db
      .insertInto('invoice_labels')
      .values(chunk.map(([invoice_id, label_id]) => ({ company_id: companyId, invoice_id, label_id, created_at: tx.now })))
      .execute();
  }
  for (const [invoiceId, labelId] of add) await tx.record('invoice_label', assignmentId(invoiceId, labelId), 'insert', { invoice_id: invoiceId, label_id: labelId });
  const byLabel = new Map<string, string[]>();
  for (const [invoiceId, labelId] of remove) byLabel.set(labelId, [...(byLabel.get(labelId) ?? []), invoiceId]);
  for (const [labelId, invoiceIds] of byLabel) {
    for (const chunk of chunks(invoiceIds, CHUNK)) {
      await tx.db.deleteFrom('invoice_labels').where('label_id', '=', labelId).where('invoice_id', 'in', chunk).execute();
    }
  }
  for (const [invoiceId, labelId] of remove) await tx.record('invoice_label', assignmentId(invoiceId, labelId), 'delete', { invoice_id: invoiceId, label_id: labelId });
  await applyLabelFacts(tx, companyId, add, remove);
}

/**
 * Labels are facts: a label the company marked as meaning a dispute or a promise to pay, newly on
 * open invoices, withdraws their engine proposals (a reminder is wrong on a disputed invoice, a
 * chase on a promised one), and the chase of their customers pauses or resumes by it, all in the
 * caller's transaction. `removed` assignments only resume the chase.
 */
export async function applyLabelFacts(tx: CommandTx, companyId: string, added: LabelAssignment[], removed: LabelAssignment[] = []): Promise<void> {
  const labelIds = [...new Set([...added, ...removed].map(([, label]) => label))];
  if (!labelIds.length) return;
  const meaningful = new Map(
    (await tx.db.selectFrom('labels').select(['id', 'name']).where('company_id', '=', companyId).where('id', 'in', labelIds).where('meaning', 'is not', null).execute()).map((l) => [l.id, l.name]),
  );
  const facts = added.filter(([, label]) => meaningful.has(label));
  const touched = [...new Set([...facts, ...removed.filter(([, label]) => meaningful.has(label))].map(([invoice]) => invoice))];
  if (!touched.length) return;
  const customers = new Map<string, string>();
  const proposed = new Set<string>();
  for (const ids of chunks(touched, CHUNK)) {
    for (const r of await tx.db.selectFrom('invoices').select(['id', 'customer_id']).where('company_id', '=', companyId).where('id', 'in', ids).where('closing_reason', 'is', null).execute()) customers.set(r.id, r.customer_id);
    // Only invoices with an open engine proposal have anything to withdraw.
    const open = await tx.db
      .selectFrom('actions')
      .select('invoice_id')
      .distinct()
      .where('company_id', '=', companyId)
      .where('invoice_id', 'in', ids)
      .where('status', 'in', ['proposed', 'scheduled'])
      .where('is_ai_recommended', '=', 1)
      .where('deleted_at', 'is', null)
      .execute();
    for (const r of open) if (r.invoice_id) proposed.add(r.invoice_id);
  }
  for (const [invoiceId, labelId] of facts) {
    const customerId = customers.get(invoiceId);
    if (customerId && proposed.has(invoiceId)) await withdrawProposals(tx, companyId, { kind: 'label', customerId, invoiceId, label: meaningful.get(labelId)!, on: tx.now.slice(0, 10) });
  }
  if (customers.size) await refreshHolds(tx, companyId, [...new Set(customers.values())]);
}
