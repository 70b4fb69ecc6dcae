/**
 * What the models read, loaded set-based: the company's settled history in one streamed pass (the
 * pay-date model), then the rest per chunk of customers with one query per kind of record, never
 * one per invoice.
 */
import { daysBetween } from '../dates';
import type { ReadingKind } from '../db/schema';
import type { Engine } from '../engine';
import { PORTAL_VIEW_SUBJECT } from '../portal/submit';
import type { ReplyReading } from '../replies/reading';
import type { CensoredAge } from './conditional';
import { PayDateModel } from './pay-date';

/** A label the company marked as meaning a dispute (Settings › Labels) marks an invoice as disputed. */
export const DISPUTE_LABEL_SQL = `l.meaning = 'dispute'`;
/** Likewise a label marked as meaning a promise to pay: a promise on record, without a date. */
export const PROMISE_LABEL_SQL = `l.meaning = 'promise'`;

const DISPUTED_SQL = `EXISTS (SELECT 1 FROM invoice_labels il JOIN labels l ON l.id = il.label_id
  WHERE il.invoice_id = i.id AND l.company_id = i.company_id AND ${DISPUTE_LABEL_SQL})`;

const LAST_METHOD_SQL = `(SELECT p.payment_method FROM payments p WHERE p.invoice_id = i.id AND p.status IN ('PAID', 'PARTIAL')
  ORDER BY p.payment_date DESC, p.created_at DESC LIMIT 1)`;

export interface SettledInvoice {
  id: string;
  customerId: string;
  invoiceDate: string;
  dueDate: string;
  settledDate: string;
  disputed: boolean;
  method: string | null;
  /** How the bill was sent (paper, electronic), when known: a fact of the invoice from the day it was issued. */
  billChannel: string | null;
}

/** A settled invoice as the backtest replays it: when it became known to be disputed, not whether. */
export type HistoryInvoice = Omit<SettledInvoice, 'disputed'> & {
  /** The day from which the invoice was known to be disputed; null when it never was. */
  disputedSince: string | null;
};

type SettledRow = { id: string; customer_id: string; invoice_date: string; due_date: string; closed_date: string; disputed: number; method: string | null; bill_channel: string | null };

const toSettled = (r: SettledRow): SettledInvoice => ({
  id: r.id,
  customerId: r.customer_id,
  invoiceDate: r.invoice_date,
  dueDate: r.due_date,
  settledDate: r.closed_date,
  disputed: r.disputed === 1,
  method: r.method,
  billChannel: r.bill_channel,
});

const SETTLED_SQL = `SELECT i.id, i.customer_id, i.invoice_date, i.due_date, i.closed_date, i.bill_channel, ${DISPUTED_SQL} AS disputed, ${LAST_METHOD_SQL} AS method
  FROM invoices i WHERE i.company_id = ? AND i.closing_reason IN ('paid', 'overpaid') AND i.closed_date IS NOT NULL`;

/**
 * The same for some customers, by the customer index: without statistics the planner would walk
 * the company's due-date index instead, reading every invoice of the company.
 */
const SETTLED_OF_SQL = SETTLED_SQL.replace('FROM invoices i WHERE', 'FROM invoices i INDEXED BY invoices_customer WHERE');

/**
 * From which day each settled invoice was known to be disputed (the backtest's view): a dispute label
 * that came in the same write as the invoice (an import of history: the source system had it on the
 * record, undated) counts from the invoice date; one put on later, from the day it was put on.
 */
const DISPUTED_SINCE_SQL = `(SELECT MIN(CASE WHEN il.created_at <= i.created_at THEN i.invoice_date ELSE substr(il.created_at, 1, 10) END)
  FROM invoice_labels il JOIN labels l ON l.id = il.label_id
  WHERE il.invoice_id = i.id AND l.company_id = i.company_id AND ${DISPUTE_LABEL_SQL})`;

/** The settled history as the backtest replays it: each invoice with the day its dispute became known. */
export function loadBacktestHistory(engine: Pick<Engine, 'database'>, companyId: string): HistoryInvoice[] {
  const rows = engine.database.sqlite
    .prepare(SETTLED_SQL.replace(' AS disputed,', ` AS disputed, ${DISPUTED_SINCE_SQL} AS disputed_since,`))
    .all(companyId) as Array<SettledRow & { disputed_since: string | null }>;
  return rows.map((r) => ({
    id: r.id,
    customerId: r.customer_id,
    invoiceDate: r.invoice_date,
    dueDate: r.due_date,
    settledDate: r.closed_date,
    method: r.method,
    billChannel: r.bill_channel,
    disputedSince: r.disputed_since,
  }));
}

