import type { Db } from '../db/connection';
import { type Actor, type Engine, runCommand } from '../engine';
import { newId } from '../ids';
import { agingBucketRows, type AgingBucketKey } from './aging';

/** Stores the aging at `date` for a company; taking it again for the same date replaces it (idempotent catch-up). */
export async function captureAgingSnapshot(engine: Engine, companyId: string, date: string, today: string, actor: Actor) {
  // Straight from the minor-unit rows: no round trip through the API's major units.
  const rows = agingBucketRows(engine, companyId, date, today);
  const amount = (key: AgingBucketKey) => rows.find((r) => r.bucket === key)?.balance ?? 0;
  const row = {
    current_amount: amount('current'),
    d1_30_amount: amount('1_30'),
    d31_60_amount: amount('31_60'),
    d61_90_amount: amount('61_90'),
    d91_over_amount: amount('91_over'),
    total_amount: rows.reduce((sum, r) => sum + r.balance, 0),
    invoice_count: rows.reduce((sum, r) => sum + r.n, 0),
  };
  return runCommand(engine, 'capture_aging_snapshot', { actor, companyId }, async (tx) => {
    const existing = await tx.db.selectFrom('aging_snapshots').select('id').where('company_id', '=', companyId).where('snapshot_date', '=', date).executeTakeFirst();
    const id = existing?.id ?? newId();
    if (existing) {
      await tx.db.updateTable('aging_snapshots').set(row).where('id', '=', id).execute();
    } else {
      await tx.db.insertInto('aging_snapshots').values({ id, company_id: companyId, snapshot_date: date, ...row, created_at: tx.now }).execute();
    }
    await tx.record('aging_snapshot', id, existing ? 'update' : 'insert', { snapshot_date: date, ...row });
    return id;
  });
}

export async function snapshotHistory(db: Db, companyId: string, from: string | undefined, to: string | undefined) {
  let q = db.selectFrom('aging_snapshots').selectAll().where('company_id', '=', companyId);
  if (from) q = q.where('snapshot_date', '>=', from);
  if (to) q = q.where('snapshot_date', '<=', to);
  return q.orderBy('snapshot_date').execute();
}

export async function snapshotDates(db: Db, companyId: string): Promise<string[]> {
  const rows = await db.selectFrom('aging_snapshots').select('snapshot_date').where('company_id', '=', companyId).orderBy('snapshot_date', 'desc').execute();
  return rows.map((r) => r.snapshot_date);
}
