/**
 * Who may connect this database to a team server, resync it or disconnect it: the user it is
 * connected as, and any owner of a company in it (the person the desktop was set up for). None of
 * these touches a local-only company (a download over one is refused), so a collector or viewer
 * is the only one kept out.
 */
import type { Db } from '../db/connection';
import { ForbiddenError } from '../errors';

export async function maySyncManage(db: Db, userId: string): Promise<boolean> {
  const state = await db.selectFrom('sync_state').select('user_id').where('id', '=', 1).executeTakeFirstOrThrow();
  if (state.user_id === userId) return true;
  const owner = await db.selectFrom('memberships').select('id').where('user_id', '=', userId).where('role', '=', 'owner').limit(1).executeTakeFirst();
  return owner !== undefined;
}

export async function requireSyncManager(db: Db, userId: string): Promise<void> {
  if (!(await maySyncManage(db, userId))) {
    throw new ForbiddenError('Only an owner of a company on this desktop, or the person it is connected as, may connect, resync or disconnect it', 'sync_manager_required');
  }
}
