import type { Engine } from '../engine';
import { AGING_BUCKET_LABELS, AGING_BUCKETS, type AgingBucket as AgingBucketKey } from '../invoices/status';
import { fromMinor } from '../money';

export type { AgingBucketKey };

/** The bucket of a number of days past due (as openStatus in core/invoices/status), in SQL, so grouping happens in the database. */
const BUCKET_SQL = `CASE WHEN d <= 0 THEN 'current' WHEN d <= 30 THEN '1_30' WHEN d <= 60 THEN '31_60' WHEN d <= 90 THEN '61_90' ELSE '91_over' END`;

/**
 * The invoices open at `asOf` with their balance then: for today, the stored balance of open
 * invoices; for a past date, the total less payments settled by that date, among invoices issued by
 * then and not yet closed by a credit memo or write-off.
 */
function openAtSql(isToday: boolean, fromOpenIndex = false): string {
  if (isToday) {
    // Totals need only customers, due dates and balances: 0097's partial index of open invoices
    // holds them (the planner would walk invoices_balance and read every row).
    return `SELECT i.id, i.invoice_number, i.customer_id, i.customer_name, i.invoice_date, i.due_date, i.balance,
                   cast(julianday(:asOf) - julianday(i.due_date) AS integer) AS d
            FROM invoices i${fromOpenIndex ? ' INDEXED BY invoices_open_forecast' : ''}
            WHERE i.company_id = :company AND i.closing_reason IS NULL AND i.balance > 0`;
  }
  return `SELECT * FROM (
            SELECT i.id, i.invoice_number, i.customer_id, i.customer_name, i.invoice_date, i.due_date,
                   i.total_amount - coalesce((SELECT sum(p.amount) FROM payments p
                      WHERE p.invoice_id = i.id AND p.status IN ('PAID','PARTIAL') AND p.payment_date <= :asOf), 0) AS balance,
                   cast(julianday(:asOf) - julianday(i.due_date) AS integer) AS d
            FROM invoices i
            WHERE i.company_id = :company AND i.invoice_date <= :asOf
              AND NOT (coalesce(i.closing_reason, '') IN ('credit_memo','written_off') AND coalesce(i.closed_date, '') <= :asOf)
          ) WHERE balance > 0`;
}

export interface BucketTotal {
  key: AgingBucketKey;
  label: string;
  balance: number;
  invoice_count: number;
  percent: number;
}

export interface AgingSummary {
  as_of: string;
  total_balance: number;
  overdue_balance: number;
  invoice_count: number;
  buckets: BucketTotal[];
}

/** Open balance (minor units) and invoice count of each bucket that has any, at `asOf`. */
type BucketRow = { bucket: AgingBucketKey; balance: number; n: number };

export function agingBucketRows(engine: Engine, companyId: string, asOf: string, today: string): BucketRow[] {
  return engine.database.sqlite
    .prepare(`SELECT ${BUCKET_SQL} AS bucket, sum(balance) AS balance, count(*) AS n FROM (${openAtSql(asOf === today, true)}) GROUP BY 1`)
    .all({ company: companyId, asOf }) as BucketRow[];
}

export function agingSummary(engine: Engine, companyId: string, asOf: string, today: string): AgingSummary {
  return summarise(asOf, agingBucketRows(engine, companyId, asOf, today));
}

function summarise(asOf: string, rows: BucketRow[]): AgingSummary {
  const by = new Map(rows.map((r) => [r.bucket, r]));
  const total = rows.reduce((s, r) => s + r.balance, 0);
  const buckets = AGING_BUCKETS.map((key) => {
    const balance = by.get(key)?.balance ?? 0;
    return { key, label: AGING_BUCKET_LABELS[key], balance: fromMinor(balance), invoice_count: by.get(key)?.n ?? 0, percent: total ? Math.round((balance / total) * 10000) / 100 : 0 };
  });
  return {
    as_of: asOf,
    total_balance: fromMinor(total),
    overdue_balance: fromMinor(rows.filter((r) => r.bucket !== 'current').reduce((s, r) => s + r.balance, 0)),
    invoice_count: rows.reduce((s, r) => s + r.n, 0),
    buckets,
  };
}

