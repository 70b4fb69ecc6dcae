import { createRoute, z } from '@hono/zod-openapi';
import { NotFoundError } from '../../errors';
import { getRefreshJob, requestFullRefresh } from '../../intelligence/jobs';
import { actorOf } from '../context';
import { CompanyParams, createRouter, idParams, json, problems, SECURITY, Timestamp, Uuid } from '../openapi';

const TAG = 'Extensions';

const Progress = z.object({ done: z.number().int(), total: z.number().int() }).openapi('IntelligenceRefreshProgress');

const Report = z
  .object({
    customers: z.number().int(),
    insights_opened: z.number().int(),
    insights_closed: z.number().int(),
    insights_unchanged: z.number().int(),
    actions_proposed: z.number().int(),
    actions_cancelled: z.number().int(),
  })
  .openapi('IntelligenceRefreshReport');

const RefreshJob = z
  .object({
    id: Uuid,
    status: z.enum(['queued', 'running', 'succeeded', 'failed']),
    reason: z.enum(['on_demand', 'daily', 'changes']),
    progress: Progress.nullable().openapi({ description: 'Customers done of the total, while running and once finished' }),
    report: Report.nullable().openapi({ description: 'What the refresh wrote, once it succeeded' }),
    error: z.string().nullable(),
    queued_at: Timestamp,
    updated_at: Timestamp,
  })
  .openapi('IntelligenceRefreshJob');

const Accepted = z
  .object({
    job_id: Uuid,
    status: z.enum(['queued', 'running', 'succeeded', 'failed']),
    created: z.boolean().openapi({ description: 'false when a full refresh was already queued or running: that job is returned' }),
    progress_url: z.string().openapi({ description: 'GET it for the job’s status and progress' }),
  })
  .openapi('IntelligenceRefreshAccepted');

const refreshRoute = createRoute({
  method: 'post',
  path: '/api/companies/{company_id}/intelligence/refresh',
  tags: [TAG],
  summary: 'Recompute the company’s insights and recommended actions in the background',
  security: SECURITY,
  request: { params: CompanyParams },
  responses: { 202: json(Accepted, 'The refresh job (queued, or the one already pending)'), ...problems(401, 403) },
});

const progressRoute = createRoute({
  method: 'get',
  path: '/api/companies/{company_id}/intelligence/refresh/{job_id}',
  tags: [TAG],
  summary: 'Status and progress of an intelligence refresh',
  security: SECURITY,
  request: { params: idParams('job_id') },
  responses: { 200: json(RefreshJob, 'The refresh job'), ...problems(401, 403, 404) },
});

export function intelligenceRoutes() {
  const router = createRouter();

  router.openapi(refreshRoute, async (c) => {
    const companyId = c.req.valid('param').company_id;
    const { id, created } = await requestFullRefresh(c.var.engine, companyId, actorOf(c), 'on_demand');
    const job = await getRefreshJob(c.var.engine, companyId, id);
    const body = { job_id: id, status: job!.status, created, progress_url: `/api/companies/${companyId}/intelligence/refresh/${id}` };
    return c.json(body, 202, { Location: body.progress_url });
  });

  router.openapi(progressRoute, async (c) => {
    const { company_id: companyId, job_id: jobId } = c.req.valid('param');
    const job = await getRefreshJob(c.var.engine, companyId, jobId);
    if (!job) throw new NotFoundError('Refresh job', jobId);
    return c.json(job, 200);
  });

  return router;
}
