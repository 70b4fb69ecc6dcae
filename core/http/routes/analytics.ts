import { createRoute, z } from '@hono/zod-openapi';
import { type AgingBucketKey, agingDetails, agingSummary } from '../../analytics/aging';
import { clampWeeks, DEFAULT_WEEKS, mondayOf } from '../../analytics/calendar';
import { buildForecast, DEFAULT_CUSTOMER_LIMIT, MAX_CUSTOMER_LIMIT } from '../../analytics/forecast';
import { loadForecastInput } from '../../analytics/forecast-data';
import { ledgerFreshness } from '../../analytics/freshness';
import { readForecastAccuracy } from '../../intelligence/forecast-accuracy';
import { agingCsv, agingReport, agingXlsx } from '../../analytics/report';
import { captureAgingSnapshot, snapshotDates, snapshotHistory } from '../../analytics/snapshots';
import { today } from '../../clock';
import { workingDate } from '../../companies/as-of';
import type { Engine } from '../../engine';
import { ValidationError } from '../../errors';
import { AGING_BUCKETS } from '../../invoices/status';
import { fromMinor } from '../../money';
import { scopeOf } from '../context';
import { CompanyParams, createRouter, DateString, json, jsonBody, problems, SECURITY, Timestamp, Uuid, UuidValue } from '../openapi';

const TAG = ['Analytics'];
const BUCKET_KEYS = AGING_BUCKETS;

const AsOfQuery = z.object({ as_of: DateString.optional().openapi({ description: "Aging at this date (default the company's as-of date, else today)" }) });

const BucketTotal = z.object({ key: z.enum(BUCKET_KEYS), label: z.string(), balance: z.number(), invoice_count: z.number().int(), percent: z.number() });
const AgingSummarySchema = z
  .object({ as_of: DateString, total_balance: z.number(), overdue_balance: z.number(), invoice_count: z.number().int(), buckets: z.array(BucketTotal) })
  .openapi('AgingSummary');

const DetailsQuery = AsOfQuery.extend({
  bucket: z
    .string()
    .optional()
    .openapi({ description: 'Comma-separated buckets: current, 1_30, 31_60, 61_90, 91_over' }),
  customer_id: UuidValue.optional(),
  group_by: z.enum(['invoice', 'customer']).optional(),
  page: z.coerce.number().int().min(1).default(1),
  page_size: z.coerce.number().int().min(1).max(500).default(50),
});

const AgingInvoiceRow = z.object({
  invoice: Uuid,
  invoice_number: z.string(),
  customer: Uuid,
  customer_name: z.string(),
  invoice_date: DateString,
  due_date: DateString,
  days_past_due: z.number().int(),
  aging_bucket: z.enum(BUCKET_KEYS),
  balance: z.number(),
});
const AgingCustomerRow = z.object({
  customer: Uuid,
  customer_name: z.string(),
  invoice_count: z.number().int(),
  current: z.number(),
  '1_30': z.number(),
  '31_60': z.number(),
  '61_90': z.number(),
  '91_over': z.number(),
  total: z.number(),
});
const AgingDetailsSchema = z
  .object({ count: z.number().int(), page: z.number().int(), page_size: z.number().int(), data: z.array(z.union([AgingInvoiceRow, AgingCustomerRow])) })
  .openapi('AgingDetails');

const SnapshotSchema = z
  .object({
    id: Uuid,
    snapshot_date: DateString,
    buckets: z.object({ current: z.number(), '1_30': z.number(), '31_60': z.number(), '61_90': z.number(), '91_over': z.number() }),
    total_balance: z.number(),
    invoice_count: z.number().int(),
    created_at: Timestamp,
  })
  .openapi('AgingSnapshot');

const ReportRow = z.object({
  bucket: z.string(),
  label: z.string(),
  balance: z.number(),
  balance_display: z.string(),
  invoice_count: z.number().int(),
  percent: z.number(),
  percent_display: z.string(),
});
const ReportSchema = z
  .object({
    title: z.string(),
    company_name: z.string(),
    currency: z.string(),
    as_of: DateString,
    generated_at: Timestamp,
    rows: z.array(ReportRow),
    total: z.object({ balance: z.number(), balance_display: z.string(), invoice_count: z.number().int() }),
    overdue: z.object({ balance: z.number(), balance_display: z.string(), percent: z.number(), percent_display: z.string() }),
  })
  .openapi('AgingReport');

