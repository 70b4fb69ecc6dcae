/**
 * The daily promise follow-up: one job per company and day on the bulk lane (queuing twice adds
 * nothing), caught up at the next start when the app was closed (one run judges every promise due).
 */
import { today } from '../clock';
import { replicatedCompanies } from '../db/replicas';
import { type Engine, runCommand, systemActor } from '../engine';
import { enqueueJobs } from '../jobs/queue';
import type { JobHandler } from '../jobs/worker';
import { followPromises } from './followup';

export const PROMISE_FOLLOWUP = 'promise_followup';

/** Queues today's follow-up of every company (a desktop's replicated companies are the team server's). */
export async function queuePromiseFollowups(engine: Pick<Engine, 'db' | 'clock'>): Promise<number> {
  const date = today(engine.clock);
  const companies = await engine.db.selectFrom('companies').select('id').where('id', 'not in', replicatedCompanies(engine.db)).execute();
  if (companies.length === 0) return 0;
  const jobs = companies.map((c) => ({ companyId: c.id, kind: PROMISE_FOLLOWUP, idempotencyKey: `${PROMISE_FOLLOWUP}:${c.id}:${date}`, payload: { date } }));
  const queued = await runCommand(engine, 'queue_promise_followups', { actor: systemActor, companyId: null }, (tx) => enqueueJobs(tx, jobs));
  return queued.filter((j) => j.created).length;
}

/** Judges the company's promises due by now (the job's date only names the day it was queued for). */
export const followPromisesJob: JobHandler = async (job, ctx) => {
  await followPromises(ctx.engine, job.company_id);
};
