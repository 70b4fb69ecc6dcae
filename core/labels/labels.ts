/**
 * Labels: a company's named, coloured tags for invoices. Names are unique per company regardless
 * of case; deleting a label removes its invoice assignments in the same transaction. A label can
 * mean a dispute or a promise to pay (`meaning`): the engine reads that, never the name, and a
 * change of meaning applies to the invoices that carry the label in the same transaction.
 */
import { sql } from 'kysely';
import type { Db } from '../db/connection';
import type { Label, LabelMeaning } from '../db/schema';
import { type CommandTx, type Engine, runCommand, type Scope } from '../engine';
import { ConflictError, type FieldErrors, NotFoundError, ValidationError } from '../errors';
import { newId } from '../ids';
import { applyLabelFacts, type LabelAssignment } from '../invoices/labels';
import { refreshHolds } from '../holds/store';
import { chunks } from '../chunks';

export interface LabelDto {
  id: string;
  name: string;
  color: string;
  meaning: LabelMeaning | null;
  created_at: string;
  updated_at: string;
}

export const LABEL_MEANINGS = ['dispute', 'promise'] as const satisfies readonly LabelMeaning[];

export interface LabelInput {
  name?: string;
  color?: string;
  meaning?: LabelMeaning | null;
}

export const DEFAULT_LABEL_COLOR = '#6B7280';
export const MAX_LABEL_NAME = 60;

/** Colors are #RRGGBB, stored upper-case so the same color is one value. */
export function normalizeColor(value: string): string | null {
  const color = value.trim().toUpperCase();
  return /^#[0-9A-F]{6}$/.test(color) ? color : null;
}

async function assignmentsOf(tx: CommandTx, companyId: string, labelId: string): Promise<LabelAssignment[]> {
  const rows = await tx.db.selectFrom('invoice_labels').select('invoice_id').where('company_id', '=', companyId).where('label_id', '=', labelId).execute();
  return rows.map((r) => [r.invoice_id, labelId]);
}

/** The customers of the open invoices among the assignments. */
async function customersOf(tx: CommandTx, companyId: string, assignments: LabelAssignment[]): Promise<string[]> {
  const ids = new Set<string>();
  const invoices = assignments.map(([invoice]) => invoice);
  for (const chunk of chunks(invoices, 400)) {
    const rows = await tx.db.selectFrom('invoices').select('customer_id').distinct().where('company_id', '=', companyId).where('id', 'in', chunk).where('closing_reason', 'is', null).execute();
    for (const r of rows) ids.add(r.customer_id);
  }
  return [...ids];
}

export function validateLabel(input: LabelInput, creating: boolean): FieldErrors {
  const errors: FieldErrors = {};
  if (input.name !== undefined || creating) {
    const name = input.name?.trim() ?? '';
    if (!name) errors.name = ['Is required'];
    else if (name.length > MAX_LABEL_NAME) errors.name = [`Use at most ${MAX_LABEL_NAME} characters`];
  }
  if (input.color !== undefined && normalizeColor(input.color) === null) errors.color = ['Must be a color like #1A2B3C'];
  if (input.meaning !== undefined && input.meaning !== null && !(LABEL_MEANINGS as readonly string[]).includes(input.meaning)) errors.meaning = ['Must be dispute, promise or null'];
  return errors;
}

function toDto(row: Label): LabelDto {
  return { id: row.id, name: row.name, color: row.color, meaning: row.meaning, created_at: row.created_at, updated_at: row.updated_at };
}

export async function listLabels(db: Db, companyId: string): Promise<LabelDto[]> {
  const rows = await db.selectFrom('labels').selectAll().where('company_id', '=', companyId).orderBy(sql`name COLLATE NOCASE`).orderBy('id').execute();
  return rows.map(toDto);
}

async function findLabel(db: Db, companyId: string, labelId: string): Promise<Label> {
  const row = await db.selectFrom('labels').selectAll().where('id', '=', labelId).where('company_id', '=', companyId).executeTakeFirst();
  if (!row) throw new NotFoundError('Label', labelId);
  return row;
}

