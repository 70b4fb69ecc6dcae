import { createRoute, z } from '@hono/zod-openapi';
import { ceiHeadlineMonth, monthsApart } from '../../analytics/metrics';
import { metricsReport } from '../../analytics/metrics-report';
import { monthEnd, monthOf } from '../../dates';
import { ValidationError } from '../../errors';
import { today } from '../../clock';
import { workingDate } from '../../companies/as-of';
import { scopeOf } from '../context';
import { CompanyParams, createRouter, DateString, json, problems, SECURITY } from '../openapi';
import { notInFuture } from './analytics';

const MAX_MONTHS = 24;

const Metric = (description: string) => z.number().nullable().openapi({ description });
const MonthMetrics = z.object({
  dso: Metric('Days sales outstanding, count-back method; null before any sale'),
  best_possible_dso: Metric('The same count-back over receivables not yet past due'),
  average_days_delinquent: Metric('dso - best_possible_dso'),
  cei: Metric('Collection effectiveness index of the month (to as_of in its month), percent; null when nothing was collectable'),
  promise_kept_rate: Metric('Percent of the promises to pay dated in the month and judged (the day after their date plus the grace days) which were kept; null when none was judged'),
});
const MetricsSchema = z
  .object({
    as_of: DateString,
    currency: z.string(),
    current: MonthMetrics.openapi({ description: 'The month of as_of: DSO figures at as_of, CEI and promise rate month to date' }),
    headline_cei: z
      .object({
        month: z.string().openapi({ example: '2026-10' }),
        cei: Metric('CEI of that whole month, percent; null when nothing was collectable'),
        period: z.enum(['last_complete_month', 'chosen_month']),
      })
      .openapi({ description: 'CEI over a whole month: the last month complete at as_of (its own month when as_of is its last day), or cei_month' }),
    trend: z.array(MonthMetrics.extend({ month: z.string().openapi({ example: '2026-11' }) })).openapi({ description: 'One entry per month, oldest first, ending with the month of as_of' }),
  })
  .openapi('CollectionMetrics');

const metricsRoute = createRoute({
  method: 'get',
  path: '/api/companies/{company_id}/analytics/metrics',
  tags: ['Extensions'],
  summary: 'Collection metrics: DSO, best possible DSO, average days delinquent, CEI and promise-to-pay kept rate, with a monthly trend (extension)',
  security: SECURITY,
  request: {
    params: CompanyParams,
    query: z.object({
      as_of: DateString.optional().openapi({ description: "Default the company's as-of date, else today; not in the future" }),
      months: z.coerce.number().int().min(1).max(MAX_MONTHS).default(12).openapi({ description: `Months of trend, 1..${MAX_MONTHS} (default 12)` }),
      cei_month: z
        .string()
        .regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'Must be a month YYYY-MM')
        .optional()
        .openapi({ description: `The whole month the headline CEI covers (YYYY-MM): complete at as_of, at most ${MAX_MONTHS} months back; default the last complete month` }),
    }),
  },
  responses: { 200: json(MetricsSchema, 'The metrics'), ...problems(400, 401, 403, 404) },
});

export function metricsRoutes() {
  return createRouter().openapi(metricsRoute, async (c) => {
    const { companyId } = scopeOf(c);
    const q = c.req.valid('query');
    const now = today(c.var.engine.clock);
    const asOf = q.as_of ?? workingDate(c.var.engine, companyId);
    notInFuture(asOf, now, 'as_of');
    const month = ceiHeadlineMonth(asOf, q.cei_month);
    const back = monthsApart(month, monthOf(asOf));
    if (monthEnd(month) > asOf) {
      throw new ValidationError(`${month} is not complete on ${asOf}: pick a month that has ended`, { cei_month: ['Must be a month complete on as_of'] });
    }
    if (back >= MAX_MONTHS) throw new ValidationError(`${month} is more than ${MAX_MONTHS} months before ${asOf}`, { cei_month: [`Must be within ${MAX_MONTHS} months of as_of`] });
    // The trend asked for, reaching back far enough to hold the headline's month.
    const report = await metricsReport(c.var.engine, companyId, asOf, Math.max(q.months, back + 1), now);
    const whole = report.trend.find((t) => t.month === month);
    return c.json(
      {
        ...report,
        trend: report.trend.slice(-q.months),
        headline_cei: { month, cei: whole?.cei ?? null, period: q.cei_month ? ('chosen_month' as const) : ('last_complete_month' as const) },
      },
      200,
    );
  });
}
