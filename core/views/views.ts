import type { Db } from '../db/connection';
import { type Actor, type Engine, runCommand } from '../engine';
import { NotFoundError, ValidationError } from '../errors';
import { newId } from '../ids';

export interface SavedView {
  id: string;
  name: string;
  query: string;
  created_at: string;
  updated_at: string;
}

export const MAX_VIEW_NAME = 80;
export const MAX_VIEW_QUERY = 4000;
/** Enough for any collector; stops a runaway script from filling the table. */
export const MAX_VIEWS_PER_USER = 200;

/** A view's query is a URL query string; a leading '?' is dropped and the pairs are kept in order. */
export function normaliseViewQuery(query: string): string {
  return new URLSearchParams(query.trim().replace(/^\?/, '')).toString();
}

function validateView(input: { name: string; query: string }): { name: string; query: string } {
  const name = input.name.trim();
  const query = normaliseViewQuery(input.query);
  const errors: Record<string, string[]> = {};
  if (!name) errors.name = ['Give the view a name'];
  else if (name.length > MAX_VIEW_NAME) errors.name = [`Use at most ${MAX_VIEW_NAME} characters`];
  if (query.length > MAX_VIEW_QUERY) errors.query = [`Use at most ${MAX_VIEW_QUERY} characters`];
  if (Object.keys(errors).length) throw new ValidationError('The saved view is invalid', errors);
  return { name, query };
}

export async function listViews(db: Db, companyId: string, userId: string): Promise<SavedView[]> {
  return db
    .selectFrom('saved_views')
    .select(['id', 'name', 'query', 'created_at', 'updated_at'])
    .where('company_id', '=', companyId)
    .where('user_id', '=', userId)
    .orderBy('name')
    .orderBy('id')
    .execute();
}

/** Saves a view under its name: a name the user already has (any case) is overwritten. */
export async function saveView(
  engine: Engine,
  scope: { companyId: string; actor: Actor & { userId: string } },
  input: { name: string; query: string },
): Promise<{ view: SavedView; created: boolean }> {
  const { name, query } = validateView(input);
  const userId = scope.actor.userId;
  return runCommand(engine, 'save_view', scope, async (tx) => {
    const existing = await tx.db
      .selectFrom('saved_views')
      .select(['id', 'created_at'])
      .where('company_id', '=', scope.companyId)
      .where('user_id', '=', userId)
      .where((eb) => eb(eb.fn('lower', ['name']), '=', name.toLowerCase()))
      .executeTakeFirst();
    if (existing) {
      await tx.db.updateTable('saved_views').set({ name, query, updated_at: tx.now }).where('id', '=', existing.id).execute();
      await tx.record('saved_view', existing.id, 'update', { name, query });
      return { view: { id: existing.id, name, query, created_at: existing.created_at, updated_at: tx.now }, created: false };
    }
    const count = await tx.db
      .selectFrom('saved_views')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('company_id', '=', scope.companyId)
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow();
    if (Number(count.n) >= MAX_VIEWS_PER_USER) throw new ValidationError(`You already have ${MAX_VIEWS_PER_USER} saved views; delete one first`, { name: ['Too many saved views'] });
    const id = newId();
    await tx.db.insertInto('saved_views').values({ id, company_id: scope.companyId, user_id: userId, name, query, created_at: tx.now, updated_at: tx.now }).execute();
    await tx.record('saved_view', id, 'insert', { name, query });
    return { view: { id, name, query, created_at: tx.now, updated_at: tx.now }, created: true };
  });
}

/** Deletes one of the caller's own views; anyone else's (or another company's) is a 404. */
export async function deleteView(engine: Engine, scope: { companyId: string; actor: Actor & { userId: string } }, viewId: string): Promise<void> {
  await runCommand(engine, 'delete_view', scope, async (tx) => {
    const result = await tx.db
      .deleteFrom('saved_views')
      .where('id', '=', viewId)
      .where('company_id', '=', scope.companyId)
      .where('user_id', '=', scope.actor.userId)
      .executeTakeFirst();
    if (Number(result.numDeletedRows) === 0) throw new NotFoundError('Saved view', viewId);
    await tx.record('saved_view', viewId, 'delete', {});
  });
}
