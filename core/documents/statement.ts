/**
 * Statement of account: a customer's open invoices as of a date with days past due, aging
 * subtotals and the total due, its recent payments and the company's payment instructions; in
 * "activity" mode also every invoice and payment between two dates.
 *
 * "Open as of" follows the aging report (core/analytics/aging.ts): for today, the stored balance
 * of open invoices; for a past date, the total less payments settled by then, among invoices
 * issued by then and not closed by a credit memo or write-off by then.
 */
import { sql } from 'kysely';
import type { Db } from '../db/connection';
import { NotFoundError, ValidationError } from '../errors';
import { AGING_BUCKET_LABELS, AGING_BUCKETS, type AgingBucket, agingBucketOfStatus, daysPastDue, openStatus } from '../invoices/status';
import { documentDetailsWithLogo, type DocumentDetailsWithLogo } from './details';
import { type Column, drawHead, finish, formatsFor, heading, methodWords, paragraph, type Row, safeFilePart, setRunningTitle, startDocument, table, totals } from './pdf';

/** How far back "recent payments" reach before the statement date, and how many at most. */
export const RECENT_PAYMENT_DAYS = 90;
export const RECENT_PAYMENT_LIMIT = 20;

export interface StatementInvoice {
  invoice_number: string;
  invoice_date: string;
  due_date: string;
  currency: string;
  total_amount: number;
  /** Paid (or otherwise settled) by the statement date. */
  paid: number;
  open: number;
}

export interface StatementPayment {
  payment_date: string;
  invoice_number: string;
  payment_method: string;
  currency: string;
  amount: number;
}

export interface ActivityEntry {
  date: string;
  kind: 'invoice' | 'payment';
  reference: string;
  currency: string;
  /** Invoices add to what is owed, payments take from it (minor units, positive). */
  charge: number;
  payment: number;
}

export interface StatementData {
  customer: { id: string; name: string; address: string[] };
  as_of: string;
  invoices: StatementInvoice[];
  payments: StatementPayment[];
  activity: { from: string; to: string; entries: ActivityEntry[] } | null;
}

export interface AgingLine {
  bucket: AgingBucket;
  label: string;
  open: number;
  count: number;
}

export interface CurrencyTotals {
  currency: string;
  aging: AgingLine[];
  total_due: number;
  overdue: number;
}

/** Aging subtotals and total due per currency (a customer billed in two currencies owes two sums). */
export function statementTotals(invoices: StatementInvoice[], asOf: string): CurrencyTotals[] {
  const byCurrency = new Map<string, CurrencyTotals>();
  for (const invoice of invoices) {
    let totals = byCurrency.get(invoice.currency);
    if (!totals) {
      totals = { currency: invoice.currency, aging: AGING_BUCKETS.map((bucket) => ({ bucket, label: AGING_BUCKET_LABELS[bucket], open: 0, count: 0 })), total_due: 0, overdue: 0 };
      byCurrency.set(invoice.currency, totals);
    }
    const days = daysPastDue(invoice.due_date, asOf);
    const line = totals.aging[AGING_BUCKETS.indexOf(agingBucketOfStatus(openStatus(days)))];
    line.open += invoice.open;
    line.count += 1;
    totals.total_due += invoice.open;
    if (days > 0) totals.overdue += invoice.open;
  }
  return [...byCurrency.values()].sort((a, b) => a.currency.localeCompare(b.currency));
}

/** The postal lines of a customer's first location, if it has one. */
async function customerAddress(db: Db, companyId: string, customerId: string): Promise<string[]> {
  const location = await db
    .selectFrom('customer_locations')
    .select(['address_line1', 'city', 'region', 'postal_code', 'country'])
    .where('company_id', '=', companyId)
    .where('customer_id', '=', customerId)
    .orderBy('created_at')
    .orderBy('id')
    .executeTakeFirst();
  if (!location) return [];
  const cityLine = [location.postal_code, location.city, location.region].filter(Boolean).join(' ');
  return [location.address_line1, cityLine, location.country].filter((line): line is string => Boolean(line));
}

export interface StatementRequest {
  asOf: string;
  /** Activity mode: every invoice and payment dated between these two days (inclusive). */
  from?: string | null;
  to?: string | null;
}

export function checkStatementRequest(request: StatementRequest): void {
  if ((request.from == null) !== (request.to == null)) throw new ValidationError('Give both ends of the activity period, or neither', { from: ['Give from and to together'] });
  if (request.from && request.to && request.from > request.to) throw new ValidationError('The activity period ends before it starts', { to: ['Must be on or after from'] });
}