export async function getLabel(db: Db, companyId: string, labelId: string): Promise<LabelDto> {
  return toDto(await findLabel(db, companyId, labelId));
}

async function checkNameFree(tx: CommandTx, companyId: string, name: string, exceptId: string | null): Promise<void> {
  let query = tx.db.selectFrom('labels').select('id').where('company_id', '=', companyId).where(sql<boolean>`name = ${name} COLLATE NOCASE`);
  if (exceptId) query = query.where('id', '<>', exceptId);
  if (await query.executeTakeFirst()) throw new ConflictError(`A label named ${name} already exists`, 'duplicate_label');
}

export async function createLabel(engine: Pick<Engine, 'db' | 'clock'>, scope: Scope, input: LabelInput): Promise<LabelDto> {
  const errors = validateLabel(input, true);
  if (Object.keys(errors).length) throw new ValidationError('The label is invalid', errors);
  return runCommand(engine, 'create_label', scope, async (tx) => {
    const name = (input.name ?? '').trim();
    await checkNameFree(tx, scope.companyId, name, null);
    const color = normalizeColor(input.color ?? DEFAULT_LABEL_COLOR) ?? DEFAULT_LABEL_COLOR;
    const row = { id: newId(), company_id: scope.companyId, name, color, meaning: input.meaning ?? null, created_at: tx.now, updated_at: tx.now };
    await tx.db.insertInto('labels').values(row).execute();
    await tx.record('label', row.id, 'insert', { name: row.name, color: row.color, meaning: row.meaning });
    return toDto(row);
  });
}

export async function updateLabel(engine: Pick<Engine, 'db' | 'clock'>, scope: Scope, labelId: string, input: LabelInput): Promise<LabelDto> {
  const errors = validateLabel(input, false);
  if (Object.keys(errors).length) throw new ValidationError('The label is invalid', errors);
  return runCommand(engine, 'update_label', scope, async (tx) => {
    const current = await findLabel(tx.db, scope.companyId, labelId);
    const changes: { name?: string; color?: string; meaning?: LabelMeaning | null } = {};
    if (input.name !== undefined) {
      changes.name = input.name.trim();
      await checkNameFree(tx, scope.companyId, changes.name, current.id);
    }
    if (input.color !== undefined) changes.color = normalizeColor(input.color) ?? current.color;
    if (input.meaning !== undefined && input.meaning !== current.meaning) changes.meaning = input.meaning;
    if (Object.keys(changes).length === 0) return toDto(current);
    await tx.db.updateTable('labels').set({ ...changes, updated_at: tx.now }).where('id', '=', current.id).execute();
    await tx.record('label', current.id, 'update', changes);
    if (changes.meaning !== undefined) {
      // The invoices that carry the label now say something else: a new meaning applies to them as
      // if the label were just put on; none lets their chase resume.
      const assignments = await assignmentsOf(tx, scope.companyId, current.id);
      if (changes.meaning) await applyLabelFacts(tx, scope.companyId, assignments);
      else await refreshHolds(tx, scope.companyId, await customersOf(tx, scope.companyId, assignments));
    }
    return toDto({ ...current, ...changes, updated_at: tx.now });
  });
}

/**
 * Deletes the label and its invoice assignments. The change record carries the number of
 * assignments removed rather than one record per invoice: the label's deletion implies them.
 */
export async function deleteLabel(engine: Pick<Engine, 'db' | 'clock'>, scope: Scope, labelId: string): Promise<void> {
  await runCommand(engine, 'delete_label', scope, async (tx) => {
    const current = await findLabel(tx.db, scope.companyId, labelId);
    const held = current.meaning ? await customersOf(tx, scope.companyId, await assignmentsOf(tx, scope.companyId, current.id)) : [];
    const removed = await tx.db.deleteFrom('invoice_labels').where('label_id', '=', current.id).executeTakeFirst();
    await tx.db.deleteFrom('labels').where('id', '=', current.id).execute();
    await tx.record('label', current.id, 'delete', { name: current.name, invoice_assignments_removed: Number(removed.numDeletedRows) });
    // A dispute or promise label gone: the chase it held resumes.
    if (held.length) await refreshHolds(tx, scope.companyId, held);
  });
}
