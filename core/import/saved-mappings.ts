/** Import mappings a company keeps by name, to reuse with the next file of the same shape. */
import type { Db } from '../db/connection';
import { type Actor, type Engine, runCommand } from '../engine';
import { ConflictError, NotFoundError } from '../errors';
import { newId } from '../ids';
import { type Mapping, validateMapping } from './mapping';

export interface SavedMapping {
  id: string;
  name: string;
  mapping: Mapping;
  created_at: string;
  updated_at: string;
}

export async function listSavedMappings(db: Db, companyId: string): Promise<SavedMapping[]> {
  const rows = await db
    .selectFrom('import_mappings')
    .select(['id', 'name', 'mapping', 'created_at', 'updated_at'])
    .where('company_id', '=', companyId)
    .orderBy((eb) => eb.fn('lower', ['name']))
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ ...r, mapping: JSON.parse(r.mapping) as Mapping }));
}

/** Saves a mapping under a name not yet used in the company (regardless of case: 409 otherwise). */
export async function saveMapping(engine: Engine, scope: { companyId: string; actor: Actor }, input: { name: string; mapping: unknown }): Promise<SavedMapping> {
  const mapping = validateMapping(input.mapping);
  return runCommand(engine, 'save_import_mapping', scope, async (tx) => {
    const taken = await tx.db
      .selectFrom('import_mappings')
      .select('id')
      .where('company_id', '=', scope.companyId)
      .where((eb) => eb(eb.fn('lower', ['name']), '=', input.name.toLowerCase()))
      .executeTakeFirst();
    if (taken) throw new ConflictError(`A mapping named "${input.name}" exists already`, 'duplicate_name');
    const row = { id: newId(), company_id: scope.companyId, name: input.name, mapping: JSON.stringify(mapping), created_by: scope.actor.userId, created_at: tx.now, updated_at: tx.now };
    await tx.db.insertInto('import_mappings').values(row).execute();
    await tx.record('import_mapping', row.id, 'insert', { name: row.name, mapping });
    return { id: row.id, name: row.name, mapping, created_at: tx.now, updated_at: tx.now };
  });
}

export async function deleteSavedMapping(engine: Engine, scope: { companyId: string; actor: Actor }, id: string): Promise<void> {
  await runCommand(engine, 'delete_import_mapping', scope, async (tx) => {
    const result = await tx.db.deleteFrom('import_mappings').where('id', '=', id).where('company_id', '=', scope.companyId).executeTakeFirst();
    if (Number(result.numDeletedRows) === 0) throw new NotFoundError('Import mapping', id);
    await tx.record('import_mapping', id, 'delete', {});
  });
}
