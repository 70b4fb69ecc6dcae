import { createRoute, z } from '@hono/zod-openapi';
import { getJob } from '../../jobs/status';
import { scopeOf } from '../context';
import { createRouter, idParams, json, problems, SECURITY, Timestamp, Uuid } from '../openapi';

const Job = z
  .object({
    id: Uuid,
    kind: z.string().openapi({ description: 'invoice_reminder, email_reply_sync' }),
    status: z.enum(['queued', 'running', 'succeeded', 'failed']),
    attempts: z.number().int(),
    max_attempts: z.number().int(),
    run_after: Timestamp,
    last_error: z.string().nullable().openapi({ description: 'Why the last try failed, in words' }),
    result: z.unknown().openapi({
      description:
        'What the job did once it succeeded. email_reply_sync: {mailbox, uid_validity, last_uid, uid_validity_changed, read, replies, auto_replies, bounces, unmatched, duplicates, enrollments_paused}, or {skipped} with the reason',
    }),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .openapi('Job');

const jobRoute = createRoute({
  method: 'get',
  path: '/api/companies/{company_id}/jobs/{job_id}',
  tags: ['Extensions'],
  summary: 'A background job of the company: its status, error and result',
  security: SECURITY,
  request: { params: idParams('job_id') },
  responses: { 200: json(Job, 'The job'), ...problems(401, 403, 404) },
});

export function jobRoutes() {
  return createRouter().openapi(jobRoute, async (c) => c.json(await getJob(c.var.engine.db, scopeOf(c).companyId, c.req.valid('param').job_id), 200));
}
