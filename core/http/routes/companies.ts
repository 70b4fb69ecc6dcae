import { createRoute, z } from '@hono/zod-openapi';
import { companiesOfUser } from '../../auth/memberships';
import { companySettings, setAsOfDate } from '../../companies/as-of';
import { requestFullRefresh } from '../../intelligence/jobs';
import { scopeOf } from '../context';
import { CompanyParams, createRouter, DateString, json, jsonBody, problems, SECURITY, withoutSlash } from '../openapi';
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

const CompanySettings = z
  .object({
    as_of_date: DateString.nullable().openapi({
      description: 'While set, analytics, predictions, signals and proposals count from this date instead of today (a ledger exported long ago); null: today',
    }),
  })
  .openapi('CompanySettings');

const CompanySettingsPatch = z
  .strictObject({ as_of_date: DateString.nullable().openapi({ description: 'A date not after today, or null to count from today again' }) })
  .openapi('CompanySettingsPatch');

const settingsPath = '/api/companies/{company_id}/settings';

const getSettingsRoute = createRoute({
  method: 'get',
  path: settingsPath,
  tags: ['Extensions'],
  summary: "The company's settings: the date its analytics and intelligence count from (extension)",
  security: SECURITY,
  request: { params: CompanyParams },
  responses: { 200: json(CompanySettings, 'The settings'), ...problems(401, 403, 404) },
});

const patchSettingsRoute = createRoute({
  method: 'patch',
  path: settingsPath,
  tags: ['Extensions'],
  summary: "Set or clear the company's as-of date; its intelligence is refreshed from that date (extension)",
  security: SECURITY,
  request: { params: CompanyParams, body: jsonBody(CompanySettingsPatch) },
  responses: { 200: json(CompanySettings, 'The saved settings'), ...problems(400, 401, 403, 404) },
});

export function companyRoutes() {
  const router = createRouter();
  for (const route of [listRoute, withoutSlash(listRoute)]) {
    router.openapi(route, async (c) => c.json({ companies: await companiesOfUser(c.var.engine.db, c.var.user.id) }, 200));
  }
  router.openapi(getSettingsRoute, async (c) => c.json(await companySettings(c.var.engine, scopeOf(c).companyId), 200));
  router.openapi(patchSettingsRoute, async (c) => {
    const scope = scopeOf(c);
    const settings = await setAsOfDate(c.var.engine, scope, c.req.valid('json').as_of_date);
    // Predictions, signals and proposals were made from the other date: made again from this one.
    await requestFullRefresh(c.var.engine, scope.companyId, scope.actor, 'on_demand');
    return c.json(settings, 200);
  });
  return router;
}