export async function statementData(db: Db, companyId: string, customerId: string, request: StatementRequest, today: string): Promise<StatementData> {
  checkStatementRequest(request);
  const customer = await db.selectFrom('customers').select(['id', 'name']).where('company_id', '=', companyId).where('id', '=', customerId).executeTakeFirst();
  if (!customer) throw new NotFoundError('Customer', customerId);
  const asOf = request.asOf;
  // The same reading of "open at a date" as the aging report (see the file's comment).
  const invoices =
    asOf >= today
      ? await db
          .selectFrom('invoices')
          .select(['invoice_number', 'invoice_date', 'due_date', 'currency', 'total_amount', 'balance as open'])
          .select((eb) => eb('total_amount', '-', eb.ref('balance')).as('paid'))
          .where('company_id', '=', companyId)
          .where('customer_id', '=', customerId)
          .where('closing_reason', 'is', null)
          .where('balance', '>', 0)
          .where('invoice_date', '<=', asOf)
          .orderBy('due_date')
          .orderBy('invoice_number')
          .execute()
      : await sql<StatementInvoice>`
          SELECT invoice_number, invoice_date, due_date, currency, total_amount, total_amount - settled AS open, settled AS paid FROM (
            SELECT i.invoice_number, i.invoice_date, i.due_date, i.currency, i.total_amount,
                   coalesce((SELECT sum(p.amount) FROM payments p
                     WHERE p.invoice_id = i.id AND p.status IN ('PAID','PARTIAL') AND p.payment_date <= ${asOf}), 0) AS settled
            FROM invoices i
            WHERE i.company_id = ${companyId} AND i.customer_id = ${customerId} AND i.invoice_date <= ${asOf}
              AND NOT (coalesce(i.closing_reason, '') IN ('credit_memo','written_off') AND coalesce(i.closed_date, '') <= ${asOf}))
          WHERE total_amount - settled > 0
          ORDER BY due_date, invoice_number`
          .execute(db)
          .then((r) => r.rows);
  const since = new Date(Date.parse(`${asOf}T00:00:00Z`) - RECENT_PAYMENT_DAYS * 86_400_000).toISOString().slice(0, 10);
  const payments = await paymentsBetween(db, companyId, customerId, since, asOf, RECENT_PAYMENT_LIMIT);
  let activity: StatementData['activity'] = null;
  if (request.from && request.to) {
    const issued = await db
      .selectFrom('invoices')
      .select(['invoice_date as date', 'invoice_number as reference', 'currency', 'total_amount as charge'])
      .where('company_id', '=', companyId)
      .where('customer_id', '=', customerId)
      .where('invoice_date', '>=', request.from)
      .where('invoice_date', '<=', request.to)
      .execute();
    const paid = await paymentsBetween(db, companyId, customerId, request.from, request.to, null);
    const entries: ActivityEntry[] = [
      ...issued.map((i) => ({ date: i.date, kind: 'invoice' as const, reference: i.reference, currency: i.currency, charge: i.charge, payment: 0 })),
      ...paid.map((p) => ({ date: p.payment_date, kind: 'payment' as const, reference: p.invoice_number, currency: p.currency, charge: 0, payment: p.amount })),
    ].sort((a, b) => a.date.localeCompare(b.date) || (a.kind === b.kind ? a.reference.localeCompare(b.reference) : a.kind === 'invoice' ? -1 : 1));
    activity = { from: request.from, to: request.to, entries };
  }
  return { customer: { id: customer.id, name: customer.name, address: await customerAddress(db, companyId, customerId) }, as_of: asOf, invoices, payments, activity };
}

/** Settled payments of the customer's invoices dated from..to, newest first. */
function paymentsBetween(db: Db, companyId: string, customerId: string, from: string, to: string, limit: number | null): Promise<StatementPayment[]> {
  let query = db
    .selectFrom('payments as p')
    .innerJoin('invoices as i', 'i.id', 'p.invoice_id')
    .select(['p.payment_date', 'i.invoice_number', 'p.payment_method', 'i.currency', 'p.amount'])
    .where('p.company_id', '=', companyId)
    .where('i.company_id', '=', companyId)
    .where('i.customer_id', '=', customerId)
    .where('p.status', 'in', ['PAID', 'PARTIAL'])
    .where('p.payment_date', '>=', from)
    .where('p.payment_date', '<=', to)
    .orderBy('p.payment_date', 'desc')
    .orderBy('p.id');
  if (limit !== null) query = query.limit(limit);
  return query.execute();
}