/**
 * A query read page by page in key order (`read(after)`: the page past that key, the first for
 * null; `size` rows a full page), awaiting `pause` between pages. Each page is read to its end
 * before the next, so the connection is free between pages for whatever else the process runs.
 */
async function* keysetPages<T>(read: (after: string | null) => T[], keyOf: (row: T) => string, size: number, pause: () => Promise<void>): AsyncGenerator<T[]> {
  let after: string | null = null;
  for (;;) {
    const rows = read(after);
    yield rows;
    if (rows.length < size) return;
    after = keyOf(rows[rows.length - 1]);
    await pause();
  }
}

/** Settled invoices per page of the fit: one page is a few tens of milliseconds of the event loop. */
export const FIT_PAGE_ROWS = 2_000;

/** Pages of the fit in the unique invoice-number index's order (the order the unpaged scan read them in, so the model learns in the same order). */
const FIT_SQL = `${SETTLED_SQL.replace('SELECT i.id,', 'SELECT i.id, i.invoice_number,').replace('FROM invoices i WHERE', 'FROM invoices i INDEXED BY invoices_number WHERE')} AND i.closed_date < ?`;

/**
 * The pay-date model fitted on everything settled before `today`, page by page, awaiting `pause`
 * between pages (the caller lets the event loop run: a fit at 1M invoices is half a minute).
 */
export async function fitPayDateModel(engine: Pick<Engine, 'database'>, companyId: string, today: string, pause: () => Promise<void>): Promise<PayDateModel> {
  const sqlite = engine.database.sqlite;
  const first = sqlite.prepare(`${FIT_SQL} ORDER BY i.invoice_number LIMIT ?`);
  const next = sqlite.prepare(`${FIT_SQL} AND i.invoice_number > ? ORDER BY i.invoice_number LIMIT ?`);
  const read = (after: string | null) =>
    (after === null ? first.all(companyId, today, FIT_PAGE_ROWS) : next.all(companyId, today, after, FIT_PAGE_ROWS)) as Array<SettledRow & { invoice_number: string }>;
  const model = new PayDateModel();
  for await (const rows of keysetPages(read, (r) => r.invoice_number, FIT_PAGE_ROWS, pause)) for (const row of rows) model.observe(toSettled(row));
  return model;
}

/** The settled invoices of some customers (to refresh their part of a cached model). */
export function loadSettledOf(engine: Pick<Engine, 'database'>, companyId: string, customerIds: string[], today: string): SettledInvoice[] {
  if (!customerIds.length) return [];
  const rows = engine.database.sqlite
    .prepare(`${SETTLED_OF_SQL} AND i.closed_date < ? AND i.customer_id IN (${marks(customerIds.length)})`)
    .all(companyId, today, ...customerIds) as SettledRow[];
  return rows.map(toSettled);
}

/**
 * The company's open invoices censored at their age today (conditional.ts), grouped by due date,
 * dispute and bill channel: one row per group, however many invoices.
 */
export function loadOpenAges(engine: Pick<Engine, 'database'>, model: PayDateModel, companyId: string, today: string): CensoredAge[] {
  const rows = engine.database.sqlite
    .prepare(
      `SELECT i.due_date, i.bill_channel, ${DISPUTED_SQL} AS disputed, count(*) AS n FROM invoices i
       WHERE i.company_id = ? AND i.closing_reason IS NULL GROUP BY i.due_date, i.bill_channel, disputed`,
    )
    .all(companyId) as { due_date: string; bill_channel: string | null; disputed: number; n: number }[];
  const out: CensoredAge[] = [];
  for (const r of rows) {
    const censored = { age: daysBetween(r.due_date, today), shift: model.shiftOf(r.disputed === 1, r.bill_channel) };
    for (let k = 0; k < r.n; k++) out.push(censored);
  }
  return out;
}

export interface OpenInvoice {
  id: string;
  customerId: string;
  number: string;
  invoiceDate: string;
  dueDate: string;
  currency: string;
  totalAmount: number;
  balance: number;
  /** How the bill was sent, when known. */
  billChannel: string | null;
  disputed: boolean;
  /**
   * When the dispute label was put on (the signal's detection time); null when it came in the same
   * write as the invoice (an import of history: the source had it, undated), so it is not "today".
   */
  disputedAt: string | null;
  /** The name of a label on it that the company marked as meaning a promise to pay; null when none. */
  promiseLabel: string | null;
  lastPaymentDate: string | null;
  lastTouchAt: string | null;
}

