/**
 * The team view: each collector's book (the customers whose AR owner they are), its balances, the
 * week's work and its collection metrics, for managers and owners. Every figure is a sum or count
 * over rows, so it can be recomputed from them (see "The team view" in core/SPEC-DECISIONS.md):
 * - open / overdue balance: open invoices' balances (overdue: due before the date);
 * - touches: our emails, calls (either way) and notes on the book within the week;
 * - queue backlog: sequence steps due by the date (ready, or due and not yet marked) of enrollments not paused;
 * - promises obtained: promises recorded in the week (a call or note with a promise date, a reply
 *   read as a promise); kept and broken: promises judged in the week (promise_followups);
 * - cash collected: settled payments (PAID, PARTIAL) dated in the week on the book's invoices;
 * - CEI (month to date) and DSO (count-back) over the book's invoices and payments, as the
 *   company's metrics compute them (metrics.ts).
 * The week is the 7 days ending at the date. Unassigned customers are a row of their own.
 * The money figures come from the sums kept per owner and day (migration 0470, team-books.ts), the
 * week's counts from index ranges of the week: nothing reads every invoice (README.md, the bench).
 */
import { addDays, monthOf, monthStart } from '../dates';
import type { Engine } from '../engine';
import { yieldToEventLoop } from '../yielding';
import { collectionEffectiveness, countBackDso, promiseKeptRate } from './metrics';
import { type BookDay, type BookDue, type BookFigures, bookFigures, type LeftOutRow } from './team-books';

export interface CollectorFigures {
  /** The team member; null for customers with no AR owner. */
  member_id: string | null;
  name: string;
  customers: number;
  /** Minor units. */
  open_balance: number;
  overdue_balance: number;
  touches: number;
  queue_backlog: number;
  promises_obtained: number;
  promises_kept: number;
  promises_broken: number;
  /** Percent of the promises judged in the week that were kept; null when none was judged. */
  promise_kept_rate: number | null;
  /** Minor units. */
  cash_collected: number;
  cei: number | null;
  dso: number | null;
}

export interface TeamView {
  as_of: string;
  /** The week: the 7 days ending at as_of. */
  from: string;
  currency: string;
  collectors: CollectorFigures[];
}

type Sqlite = Engine['database']['sqlite'];

/** The days' bounds as stored timestamps (UTC). */
const startOf = (date: string) => `${date}T00:00:00.000Z`;
const endOf = (date: string) => `${date}T23:59:59.999Z`;

/**
 * owner -> value, for one grouped query (owner '' stands for no owner). Each query hands the event
 * loop back after it, so other requests go between the view's reads.
 */
async function byOwner(sqlite: Sqlite, query: string, params: Record<string, string>): Promise<Map<string, number>> {
  const rows = sqlite.prepare(query).all(params) as Array<{ owner: string; value: number }>;
  await yieldToEventLoop();
  return new Map(rows.map((r) => [r.owner, r.value]));
}

/**
 * The books' money from the sums the triggers keep per owner and day (0470): a few thousand rows
 * at a million invoices, and the left-out invoices closed after the opening date (a month's).
 */