const ExportBody = z
  .strictObject({ as_of: DateString.optional(), format: z.enum(['csv', 'xlsx']).default('csv') })
  .openapi('AgingExportRequest');

const ForecastQuery = z.object({
  // Any whole number is clamped (not refused), however large; an empty value means the default.
  weeks: z
    .string()
    .regex(/^([+-]?\d+)?$/, 'Must be a whole number')
    .optional()
    .openapi({ type: 'integer', default: DEFAULT_WEEKS, description: 'Default 13, clamped to 1..26' }),
  start_date: DateString.optional(),
  request_date: DateString.optional().openapi({ description: 'Alias of start_date' }),
  customer_offset: z.coerce.number().int().min(0).optional().openapi({ description: 'Extension: the first customer of the page (customers, table rows)' }),
  customer_limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_CUSTOMER_LIMIT)
    .optional()
    .openapi({ description: `Extension: customers per page, default ${DEFAULT_CUSTOMER_LIMIT}; the week totals cover every customer` }),
});

const SeriesMeta = z.object({ key: z.string(), label: z.string(), type: z.enum(['bar', 'line']), color: z.string(), color_background: z.string().optional() });
const Week = z.object({ week_index: z.number().int(), code: z.string(), label: z.string(), start_date: DateString, end_date: DateString });
const Wape = z.object({ wape: z.number().nullable() });
const ForecastAccuracySchema = z
  .object({
    weeks: z.number().int().openapi({ description: 'Weeks whose next week was forecast and scored; 0: too little history' }),
    from: DateString.nullable().openapi({ description: 'The first forecast replayed' }),
    to: DateString.nullable().openapi({ description: 'The end of the last week scored' }),
    reason: z.string().nullable().openapi({ description: 'Why nothing was measured (too little history, or a ledger larger than the replay reads), in words; null when something was' }),
    horizons: z.array(
      z.object({
        horizon_weeks: z.number().int(),
        weeks: z.number().int(),
        mape: z.number().nullable(),
        wape: z.number().nullable().openapi({ description: 'The sum of weekly absolute errors over the cash that came in; null when none came in' }),
        bias: z.number().nullable().openapi({ description: 'The sum of weekly signed errors over the cash that came in (above 0: forecast too high)' }),
        baselines: z.object({ due_date: Wape, run_rate: Wape }),
      }),
    ),
  })
  .openapi('CashflowForecastAccuracy');
const ForecastSchema = z
  .object({
    request_date: DateString,
    sidebar_label: z.string(),
    chart: z.object({ title: z.string(), x_axis_label: z.string(), y_axis_label: z.string(), series_meta: z.array(SeriesMeta) }),
    calendar: z.object({ week_start_day: z.literal('MONDAY'), num_weeks: z.number().int(), weeks: z.array(Week) }),
    time_series: z.object({
      x: z.array(z.string()),
      due_date_cash_inflows: z.array(z.number()),
      model_predicted_cash_inflows: z.array(z.number()),
      trailing_6m_avg_weekly_inflows: z.array(z.number()),
      promised_cash_inflows: z.array(z.number()).openapi({
        description: 'Extension: per week, what customers promised to pay then (promises that still stand: the latest per invoice, at the amount promised or the balance; one in its grace days counts in the first week). Not in series_meta, which keeps the three series the specification names',
      }),
      model_predicted_low: z.array(z.number()).openapi({ description: 'Extension: the low end of the 80% range of each week' }),
      model_predicted_high: z.array(z.number()).openapi({ description: 'Extension: the high end of the 80% range of each week' }),
      forecast_all_cash_in: z.array(z.number().nullable()).openapi({
        description:
          "Extension (issue 43): per week, the cash-in forecast whose accuracy `accuracy` gives (open invoices by how late the company's customers pay, promises, the invoices a week usually brings, averaged with the last 4 weeks' cash in), made on the week's Monday by the last full refresh; null beyond its 8 weeks or when not measured",
      }),
    }),
    model_predicted_total: z.number().openapi({ description: "Extension: the window's expected inflow, the sum of the invoices' expected amounts in it" }),
    week_customers: z
      .array(z.object({ code: z.string(), customer_count: z.number().int(), customers: z.array(z.object({ customer: Uuid, customer_name: z.string(), predicted: z.number() })) }))
      .openapi({ description: 'Extension: per week, how many customers are expected to pay in it and the largest five' }),
    customers_total: z.number().int().openapi({ description: 'Extension: customers with inflows in the window (customers is one page of them)' }),
    customer_offset: z.number().int(),
    customer_limit: z.number().int(),
    customers: z.array(
      z.object({
        customer: Uuid,
        customer_name: z.string(),
        total_due: z.number(),
        total_predicted: z.number(),
        weeks: z.array(z.object({ code: z.string(), due: z.number(), predicted: z.number() })),
      }),
    ),
    table_inflows_by_customer: z.object({
      columns: z.array(z.object({ key: z.string(), label: z.string() })),
      rows: z.array(z.record(z.string(), z.union([z.string(), z.number()]))),
      totals: z.record(z.string(), z.union([z.string(), z.number()])),
    }),
    accuracy: ForecastAccuracySchema.nullable().openapi({
      description: "Extension (issue 43): how far the weekly cash-in forecast landed from the cash that came in, replayed on the company's latest 13 weeks by the last full intelligence refresh; null before one ran",
    }),
  })
  .openapi('CashflowForecast');