export interface CustomerFacts {
  id: string;
  name: string;
  currency: string;
  paymentTermsDays: number;
  openInvoices: OpenInvoice[];
  communications: Communication[];
  actions: ActionFact[];
  /** How the customer can be reached: what a proposal may ask the collector to do. */
  reach: Reach;
  /**
   * The days the customer opened their portal link, oldest first (the latest PORTAL_VIEW_DAYS):
   * "viewed but did not act" (signals.ts). Absent where facts are made by hand without a portal.
   */
  portalViews?: string[];
}

export interface Reach {
  /** A contact with a phone number. */
  phone: boolean;
  /** A contact with an email address not known to bounce. */
  email: boolean;
  /** The company has a default, active connection to send from. */
  emailConnection: boolean;
}

export interface Communication {
  id: string;
  invoiceId: string | null;
  kind: 'email' | 'call' | 'note';
  direction: 'outbound' | 'inbound' | 'internal';
  subject: string | null;
  body: string | null;
  occurredAt: string;
  authorName: string | null;
  /** A promise to pay logged with a call: its date, and amount in minor units. */
  promiseDate: string | null;
  promiseAmount: number | null;
  /** A reply's reading kept with it (0350); null for the rest and for replies recorded before. */
  reading: ReplyReading | null;
}

export interface ActionFact {
  id: string;
  invoiceId: string | null;
  actionType: 'email' | 'call' | 'task';
  status: string;
  triggerKey: string | null;
  executedAt: string | null;
  rejected: boolean;
  deleted: boolean;
  /** The invoices a decision on the customer as a whole lists (its metadata's invoice_ids): it decides for them too. */
  listedInvoiceIds?: string[];
}

/** Communications per customer the summaries read: the latest ones tell the current story. */
export const COMMUNICATIONS_PER_CUSTOMER = 50;

/**
 * A customer's look at their portal: the portal's own note (no author among the users). It is read
 * as a visit (`portalViews`), never as a communication: nobody contacted anybody, so it neither
 * counts as a touch nor speaks in the conversation summaries. One parameter: PORTAL_VIEW_SUBJECT.
 */
const PORTAL_VIEW_SQL = `c.kind = 'note' AND c.direction = 'internal' AND c.author_user_id IS NULL AND c.subject = ?`;

/** Portal visits (days) per customer the facts keep: enough to find the first one not acted on. */
export const PORTAL_VIEW_DAYS = 30;

/** Active customers per page of activeCustomerIds. */
const ACTIVE_PAGE_CUSTOMERS = 1_000;

/**
 * The customers by id (the primary key: `+company_id` keeps the planner off the company's name
 * index, which would sort every customer for each page) that have a balance, communications or
 * active insights.
 */
const ACTIVE_SQL = `SELECT c.id FROM customers c WHERE +c.company_id = ? AND c.id > ? AND (
    EXISTS (SELECT 1 FROM customer_invoice_totals t WHERE t.company_id = c.company_id AND t.customer_id = c.id AND t.balance != 0)
    OR EXISTS (SELECT 1 FROM communications m WHERE m.company_id = c.company_id AND m.customer_id = c.id)
    OR EXISTS (SELECT 1 FROM insights s WHERE s.company_id = c.company_id AND s.customer_id = c.id AND s.valid_to IS NULL))
  ORDER BY c.id LIMIT ?`;

/**
 * Customers that have open invoices, communications or engine actions: the ones the models speak
 * about, in id order, a page at a time with `pause` between pages.
 */
export async function activeCustomerIds(engine: Pick<Engine, 'database'>, companyId: string, pause: () => Promise<void>): Promise<string[]> {
  const page = engine.database.sqlite.prepare(ACTIVE_SQL);
  const read = (after: string | null) => page.all(companyId, after ?? '', ACTIVE_PAGE_CUSTOMERS) as { id: string }[];
  const ids: string[] = [];
  for await (const rows of keysetPages(read, (r) => r.id, ACTIVE_PAGE_CUSTOMERS, pause)) for (const r of rows) ids.push(r.id);
  return ids;
}