export function renderStatement(data: StatementData, details: DocumentDetailsWithLogo): Promise<Buffer> {
  const f = formatsFor(details.locale);
  const title = 'Statement of account';
  const page = startDocument(details, `${title}: ${data.customer.name}`);
  const summary = statementTotals(data.invoices, data.as_of);
  const facts: Array<[string, string]> = [['Statement date', f.date(data.as_of)]];
  for (const t of summary) facts.push([summary.length > 1 ? `Total due (${t.currency})` : 'Total due', f.money(t.total_due, t.currency)]);
  let y = drawHead(page, details, title, facts);
  setRunningTitle(page, `${details.company_name} · ${title} · ${data.customer.name} · ${f.date(data.as_of)}`);

  y = heading(page, y, 'Account');
  page.doc.font('bold').text(data.customer.name, page.left, y, { width: page.width });
  y = page.doc.y;
  page.doc.font('regular');
  for (const line of data.customer.address) {
    page.doc.text(line, page.left, y, { width: page.width });
    y = page.doc.y;
  }
  y += 12;

  y = heading(page, y, 'Open invoices');
  if (data.invoices.length === 0) {
    y = paragraph(page, y, `There are no open invoices on this account as of ${f.date(data.as_of)}. Nothing is due.`);
  } else {
    const columns: Column[] = [
      { label: 'Invoice', share: 0.15 },
      { label: 'Invoice date', share: 0.135 },
      { label: 'Due date', share: 0.135 },
      { label: 'Days past due', share: 0.145, align: 'right' },
      { label: 'Amount', share: 0.15, align: 'right' },
      { label: 'Paid', share: 0.135, align: 'right' },
      { label: 'Open', share: 0.15, align: 'right' },
    ];
    const rows: Row[] = data.invoices.map((i) => {
      const days = daysPastDue(i.due_date, data.as_of);
      return { cells: [i.invoice_number, f.date(i.invoice_date), f.date(i.due_date), days > 0 ? String(days) : '', f.money(i.total_amount, i.currency), f.money(i.paid, i.currency), f.money(i.open, i.currency)] };
    });
    y = table(page, y, columns, rows);
    for (const t of summary) {
      const suffix = summary.length > 1 ? ` (${t.currency})` : '';
      y = heading(page, y, `Aging${suffix}`, 6 * 14 + 40);
      y = totals(page, y, [
        ...t.aging.map((line) => ({ label: `${line.label} (${line.count})`, value: f.money(line.open, t.currency) })),
        { label: 'Overdue', value: f.money(t.overdue, t.currency) },
        { label: `Total due${suffix}`, value: f.money(t.total_due, t.currency), bold: true },
      ]);
    }
  }

  if (data.activity) {
    const a = data.activity;
    y = heading(page, y, `Activity from ${f.date(a.from)} to ${f.date(a.to)}`);
    if (a.entries.length === 0) y = paragraph(page, y, 'No invoices were issued and no payments received in this period.');
    else
      y = table(
        page,
        y,
        [
          { label: 'Date', share: 0.18 },
          { label: 'Activity', share: 0.32 },
          { label: 'Invoiced', share: 0.25, align: 'right' },
          { label: 'Paid', share: 0.25, align: 'right' },
        ],
        a.entries.map((e) => ({
          cells: [f.date(e.date), e.kind === 'invoice' ? `Invoice ${e.reference}` : `Payment on ${e.reference}`, e.charge ? f.money(e.charge, e.currency) : '', e.payment ? f.money(e.payment, e.currency) : ''],
        })),
      );
  }

  y = heading(page, y, 'Recent payments');
  if (data.payments.length === 0) y = paragraph(page, y, `No payments received in the ${RECENT_PAYMENT_DAYS} days before ${f.date(data.as_of)}.`);
  else
    y = table(
      page,
      y,
      [
        { label: 'Date', share: 0.2 },
        { label: 'Invoice', share: 0.25 },
        { label: 'Method', share: 0.3 },
        { label: 'Amount', share: 0.25, align: 'right' },
      ],
      data.payments.map((p) => ({ cells: [f.date(p.payment_date), p.invoice_number, methodWords(p.payment_method), f.money(p.amount, p.currency)] })),
    );

  if (details.payment_instructions || details.portal_link) {
    y = heading(page, y, 'How to pay');
    if (details.payment_instructions) y = paragraph(page, y, details.payment_instructions);
    if (details.portal_link) y = paragraph(page, y, `Pay online: ${details.portal_link}`);
  }
  return finish(page, details);
}

/** The statement PDF of one customer, with the figures of this moment. */
export async function statementPdf(db: Db, companyId: string, customerId: string, request: StatementRequest, today: string): Promise<{ pdf: Buffer; fileName: string; data: StatementData }> {
  const data = await statementData(db, companyId, customerId, request, today);
  const details = await documentDetailsWithLogo(db, companyId);
  return { pdf: await renderStatement(data, details), fileName: statementFileName(data.customer.name, data.as_of), data };
}

export function statementFileName(customerName: string, asOf: string): string {
  return `Statement-${safeFilePart(customerName)}-${asOf}.pdf`;
}
