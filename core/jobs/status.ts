/** A background job as its requester sees it (e.g. a reading of replies asked for on demand). */
import type { Db } from '../db/connection';
import type { JobStatus } from '../db/schema';
import { NotFoundError } from '../errors';

export interface JobView {
  id: string;
  kind: string;
  status: JobStatus;
  attempts: number;
  max_attempts: number;
  run_after: string;
  /** Why the last try failed, in words. */
  last_error: string | null;
  /** What the job did (its own shape per kind), once it succeeded. */
  result: unknown;
  created_at: string;
  updated_at: string;
}

export async function getJob(db: Db, companyId: string, jobId: string): Promise<JobView> {
  const row = await db.selectFrom('jobs').selectAll().where('company_id', '=', companyId).where('id', '=', jobId).executeTakeFirst();
  if (!row) throw new NotFoundError('Job', jobId);
  return {
    id: row.id,
    kind: row.kind,
    status: row.status,
    attempts: row.attempts,
    max_attempts: row.max_attempts,
    run_after: row.run_after,
    last_error: row.last_error,
    result: row.result === null ? null : JSON.parse(row.result),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
