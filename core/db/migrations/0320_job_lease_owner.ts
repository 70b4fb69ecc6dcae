/**
 * Who holds a running job's lease: the claiming process (core/jobs/owner.ts), so a worker starting
 * after a crash takes back at once a job whose owner is gone instead of waiting out the lease
 * (issue 37, N5). Null for a lease taken before this column (the lease's age decides, as before).
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql.raw('ALTER TABLE jobs ADD COLUMN locked_by TEXT').execute(db);
}
