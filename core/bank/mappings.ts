/**
 * Column mappings of banks' CSV and XLSX exports, kept per company for the next file: the one made
 * for the same header row first, else the newest whose columns the file all has. Saving a mapping
 * for a header row replaces the one kept for it.
 */
import type { Db } from '../db/connection';
import { type Engine, runCommand, type Scope } from '../engine';
import { newId } from '../ids';
import { type BankMapping, BankMappingSchema } from './read/table';

const lower = (s: string) => s.trim().toLowerCase();

/** True when every column the mapping names is among the headers (as readMappedStatement finds them: trimmed, any case). */
export function mappingFits(mapping: BankMapping, headers: string[]): boolean {
  const have = new Set(headers.map(lower));
  const named = [mapping.date, mapping.value_date, mapping.amount, mapping.credit, mapping.debit, mapping.currency_column, mapping.payer, mapping.payer_account, mapping.bank_reference, ...mapping.reference];
  return named.every((c) => c === undefined || have.has(lower(c)));
}

export async function savedBankMapping(db: Db, companyId: string, headers: string[]): Promise<BankMapping | null> {
  const rows = await db.selectFrom('bank_mappings').select(['headers', 'mapping']).where('company_id', '=', companyId).orderBy('updated_at', 'desc').orderBy('id', 'desc').limit(100).execute();
  const exact = JSON.stringify(headers);
  const kept = [...rows.filter((r) => r.headers === exact), ...rows.filter((r) => r.headers !== exact)];
  for (const row of kept) {
    // A mapping saved by an older version that no longer reads is passed over, not an error.
    const parsed = BankMappingSchema.safeParse(JSON.parse(row.mapping));
    if (parsed.success && mappingFits(parsed.data, headers)) return parsed.data;
  }
  return null;
}

export async function saveBankMapping(engine: Pick<Engine, 'db' | 'clock'>, scope: Scope, headers: string[], mapping: BankMapping): Promise<void> {
  await runCommand(engine, 'save_bank_mapping', scope, async (tx) => {
    const key = JSON.stringify(headers);
    const known = await tx.db.selectFrom('bank_mappings').select('id').where('company_id', '=', scope.companyId).where('headers', '=', key).executeTakeFirst();
    if (known) {
      const changes = { mapping: JSON.stringify(mapping), updated_at: tx.now };
      await tx.db.updateTable('bank_mappings').set(changes).where('id', '=', known.id).execute();
      await tx.record('bank_mapping', known.id, 'update', changes);
      return;
    }
    const row = { id: newId(), company_id: scope.companyId, headers: key, mapping: JSON.stringify(mapping), created_by: scope.actor.userId, created_at: tx.now, updated_at: tx.now };
    await tx.db.insertInto('bank_mappings').values(row).execute();
    await tx.record('bank_mapping', row.id, 'insert', row);
  });
}
