import { createRoute, z } from '@hono/zod-openapi';
import { today } from '../../clock';
import { workingDate } from '../../companies/as-of';
import { teamView, teamViewCsv } from '../../analytics/team-view';
import { ForbiddenError } from '../../errors';
import { fromMinor } from '../../money';
import type { Context } from 'hono';
import type { AppEnv } from '../env';
import { scopeOf } from '../context';
import { CompanyParams, createRouter, DateString, json, problems, SECURITY, Uuid } from '../openapi';
import { notInFuture } from './analytics';

const TAGS = ['Extensions'];
const Percent = (description: string) => z.number().nullable().openapi({ description });

const CollectorFigures = z
  .object({
    member_id: Uuid.nullable().openapi({ description: 'The team member; null for the customers with no AR owner' }),
    name: z.string(),
    customers: z.number().int(),
    open_balance: z.number().openapi({ description: "Open invoices' balances, major units" }),
    overdue_balance: z.number().openapi({ description: 'The part due before as_of, major units' }),
    touches: z.number().int().openapi({ description: 'Our emails, calls and notes on the book within the week' }),
    queue_backlog: z.number().int().openapi({ description: 'Sequence steps ready and waiting' }),
    promises_obtained: z.number().int().openapi({ description: 'Promises recorded within the week (a call or note with a promise date, a reply read as a promise)' }),
    promises_kept: z.number().int().openapi({ description: 'Promises judged kept within the week' }),
    promises_broken: z.number().int().openapi({ description: 'Promises judged broken within the week' }),
    promise_kept_rate: Percent('Kept of those judged within the week, percent; null when none'),
    cash_collected: z.number().openapi({ description: "Settled payments dated within the week on the book's invoices, major units" }),
    cei: Percent('Collection effectiveness index of the book, month to as_of, percent; null when nothing was collectable'),
    dso: z.number().nullable().openapi({ description: "The book's DSO at as_of (count-back), days; null before its first sale" }),
  })
  .openapi('CollectorFigures');

const TeamViewSchema = z
  .object({
    as_of: DateString,
    from: DateString.openapi({ description: 'The week: the 7 days from here to as_of' }),
    currency: z.string(),
    collectors: z.array(CollectorFigures),
  })
  .openapi('TeamView');

const Query = z.object({ as_of: DateString.optional().openapi({ description: "Default the company's as-of date, else today; not in the future" }) });

const viewRoute = createRoute({
  method: 'get',
  path: '/api/companies/{company_id}/team-view',
  tags: TAGS,
  summary: "Each collector's book and week, for managers and owners",
  description: 'Figures per AR owner (and the unassigned customers): balances now, the week ending as_of, CEI month to date and DSO. 403 manager_only for collectors and viewers. Customers move between books with POST customers/assign-ar-owner.',
  security: SECURITY,
  request: { params: CompanyParams, query: Query },
  responses: { 200: json(TeamViewSchema, 'The team view'), ...problems(400, 401, 403, 404) },
});

const csvRoute = createRoute({
  method: 'get',
  path: '/api/companies/{company_id}/team-view/export',
  tags: TAGS,
  summary: 'The team view as a CSV file',
  security: SECURITY,
  request: { params: CompanyParams, query: Query },
  responses: { 200: { description: 'The CSV file, one row per collector', content: { 'text/csv': { schema: z.string() } } }, ...problems(400, 401, 403, 404) },
});

/** Managers and owners see every collector's figures; a collector or a viewer does not. */
function requireManager(c: Context<AppEnv>): void {
  const role = c.var.membership.role;
  if (role !== 'owner' && role !== 'manager') throw new ForbiddenError('Only a manager or an owner of this company sees the team view', 'manager_only');
}

async function viewOf(c: Context<AppEnv>, asOfAsked: string | undefined) {
  requireManager(c);
  const { companyId } = scopeOf(c);
  const asOf = asOfAsked ?? workingDate(c.var.engine, companyId);
  notInFuture(asOf, today(c.var.engine.clock), 'as_of');
  return teamView(c.var.engine, companyId, asOf);
}

export function teamViewRoutes() {
  return createRouter()
    .openapi(viewRoute, async (c) => {
      const view = await viewOf(c, c.req.valid('query').as_of);
      const collectors = view.collectors.map((r) => ({ ...r, open_balance: fromMinor(r.open_balance), overdue_balance: fromMinor(r.overdue_balance), cash_collected: fromMinor(r.cash_collected) }));
      return c.json({ ...view, collectors }, 200);
    })
    .openapi(csvRoute, async (c) => {
      const view = await viewOf(c, c.req.valid('query').as_of);
      return c.body(teamViewCsv(view), 200, { 'content-type': 'text/csv; charset=utf-8', 'content-disposition': `attachment; filename="team-${view.as_of}.csv"` });
    });
}
