/**
 * Label assignments (invoice_labels rows), written and recorded the same way by every writer
 * (invoice edits, bulk updates, imports): each assignment is the change entity 'invoice_label' with
 * the id `<invoiceId>:<labelId>`, as a row has no id of its own.
 */
import type { CommandTx } from '../engine';

/** [invoiceId, labelId] */
export type LabelAssignment = [string, string];

/** Rows or ids per statement: keeps a large bulk update or import well under SQLite's parameter limit. */
const CHUNK = 400;

export function assignmentId(invoiceId: string, labelId: string): string {
  return `${invoiceId}:${labelId}`;
}

/** Inserts the `add` assignments and deletes the `remove` ones, recording each. */
export async function applyLabelChanges(tx: CommandTx, companyId: string, add: LabelAssignment[], remove: LabelAssignment[]): Promise<void> {
  for (let i = 0; i < add.length; i += CHUNK) {
    const chunk = add.slice(i, i + CHUNK);
    await tx.db
      .insertInto('invoice_labels')
      .values(chunk.map(([invoice_id, label_id]) => ({ company_id: companyId, invoice_id, label_id, created_at: tx.now })))
      .execute();
  }
  for (const [invoiceId, labelId] of add) await tx.record('invoice_label', assignmentId(invoiceId, labelId), 'insert', { invoice_id: invoiceId, label_id: labelId });
  const byLabel = new Map<string, string[]>();
  for (const [invoiceId, labelId] of remove) byLabel.set(labelId, [...(byLabel.get(labelId) ?? []), invoiceId]);
  for (const [labelId, invoiceIds] of byLabel) {
    for (let i = 0; i < invoiceIds.length; i += CHUNK) {
      await tx.db.deleteFrom('invoice_labels').where('label_id', '=', labelId).where('invoice_id', 'in', invoiceIds.slice(i, i + CHUNK)).execute();
    }
  }
  for (const [invoiceId, labelId] of remove) await tx.record('invoice_label', assignmentId(invoiceId, labelId), 'delete', { invoice_id: invoiceId, label_id: labelId });
}
