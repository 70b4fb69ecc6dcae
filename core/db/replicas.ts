/** Which companies this database replicates from a team server (`sync_companies`, written by core/sync). */
import type { Db } from './connection';

/**
 * 'replica': a desktop's copy of a team server's company: its writes are replayed by the server,
 * and its side effects (email, reply reading, insights, actions, snapshots) happen only there.
 * 'local': everything else (a desktop's own company, or any company of the team server).
 */
export type CompanySyncRole = 'replica' | 'local';

export async function companySyncRole(db: Db, companyId: string): Promise<CompanySyncRole> {
  const row = await db.selectFrom('sync_companies').select('company_id').where('company_id', '=', companyId).executeTakeFirst();
  return row ? 'replica' : 'local';
}

/** The companies this database replicates: the team server runs their jobs and schedules, not this one. */
export function replicatedCompanies(db: Db) {
  return db.selectFrom('sync_companies').select('company_id');
}