const FreshnessSchema = z
  .object({
    newest_invoice_date: DateString.nullable(),
    newest_payment_date: DateString.nullable(),
    last_activity_date: DateString.nullable(),
    stale: z.boolean().openapi({ description: 'True when the newest invoice and payment are both more than stale_after_days before today' }),
    stale_after_days: z.number().int(),
    as_of_date: DateString.nullable().openapi({ description: "The company's as-of date (company settings): analytics and intelligence count from it instead of today while set" }),
  })
  .openapi('LedgerFreshness');

const route = <P extends string>(method: 'get' | 'post', path: P, summary: string) => ({ method, path, summary, tags: TAG, security: SECURITY });

const summaryRoute = createRoute({
  ...route('get', '/api/companies/{company_id}/ar-aging/summary', 'Open receivables by aging bucket'),
  request: { params: CompanyParams, query: AsOfQuery },
  responses: { 200: json(AgingSummarySchema, 'Aging by bucket'), ...problems(400, 401, 403, 404) },
});
const detailsRoute = createRoute({
  ...route('get', '/api/companies/{company_id}/ar-aging/details', 'Invoice-level aging (or per customer with group_by=customer)'),
  request: { params: CompanyParams, query: DetailsQuery },
  responses: { 200: json(AgingDetailsSchema, 'Aging rows, largest exposure first'), ...problems(400, 401, 403, 404) },
});
const historyRoute = createRoute({
  ...route('get', '/api/companies/{company_id}/ar-aging/history', 'Time series of aging snapshots'),
  request: { params: CompanyParams, query: z.object({ date_from: DateString.optional(), date_to: DateString.optional() }) },
  responses: { 200: json(z.object({ count: z.number().int(), data: z.array(SnapshotSchema) }), 'Snapshots, oldest first'), ...problems(400, 401, 403, 404) },
});
const datesRoute = createRoute({
  ...route('get', '/api/companies/{company_id}/ar-aging/available-dates', 'Dates that have an aging snapshot'),
  request: { params: CompanyParams },
  responses: { 200: json(z.object({ dates: z.array(DateString) }), 'Snapshot dates, newest first'), ...problems(401, 403, 404) },
});
const reportRoute = createRoute({
  ...route('get', '/api/companies/{company_id}/ar-aging/report-summary', 'Formatted point-in-time aging report'),
  request: { params: CompanyParams, query: AsOfQuery },
  responses: { 200: json(ReportSchema, 'The report'), ...problems(400, 401, 403, 404) },
});
const exportRoute = createRoute({
  ...route('post', '/api/companies/{company_id}/ar-aging/report-export', 'Generate the aging report as a CSV or XLSX file'),
  request: { params: CompanyParams, body: jsonBody(ExportBody, false) },
  responses: {
    200: {
      description: 'The file, as an attachment',
      content: {
        'text/csv': { schema: z.string() },
        'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': { schema: z.string().openapi({ format: 'binary' }) },
      },
    },
    ...problems(400, 401, 403, 404),
  },
});
const snapshotRoute = createRoute({
  method: 'post',
  path: '/api/companies/{company_id}/ar-aging/snapshots',
  summary: 'Take (or retake) the aging snapshot of a date',
  tags: ['Extensions'],
  security: SECURITY,
  request: { params: CompanyParams, body: jsonBody(z.strictObject({ snapshot_date: DateString.optional() }).openapi('AgingSnapshotRequest'), false) },
  responses: { 201: json(SnapshotSchema, 'The snapshot'), ...problems(400, 401, 403, 404) },
});
const forecastRoute = createRoute({
  ...route('get', '/api/companies/{company_id}/analytics/cashflow-forecast', 'Weekly cash flow forecast'),
  request: { params: CompanyParams, query: ForecastQuery },
  responses: { 200: json(ForecastSchema, 'The forecast'), ...problems(400, 401, 403, 404) },
});