export interface AgingDetailsQuery {
  asOf: string;
  today: string;
  buckets: AgingBucketKey[];
  customerId?: string;
  groupBy: 'invoice' | 'customer';
  page: number;
  pageSize: number;
}

/**
 * One page of an ordered query and the number of all its rows, from one evaluation: the aging of
 * every open invoice (hundreds of thousands at 1M invoices) was computed once for the count and
 * again for the page. A page past the end still needs the count, so it is asked for apart.
 */
function pageWithCount(sqlite: Engine['database']['sqlite'], rowsSql: string, orderBy: string, params: Record<string, unknown>) {
  const rows = sqlite.prepare(`SELECT *, count(*) OVER () AS total_rows FROM (${rowsSql}) ORDER BY ${orderBy} LIMIT :limit OFFSET :offset`).all(params) as Array<Record<string, any>>;
  const count = rows.length ? (rows[0].total_rows as number) : (sqlite.prepare(`SELECT count(*) AS n FROM (${rowsSql})`).get(params) as { n: number }).n;
  return { count, rows };
}

/** Invoice-level (or per-customer) aging at a date, largest exposure first, paged. */
export function agingDetails(engine: Engine, companyId: string, q: AgingDetailsQuery) {
  const sqlite = engine.database.sqlite;
  const where: string[] = [];
  const params: Record<string, unknown> = { company: companyId, asOf: q.asOf, limit: q.pageSize, offset: (q.page - 1) * q.pageSize };
  if (q.buckets.length) where.push(`bucket IN (${q.buckets.map((_, i) => `:b${i}`).join(',')})`);
  q.buckets.forEach((b, i) => (params[`b${i}`] = b));
  if (q.customerId) {
    where.push('customer_id = :customer');
    params.customer = q.customerId;
  }
  // Grouped by customer, the rows need only what 0097's index of open invoices holds, in customer order.
  const base = `SELECT *, ${BUCKET_SQL} AS bucket FROM (${openAtSql(q.asOf === q.today, q.groupBy === 'customer')})`;
  const filtered = `SELECT * FROM (${base})${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`;
  if (q.groupBy === 'customer') {
    const grouped = `SELECT customer_id, customer_name,
        sum(CASE WHEN bucket = 'current' THEN balance ELSE 0 END) AS current,
        sum(CASE WHEN bucket = '1_30' THEN balance ELSE 0 END) AS b1_30,
        sum(CASE WHEN bucket = '31_60' THEN balance ELSE 0 END) AS b31_60,
        sum(CASE WHEN bucket = '61_90' THEN balance ELSE 0 END) AS b61_90,
        sum(CASE WHEN bucket = '91_over' THEN balance ELSE 0 END) AS b91_over,
        sum(balance) AS total, count(*) AS invoice_count
      FROM (${filtered}) GROUP BY customer_id, customer_name`;
    const { count, rows } = pageWithCount(sqlite, grouped, 'total DESC, customer_name, customer_id', params);
    return {
      count,
      page: q.page,
      page_size: q.pageSize,
      data: rows.map((r) => ({
        customer: r.customer_id,
        customer_name: r.customer_name,
        invoice_count: r.invoice_count,
        current: fromMinor(r.current),
        '1_30': fromMinor(r.b1_30),
        '31_60': fromMinor(r.b31_60),
        '61_90': fromMinor(r.b61_90),
        '91_over': fromMinor(r.b91_over),
        total: fromMinor(r.total),
      })),
    };
  }
  const { count, rows } = pageWithCount(sqlite, filtered, 'd DESC, balance DESC, id', params);
  return {
    count,
    page: q.page,
    page_size: q.pageSize,
    data: rows.map((r) => ({
      invoice: r.id,
      invoice_number: r.invoice_number,
      customer: r.customer_id,
      customer_name: r.customer_name,
      invoice_date: r.invoice_date,
      due_date: r.due_date,
      days_past_due: Math.max(0, r.d),
      aging_bucket: r.bucket as AgingBucketKey,
      balance: fromMinor(r.balance),
    })),
  };
}
