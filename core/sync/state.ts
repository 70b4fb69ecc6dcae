/** This database's part in sync (server, replica or neither) and, per company, who produces side effects. */
import type { Db } from '../db/connection';
import type { Selectable } from 'kysely';
import type { SyncStateTable } from '../db/schema';

export type SyncState = Selectable<SyncStateTable>;

export async function syncState(db: Db): Promise<SyncState> {
  return db.selectFrom('sync_state').selectAll().where('id', '=', 1).executeTakeFirstOrThrow();
}

/**
 * Points a connected desktop at its team server's new address (the same server moved, or a port
 * changed); its client id, token and cursors stay. Returns the previous address.
 */
export async function setServerUrl(db: Db, serverUrl: string): Promise<string | null> {
  const before = (await syncState(db)).server_url;
  await db.updateTable('sync_state').set({ server_url: serverUrl, last_error: null }).where('id', '=', 1).execute();
  return before;
}

/** The person has read the refused commands: they leave the list (the changes were undone long ago). */
export async function dismissRejections(db: Db): Promise<number> {
  const result = await db.deleteFrom('sync_rejections').executeTakeFirst();
  return Number(result.numDeletedRows);
}