/** Everything the models need about a chunk of customers, in seven queries (invoices by the customer index, as above). */
export function loadCustomerFacts(engine: Pick<Engine, 'database'>, companyId: string, customerIds: string[]): CustomerFacts[] {
  if (!customerIds.length) return [];
  const sqlite = engine.database.sqlite;
  const m = marks(customerIds.length);
  const customers = sqlite
    // `+company_id`: without it the planner walks the company's whole name index (19 ms a chunk at
    // 50,000 customers) instead of looking each id up by its key (0.6 ms).
    .prepare(`SELECT id, name, currency, payment_terms_days FROM customers WHERE +company_id = ? AND id IN (${m})`)
    .all(companyId, ...customerIds) as { id: string; name: string; currency: string; payment_terms_days: number }[];
  const invoices = sqlite
    .prepare(
      `SELECT i.id, i.customer_id, i.invoice_number, i.invoice_date, i.due_date, i.currency, i.total_amount, i.balance, i.bill_channel, i.last_touch_at,
        ${DISPUTED_SQL} AS disputed,
        (SELECT min(il.created_at) FROM invoice_labels il JOIN labels l ON l.id = il.label_id
          WHERE il.invoice_id = i.id AND ${DISPUTE_LABEL_SQL} AND il.created_at > i.created_at) AS disputed_at,
        (SELECT min(l.name) FROM invoice_labels il JOIN labels l ON l.id = il.label_id
          WHERE il.invoice_id = i.id AND l.company_id = i.company_id AND ${PROMISE_LABEL_SQL}) AS promise_label,
        (SELECT max(p.payment_date) FROM payments p WHERE p.invoice_id = i.id AND p.status IN ('PAID', 'PARTIAL')) AS last_payment_date
       FROM invoices i INDEXED BY invoices_customer WHERE i.company_id = ? AND i.customer_id IN (${m}) AND i.closing_reason IS NULL
       ORDER BY i.customer_id, i.due_date, i.id`,
    )
    .all(companyId, ...customerIds) as {
    id: string;
    customer_id: string;
    invoice_number: string;
    invoice_date: string;
    due_date: string;
    currency: string;
    total_amount: number;
    balance: number;
    bill_channel: string | null;
    last_touch_at: string | null;
    disputed: number;
    disputed_at: string | null;
    promise_label: string | null;
    last_payment_date: string | null;
  }[];
  const comms = sqlite
    .prepare(
      `SELECT ${COMMUNICATION_COLUMNS} FROM (
         SELECT c.*, row_number() OVER (PARTITION BY c.customer_id ORDER BY c.occurred_at DESC, c.id DESC) AS rn
         FROM communications c WHERE c.company_id = ? AND c.customer_id IN (${m}) AND NOT (${PORTAL_VIEW_SQL}))
       WHERE rn <= ${COMMUNICATIONS_PER_CUSTOMER} ORDER BY customer_id, occurred_at, id`,
    )
    .all(companyId, ...customerIds, PORTAL_VIEW_SUBJECT) as CommunicationRow[];
  const actions = sqlite
    .prepare(
      `SELECT a.id, a.customer_id, a.invoice_id, a.action_type, a.status, a.trigger_key, a.executed_at, a.deleted_at,
        CASE WHEN a.invoice_id IS NULL THEN json_extract(a.metadata, '$.invoice_ids') END AS listed,
        EXISTS (SELECT 1 FROM action_approvals p WHERE p.action_id = a.id AND p.operation = 'reject') AS rejected
       FROM actions a WHERE a.company_id = ? AND a.customer_id IN (${m})`,
    )
    .all(companyId, ...customerIds) as {
    id: string;
    customer_id: string;
    invoice_id: string | null;
    action_type: ActionFact['actionType'];
    status: string;
    trigger_key: string | null;
    executed_at: string | null;
    deleted_at: string | null;
    listed: string | null;
    rejected: number;
  }[];
  const contacts = sqlite
    .prepare(
      `SELECT customer_id, max(coalesce(trim(phone), '') != '') AS phone, max(coalesce(email, '') LIKE '%@%' AND email_failed_at IS NULL) AS email
       FROM customer_contacts WHERE company_id = ? AND customer_id IN (${m}) GROUP BY customer_id`,
    )
    .all(companyId, ...customerIds) as { customer_id: string; phone: number; email: number }[];
  const reachable = new Map(contacts.map((c) => [c.customer_id, c]));
  // One view note per link a day: the days, distinct.
  const views = sqlite
    .prepare(
      `SELECT customer_id, day FROM (
         SELECT customer_id, day, row_number() OVER (PARTITION BY customer_id ORDER BY day DESC) AS rn FROM (
           SELECT DISTINCT c.customer_id, substr(c.occurred_at, 1, 10) AS day FROM communications c
           WHERE c.company_id = ? AND c.customer_id IN (${m}) AND ${PORTAL_VIEW_SQL}))
       WHERE rn <= ${PORTAL_VIEW_DAYS} ORDER BY customer_id, day`,
    )
    .all(companyId, ...customerIds, PORTAL_VIEW_SUBJECT) as { customer_id: string; day: string }[];
  const emailConnection = sqlite.prepare('SELECT 1 FROM email_connections WHERE company_id = ? AND is_default = 1 AND is_active = 1').get(companyId) !== undefined;
  const byId = new Map<string, CustomerFacts>();
  for (const c of customers) {
    const r = reachable.get(c.id);
    byId.set(c.id, {
      id: c.id,
      name: c.name,
      currency: c.currency,
      paymentTermsDays: c.payment_terms_days,
      openInvoices: [],
      communications: [],
      actions: [],
      reach: { phone: r?.phone === 1, email: r?.email === 1, emailConnection },
      portalViews: [],
    });
  }
  for (const r of invoices) {
    byId.get(r.customer_id)?.openInvoices.push({
      id: r.id,
      customerId: r.customer_id,
      number: r.invoice_number,
      invoiceDate: r.invoice_date,
      dueDate: r.due_date,
      currency: r.currency,
      totalAmount: r.total_amount,
      balance: r.balance,
      billChannel: r.bill_channel,
      disputed: r.disputed === 1,
      disputedAt: r.disputed_at,
      promiseLabel: r.promise_label,
      lastPaymentDate: r.last_payment_date,
      lastTouchAt: r.last_touch_at,
    });
  }
  for (const r of comms) {
    byId.get(r.customer_id)?.communications.push(communicationOf(r));
  }
  for (const r of views) byId.get(r.customer_id)?.portalViews?.push(r.day);
  for (const r of actions) {
    byId.get(r.customer_id)?.actions.push({
      id: r.id,
      invoiceId: r.invoice_id,
      actionType: r.action_type,
      status: r.status,
      triggerKey: r.trigger_key,
      executedAt: r.executed_at,
      rejected: r.rejected === 1,
      deleted: r.deleted_at !== null,
      listedInvoiceIds: listedIds(r.listed),
    });
  }
  return customerIds.map((id) => byId.get(id)).filter((c): c is CustomerFacts => c !== undefined);
}

