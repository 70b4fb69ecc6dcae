/**
 * Reading a statement of account's figures: open invoices as of a date with what was paid, recent
 * payments, and in "activity" mode every invoice and payment between two dates; capped in lines.
 * Loaded by the server and by a document thread (render-thread.ts), which reads a long statement on
 * a read-only connection of its own so the server's event loop never holds its rows: so this
 * module imports nothing of the engine.
 *
 * "Open as of" follows the aging report (core/analytics/aging.ts): for today, the stored balance
 * of open invoices; for a past date, the total less payments settled by then, among invoices
 * issued by then and not closed by a credit memo or write-off by then.
 */
import { sql } from 'kysely';
import type { Db } from '../db/connection';
import { DomainError, NotFoundError, ValidationError } from '../errors';
import { customerCredits } from '../payments/credits';
import { type ActivityEntry, RECENT_PAYMENT_DAYS, type StatementData, type StatementInvoice, type StatementPayment } from './draw-statement';
import { postalLines } from './postal';

/** How many recent payments a statement lists at most. */
export const RECENT_PAYMENT_LIMIT = 20;
/**
 * A PDF statement's cap: open invoices plus activity lines (about 48 a page, so some 3,000 pages).
 * Past it the statement is refused before it is drawn, pointing to the CSV or a shorter period.
 */
export const MAX_STATEMENT_LINES = 150_000;
/** The CSV statement's cap: no pages to draw, but the lines are still read into memory at once. */
export const MAX_CSV_STATEMENT_LINES = 500_000;

export class StatementTooLongError extends DomainError {
  constructor(max: number, format: 'pdf' | 'csv') {
    super(
      422,
      'statement_too_long',
      format === 'pdf'
        ? `This statement would list more than ${max.toLocaleString('en-US')} invoices and payments (over 3,000 pages), more than a PDF statement may hold. Download it as CSV (statement.csv), or ask for a shorter activity period (from and to).`
        : `This statement would list more than ${max.toLocaleString('en-US')} invoices and payments; ask for a shorter activity period (from and to).`,
    );
  }
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
  return location ? postalLines(location) : [];
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

/** The statement's figures; throws StatementTooLongError past `maxLines` lines, read no further than that. */
export async function statementData(db: Db, companyId: string, customerId: string, request: StatementRequest, today: string, maxLines = MAX_STATEMENT_LINES, format: 'pdf' | 'csv' = 'pdf'): Promise<StatementData> {
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
          .limit(maxLines + 1)
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
          ORDER BY due_date, invoice_number
          LIMIT ${maxLines + 1}`
          .execute(db)
          .then((r) => r.rows);
  if (invoices.length > maxLines) throw new StatementTooLongError(maxLines, format);
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
      .limit(maxLines + 1 - invoices.length)
      .execute();
    const paid = await paymentsBetween(db, companyId, customerId, request.from, request.to, maxLines + 1 - invoices.length - issued.length);
    if (invoices.length + issued.length + paid.length > maxLines) throw new StatementTooLongError(maxLines, format);
    const entries: ActivityEntry[] = [
      ...issued.map((i) => ({ date: i.date, kind: 'invoice' as const, reference: i.reference, currency: i.currency, charge: i.charge, payment: 0 })),
      ...paid.map((p) => ({ date: p.payment_date, kind: 'payment' as const, reference: p.invoice_number, currency: p.currency, charge: 0, payment: p.amount })),
    ].sort((a, b) => a.date.localeCompare(b.date) || (a.kind === b.kind ? a.reference.localeCompare(b.reference) : a.kind === 'invoice' ? -1 : 1));
    activity = { from: request.from, to: request.to, entries };
  }
  const credits = await customerCredits(db, companyId, customerId, asOf);
  return { customer: { id: customer.id, name: customer.name, address: await customerAddress(db, companyId, customerId) }, as_of: asOf, invoices, payments, activity, credits };
}

/** Settled payments of the customer's invoices dated from..to, newest first. */
function paymentsBetween(db: Db, companyId: string, customerId: string, from: string, to: string, limit: number): Promise<StatementPayment[]> {
  return db
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
    .orderBy('p.id')
    .limit(limit)
    .execute();
}