const freshnessRoute = createRoute({
  ...route('get', '/api/companies/{company_id}/analytics/ledger-freshness', 'Extension: whether the ledger is fresh (its newest invoice and payment)'),
  request: { params: CompanyParams },
  responses: { 200: json(FreshnessSchema, 'The newest invoice and payment dates'), ...problems(401, 403, 404) },
});

function parseBuckets(value: string | undefined): AgingBucketKey[] {
  if (!value) return [];
  const parts = value.split(',').map((s) => s.trim()).filter(Boolean);
  const bad = parts.filter((p) => !(BUCKET_KEYS as readonly string[]).includes(p));
  if (bad.length) throw new ValidationError('Unknown aging bucket', { bucket: [`Unknown value(s): ${bad.join(', ')}; use ${BUCKET_KEYS.join(', ')}`] });
  return parts as AgingBucketKey[];
}

export function notInFuture(date: string, todayDate: string, field: string): void {
  if (date > todayDate) throw new ValidationError('The date is in the future', { [field]: ['Aging can only be computed up to today'] });
}

type SnapshotRow = Awaited<ReturnType<typeof snapshotHistory>>[number];
function snapshotOut(s: SnapshotRow) {
  return {
    id: s.id,
    snapshot_date: s.snapshot_date,
    buckets: {
      current: fromMinor(s.current_amount),
      '1_30': fromMinor(s.d1_30_amount),
      '31_60': fromMinor(s.d31_60_amount),
      '61_90': fromMinor(s.d61_90_amount),
      '91_over': fromMinor(s.d91_over_amount),
    },
    total_balance: fromMinor(s.total_amount),
    invoice_count: s.invoice_count,
    created_at: s.created_at,
  };
}

const EXPORT_ROW_LIMIT = 100_000;

/** The aging report at `asOf`, as the report and its export both show it. */
async function reportAt(engine: Engine, companyId: string, asOf: string, now: string) {
  const company = await engine.db.selectFrom('companies').select(['name', 'currency']).where('id', '=', companyId).executeTakeFirstOrThrow();
  return agingReport(agingSummary(engine, companyId, asOf, now), company.name, company.currency, engine.clock.now().toISOString());
}