async function books(sqlite: Sqlite, companyId: string, range: { from: string; asOf: string; opening: string }): Promise<Map<string, BookFigures>> {
  const days = sqlite.prepare('SELECT owner_id AS owner, day, sales, collected, receivable FROM team_book_days WHERE company_id = ?').all(companyId) as BookDay[];
  const dues = sqlite.prepare('SELECT owner_id AS owner, due_date AS due, day, receivable FROM team_book_dues WHERE company_id = ? AND due_date >= ?').all(companyId, range.asOf) as BookDue[];
  await yieldToEventLoop();
  // Closed after the opening with something paid (the days hold those with nothing paid), a week of
  // closing dates per read with the event loop handed back between, or with no closing date: ranges
  // of the covering invoices_closed_irregular.
  const leftOut = sqlite.prepare(
    `SELECT i.id, coalesce(c.ar_owner_id, '') AS owner, i.invoice_date, i.due_date, i.closed_date, i.total_amount, p.payment_date, p.amount
     FROM invoices i INDEXED BY invoices_closed_irregular JOIN customers c ON c.id = i.customer_id
     LEFT JOIN payments p ON p.invoice_id = i.id AND p.status IN ('PAID','PARTIAL')
     WHERE i.company_id = :company AND i.closing_reason IN ('overpaid','credit_memo','written_off') AND i.total_amount > 0
       AND i.closed_date > :after AND i.closed_date <= :until AND i.invoice_date <= :asOf AND i.paid_amount <> 0`,
  );
  const undated = sqlite.prepare(
    `SELECT i.id, coalesce(c.ar_owner_id, '') AS owner, i.invoice_date, i.due_date, i.closed_date, i.total_amount, p.payment_date, p.amount
     FROM invoices i INDEXED BY invoices_closed_irregular JOIN customers c ON c.id = i.customer_id
     LEFT JOIN payments p ON i.paid_amount <> 0 AND p.invoice_id = i.id AND p.status IN ('PAID','PARTIAL')
     WHERE i.company_id = :company AND i.closing_reason IN ('overpaid','credit_memo','written_off') AND i.total_amount > 0
       AND i.closed_date IS NULL AND i.invoice_date <= :asOf`,
  );
  const left = undated.all({ company: companyId, asOf: range.asOf }) as LeftOutRow[];
  const latest = sqlite
    .prepare(
      `SELECT closed_date AS d FROM invoices INDEXED BY invoices_closed_irregular WHERE company_id = ? AND closing_reason IN ('overpaid','credit_memo','written_off') AND total_amount > 0
       AND closed_date IS NOT NULL ORDER BY closed_date DESC LIMIT 1`,
    )
    .get(companyId) as { d: string } | undefined;
  // Weeks up to as_of (about five); whatever closes later (for as_of today, nothing) in one read.
  for (let after = range.opening; latest && after < latest.d; ) {
    const until = after < range.asOf ? addDays(after, 7) : '9999-12-31';
    left.push(...(leftOut.all({ company: companyId, after, until, asOf: range.asOf }) as LeftOutRow[]));
    await yieldToEventLoop();
    after = until;
  }
  return bookFigures(days, dues, left, range);
}