/** A communication as the engine reads it from SQLite (the columns COMMUNICATION_COLUMNS names). */
export interface CommunicationRow {
  id: string;
  customer_id: string;
  invoice_id: string | null;
  kind: Communication['kind'];
  direction: Communication['direction'];
  subject: string | null;
  body: string | null;
  occurred_at: string;
  author_name: string | null;
  promise_date: string | null;
  promise_amount: number | null;
  reading_kind: ReadingKind | null;
  reading_date: string | null;
  reading_amount: number | null;
  reading_sentence: string | null;
}

export const COMMUNICATION_COLUMNS =
  'id, customer_id, invoice_id, kind, direction, subject, body, occurred_at, author_name, promise_date, promise_amount, reading_kind, reading_date, reading_amount, reading_sentence';

/** The engine's view of a communication row. */
export function communicationOf(r: CommunicationRow): Communication {
  return {
    id: r.id,
    invoiceId: r.invoice_id,
    kind: r.kind,
    direction: r.direction,
    subject: r.subject,
    body: r.body,
    occurredAt: r.occurred_at,
    authorName: r.author_name,
    promiseDate: r.promise_date,
    promiseAmount: r.promise_amount,
    reading: r.reading_kind === null ? null : { kind: r.reading_kind, date: r.reading_date, amount: r.reading_amount, sentence: r.reading_sentence },
  };
}

/** A customer-level action's invoice_ids (JSON written by the engine, the seed or an API caller): the strings of an array, else none. */
export function listedIds(json: string | null): string[] {
  if (json === null) return [];
  try {
    const v: unknown = JSON.parse(json);
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

export function marks(n: number): string {
  return new Array(n).fill('?').join(',');
}