export function analyticsRoutes() {
  return createRouter()
    .openapi(summaryRoute, async (c) => {
      const { companyId } = scopeOf(c);
      const now = today(c.var.engine.clock);
      const desk = workingDate(c.var.engine, companyId);
      const asOf = c.req.valid('query').as_of ?? desk;
      notInFuture(asOf, now, 'as_of');
      // At the working date the ledger's balances are current (it has nothing later): the same
      // open invoices as the desk. Another date is recomputed from the payments dated by then.
      return c.json(agingSummary(c.var.engine, companyId, asOf, desk), 200);
    })
    .openapi(detailsRoute, async (c) => {
      const { companyId } = scopeOf(c);
      const q = c.req.valid('query');
      const now = today(c.var.engine.clock);
      const desk = workingDate(c.var.engine, companyId);
      const asOf = q.as_of ?? desk;
      notInFuture(asOf, now, 'as_of');
      const result = agingDetails(c.var.engine, companyId, {
        asOf,
        today: desk,
        buckets: parseBuckets(q.bucket),
        customerId: q.customer_id,
        groupBy: q.group_by ?? 'invoice',
        page: q.page,
        pageSize: q.page_size,
      });
      return c.json(result, 200);
    })
    .openapi(historyRoute, async (c) => {
      const { companyId } = scopeOf(c);
      const { date_from, date_to } = c.req.valid('query');
      const rows = await snapshotHistory(c.var.engine.db, companyId, date_from, date_to);
      return c.json({ count: rows.length, data: rows.map(snapshotOut) }, 200);
    })
    .openapi(datesRoute, async (c) => c.json({ dates: await snapshotDates(c.var.engine.db, scopeOf(c).companyId) }, 200))
    .openapi(reportRoute, async (c) => {
      const { companyId } = scopeOf(c);
      const now = today(c.var.engine.clock);
      const desk = workingDate(c.var.engine, companyId);
      const asOf = c.req.valid('query').as_of ?? desk;
      notInFuture(asOf, now, 'as_of');
      const report = await reportAt(c.var.engine, companyId, asOf, desk);
      return c.json(report, 200);
    })
    .openapi(exportRoute, async (c) => {
      const { companyId } = scopeOf(c);
      const body = ExportBody.parse(c.req.valid('json') ?? {});
      const now = today(c.var.engine.clock);
      const desk = workingDate(c.var.engine, companyId);
      const asOf = body.as_of ?? desk;
      notInFuture(asOf, now, 'as_of');
      const report = await reportAt(c.var.engine, companyId, asOf, desk);
      const details = agingDetails(c.var.engine, companyId, { asOf, today: desk, buckets: [], groupBy: 'invoice', page: 1, pageSize: EXPORT_ROW_LIMIT });
      const rows = details.data as Array<z.infer<typeof AgingInvoiceRow>>;
      const name = `ar-aging-${asOf}.${body.format}`;
      if (body.format === 'xlsx') {
        const file = await agingXlsx(report, rows);
        return c.body(new Uint8Array(file), 200, {
          'content-type': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
          'content-disposition': `attachment; filename="${name}"`,
        });
      }
      return c.body(agingCsv(report, rows), 200, { 'content-type': 'text/csv; charset=utf-8', 'content-disposition': `attachment; filename="${name}"` });
    })
    .openapi(snapshotRoute, async (c) => {
      const { companyId, actor } = scopeOf(c);
      const now = today(c.var.engine.clock);
      const date = c.req.valid('json')?.snapshot_date ?? now;
      notInFuture(date, now, 'snapshot_date');
      await captureAgingSnapshot(c.var.engine, companyId, date, now, actor);
      const row = (await snapshotHistory(c.var.engine.db, companyId, date, date))[0];
      return c.json(snapshotOut(row), 201);
    })
    .openapi(freshnessRoute, (c) => c.json(ledgerFreshness(c.var.engine, scopeOf(c).companyId, today(c.var.engine.clock)), 200))
    .openapi(forecastRoute, async (c) => {
      const { companyId } = scopeOf(c);
      const q = c.req.valid('query');
      const requestDate = q.start_date ?? q.request_date ?? workingDate(c.var.engine, companyId);
      const weeks = q.weeks ? clampWeeks(Number(q.weeks)) : DEFAULT_WEEKS;
      const forecast = buildForecast(loadForecastInput(c.var.engine, companyId, requestDate, weeks, { offset: q.customer_offset, limit: q.customer_limit }));
      const measured = readForecastAccuracy(c.var.engine.database.sqlite, companyId);
      const byMonday = new Map((measured?.nextWeeks ?? []).map((w) => [w.week, w.amount]));
      const allCashIn = forecast.calendar.weeks.map((w) => {
        const amount = byMonday.get(mondayOf(w.start_date));
        return amount === undefined ? null : fromMinor(amount);
      });
      const accuracy = measured && { weeks: measured.weeks, from: measured.from, to: measured.to, horizons: measured.horizons, reason: measured.reason };
      return c.json({ ...forecast, time_series: { ...forecast.time_series, forecast_all_cash_in: allCashIn }, accuracy }, 200);
    });
}