export async function teamView(engine: Pick<Engine, 'db' | 'database'>, companyId: string, asOf: string): Promise<TeamView> {
  const sqlite = engine.database.sqlite;
  const from = addDays(asOf, -6);
  const week = { company: companyId, from: startOf(from), to: endOf(asOf) };
  const company = await engine.db.selectFrom('companies').select('currency').where('id', '=', companyId).executeTakeFirstOrThrow();
  const members = await engine.db.selectFrom('team_members').select(['id', 'name', 'role', 'is_active']).where('company_id', '=', companyId).orderBy('name').orderBy('id').execute();
  const own = `coalesce(c.ar_owner_id, '')`;
  // Every direction is listed so the week is read through communications_direction (company, direction, occurred_at).
  const inWeek = `m.company_id = :company AND m.direction IN ('outbound','inbound','internal') AND m.occurred_at BETWEEN :from AND :to`;

  // Grouped by the column itself, so the covering index customers_ar_owner is read in order (no sort).
  const owners = sqlite.prepare('SELECT ar_owner_id AS owner, count(*) AS value FROM customers WHERE company_id = ? GROUP BY ar_owner_id').all(companyId) as Array<{ owner: string | null; value: number }>;
  const customers = new Map(owners.map((r) => [r.owner ?? '', r.value]));
  await yieldToEventLoop();
  const touches = await byOwner(
    sqlite,
    `SELECT ${own} AS owner, count(*) AS value FROM communications m JOIN customers c ON c.id = m.customer_id
     WHERE ${inWeek} AND (m.kind IN ('call','note') OR (m.kind = 'email' AND m.direction = 'outbound')) GROUP BY 1`,
    week,
  );
  // Ready, or due and not yet marked ready (the Queue marks them when it is read), of an enrollment not paused.
  const backlog = await byOwner(
    sqlite,
    `SELECT ${own} AS owner, count(*) AS value FROM scheduled_steps s JOIN customers c ON c.id = s.customer_id JOIN sequence_enrollments e ON e.id = s.enrollment_id
     WHERE s.company_id = :company AND s.status IN ('ready','scheduled') AND (s.status = 'ready' OR s.scheduled_at <= :to) AND e.paused_kind IS NULL GROUP BY 1`,
    { company: companyId, to: endOf(asOf) },
  );
  const obtained = await byOwner(
    sqlite,
    `SELECT ${own} AS owner, count(*) AS value FROM communications m JOIN customers c ON c.id = m.customer_id
     WHERE ${inWeek} AND (m.promise_date IS NOT NULL OR (m.direction = 'inbound' AND m.reading_kind = 'promise')) GROUP BY 1`,
    week,
  );
  const judged = (outcome: string) =>
    byOwner(
      sqlite,
      `SELECT ${own} AS owner, count(*) AS value FROM promise_followups f JOIN customers c ON c.id = f.customer_id
       WHERE f.company_id = :company AND f.outcome = '${outcome}' AND f.judged_at BETWEEN :from AND :to GROUP BY 1`,
      week,
    );
  const kept = await judged('kept');
  const broken = await judged('broken');
  const money = await books(sqlite, companyId, { from, asOf, opening: addDays(monthStart(monthOf(asOf)), -1) });

  const figures = (memberId: string | null, name: string): CollectorFigures => {
    const key = memberId ?? '';
    const book = money.get(key);
    const sales = book?.sales ?? new Map<string, number>();
    const end = book?.closing ?? { total: 0, current: 0 };
    const k = kept.get(key) ?? 0;
    const b = broken.get(key) ?? 0;
    return {
      member_id: memberId,
      name,
      customers: customers.get(key) ?? 0,
      open_balance: book?.open ?? 0,
      overdue_balance: book?.overdue ?? 0,
      touches: touches.get(key) ?? 0,
      queue_backlog: backlog.get(key) ?? 0,
      promises_obtained: obtained.get(key) ?? 0,
      promises_kept: k,
      promises_broken: b,
      promise_kept_rate: promiseKeptRate([...Array<{ kept: boolean }>(k).fill({ kept: true }), ...Array<{ kept: boolean }>(b).fill({ kept: false })]),
      cash_collected: book?.collected ?? 0,
      cei: collectionEffectiveness({ opening: book?.opening ?? 0, sales: sales.get(monthOf(asOf)) ?? 0, closingTotal: end.total, closingCurrent: end.current }),
      dso: countBackDso(end.total, asOf, sales),
    };
  };
  // Every AR collector, and anyone else who owns customers (a manager with a book, an inactive owner).
  const collectors = members.filter((m) => (m.role === 'ar' && m.is_active === 1) || customers.has(m.id)).map((m) => figures(m.id, m.name));
  if (customers.has('')) collectors.push(figures(null, 'Unassigned'));
  return { as_of: asOf, from, currency: company.currency, collectors };
}

const CSV_COLUMNS: Array<[keyof CollectorFigures, string]> = [
  ['name', 'Collector'],
  ['customers', 'Customers'],
  ['open_balance', 'Open balance'],
  ['overdue_balance', 'Overdue balance'],
  ['touches', 'Touches (7 days)'],
  ['queue_backlog', 'Queue backlog'],
  ['promises_obtained', 'Promises obtained'],
  ['promises_kept', 'Promises kept'],
  ['promises_broken', 'Promises broken'],
  ['promise_kept_rate', 'Promise-kept rate (%)'],
  ['cash_collected', 'Cash collected'],
  ['cei', 'CEI (%)'],
  ['dso', 'DSO (days)'],
];
const MONEY = new Set<keyof CollectorFigures>(['open_balance', 'overdue_balance', 'cash_collected']);

/** A cell as text: amounts in major units; a leading formula sign is quoted away (a name is the customer's text). */
function cell(value: string | number | null, money: boolean): string {
  if (value === null) return '';
  if (typeof value === 'number') return money ? (value / 100).toFixed(2) : String(value);
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** The team view as CSV: one row per collector, the columns the page shows. */
export function teamViewCsv(view: TeamView): string {
  const lines = [CSV_COLUMNS.map(([, title]) => title).join(',')];
  for (const c of view.collectors) lines.push(CSV_COLUMNS.map(([key]) => cell(c[key], MONEY.has(key))).join(','));
  return `${lines.join('\r\n')}\r\n`;
}
