import { createRoute, z } from '@hono/zod-openapi';
import { companiesOfUser } from '../../auth/memberships';
import { companySettings, setAsOfDate } from '../../companies/as-of';
import { requestFullRefresh } from '../../intelligence/jobs';
import { createCompany } from '../../onboarding/company';
import { actorOf, scopeOf } from '../context';
import { CompanyParams, createRouter, DateString, json, jsonBody, problems, SECURITY, Text, withoutSlash } from '../openapi';
import { CompanyRef, CompanyRole } from './auth';

const CompanyList = z.object({ companies: z.array(CompanyRef).openapi({ description: "The caller's companies by name, each with the caller's role" }) }).openapi('CompanyList');

const listRoute = createRoute({
  method: 'get',
  path: '/api/v1/companies/',
  tags: ['Extensions'],
  summary: "The caller's companies with their role in each (extension)",
  security: SECURITY,
  responses: { 200: json(CompanyList, "The caller's companies"), ...problems(401) },
});

const NewCompanyBody = z
  .strictObject({
    name: Text(200).trim().min(1),
    currency: Text(3).optional().openapi({ description: 'ISO 4217 code; default USD' }),
    time_zone: Text(64).nullable().optional().openapi({ description: 'IANA time zone, e.g. Europe/Berlin' }),
    country: Text(2).nullable().optional().openapi({ description: 'ISO 3166-1 alpha-2 code, e.g. DE' }),
    legal_name: Text(200).nullable().optional(),
    address: Text(500).nullable().optional(),
    tax_id: Text(60).nullable().optional(),
    payment_instructions: Text(1000).nullable().optional(),
    footer: Text(500).nullable().optional(),
    locale: Text(35).optional().openapi({ description: 'Locale of its documents, e.g. en-GB; default en-US' }),
    paper: z.enum(['A4', 'Letter']).optional(),
  })
  .openapi('NewCompanyRequest');

const NewCompany = z
  .object({ id: z.string(), name: z.string(), currency: z.string(), time_zone: z.string().nullable(), country: z.string().nullable(), role: CompanyRole })
  .openapi('NewCompany');

const createRouteDef = createRoute({
  method: 'post',
  path: '/api/v1/companies/',
  operationId: 'createCompany',
  tags: ['Extensions'],
  summary: 'Create a company; the caller becomes its owner and joins its team (extension)',
  security: SECURITY,
  request: { body: jsonBody(NewCompanyBody) },
  responses: { 201: json(NewCompany, 'The new company, with the caller as owner'), ...problems(400, 401) },
});

const CompanySettings = z
  .object({
    as_of_date: DateString.nullable().openapi({
      description: 'While set, every page and figure (invoice list, customers, My work, actions, aging, metrics, forecast, insights, proposals) counts from this date instead of today (a ledger exported long ago); null: today',
    }),
  })
  .openapi('CompanySettings');

const CompanySettingsPatch = z
  .strictObject({
    as_of_date: DateString.nullable().openapi({
      description: "A date not after today and not before the ledger's last activity (its newest invoice or payment: 400 before_ledger_activity), or null to count from today again",
    }),
  })
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
  for (const route of [createRouteDef, withoutSlash(createRouteDef)]) {
    router.openapi(route, async (c) => {
      const { name, currency, time_zone, country, ...details } = c.req.valid('json');
      return c.json(await createCompany(c.var.engine, { ...actorOf(c), userId: c.var.user.id }, { name, currency, time_zone, country, details }), 201);
    });
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
