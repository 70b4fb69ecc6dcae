import { createRoute, z } from '@hono/zod-openapi';
import { companiesOfUser } from '../../auth/memberships';
import { createRouter, json, problems, SECURITY, withoutSlash } from '../openapi';
import { CompanyRef } from './auth';

const CompanyList = z.object({ companies: z.array(CompanyRef).openapi({ description: "The caller's companies by name, each with the caller's role" }) }).openapi('CompanyList');

const listRoute = createRoute({
  method: 'get',
  path: '/api/v1/companies/',
  tags: ['Extensions'],
  summary: "The caller's companies with their role in each (extension)",
  security: SECURITY,
  responses: { 200: json(CompanyList, "The caller's companies"), ...problems(401) },
});

export function companyRoutes() {
  const router = createRouter();
  for (const route of [listRoute, withoutSlash(listRoute)]) {
    router.openapi(route, async (c) => c.json({ companies: await companiesOfUser(c.var.engine.db, c.var.user.id) }, 200));
  }
  return router;
}
