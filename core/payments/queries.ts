/**
 * Reading payments: the spec's payment object, the company-wide list and one invoice's payments.
 * Lists are newest first by payment date, ties by id descending (ids are UUIDv7, so that is the
 * order of creation).
 */
import { sql } from 'kysely';
import type { Db } from '../db/connection';
import type { Payment, PaymentStatus } from '../db/schema';
import { NotFoundError } from '../errors';
import { fromMinor } from '../money';

export interface PaymentDto {
  id: string;
  invoice: string;
  invoice_number: string;
  company: string;
  payment_type: string;
  amount: number;
  payment_date: string;
  payment_method: string;
  transaction_id: string | null;
  remote_id: string | null;
  status: PaymentStatus;
  notes: string | null;
  /** Why it was last voided, settled or failed; null when no one said. */
  status_reason: string | null;
  created_at: string;
}

export interface PaymentList {
  count: number;
  data: PaymentDto[];
}

export interface PaymentFilters {
  status?: PaymentStatus;
  /** Already normalised (see normalizePaymentMethod). */
  paymentMethod?: string;
  dateFrom?: string;
  dateTo?: string;
  /** Only the payments on this customer's invoices. */
  customerId?: string;
}

export interface OffsetPage {
  limit: number;
  offset: number;
}

export const PAYMENT_PAGE_DEFAULT = 100;
export const PAYMENT_PAGE_MAX = 1000;

const PAYMENT_COLUMNS = [
  'id',
  'invoice_id',
  'company_id',
  'payment_type',
  'amount',
  'payment_date',
  'payment_method',
  'transaction_id',
  'remote_id',
  'status',
  'notes',
  'status_reason',
  'created_at',
] as const;

type PaymentRow = Pick<Payment, (typeof PAYMENT_COLUMNS)[number]> & { invoice_number: string };

function toPaymentDto(row: PaymentRow): PaymentDto {
  return {
    id: row.id,
    invoice: row.invoice_id,
    invoice_number: row.invoice_number,
    company: row.company_id,
    payment_type: row.payment_type,
    amount: fromMinor(row.amount),
    payment_date: row.payment_date,
    payment_method: row.payment_method,
    transaction_id: row.transaction_id,
    remote_id: row.remote_id,
    status: row.status,
    notes: row.notes,
    status_reason: row.status_reason,
    created_at: row.created_at,
  };
}

/**
 * One page of the company's payments plus the total matching the filters. The page walks an index
 * in date order (payments_company_date, or the status/method one when filtered); the total comes
 * from payment_day_totals, so neither scans the payments.
 */
export async function listPayments(db: Db, companyId: string, filters: PaymentFilters, page: OffsetPage): Promise<PaymentList> {
  if (filters.customerId) return listCustomerPayments(db, companyId, filters.customerId, filters, page);
  let rows = db.selectFrom('payments').select(PAYMENT_COLUMNS).where('company_id', '=', companyId);
  let totals = db
    .selectFrom('payment_day_totals')
    .select(sql<number>`coalesce(sum(payment_count), 0)`.as('n'))
    .where('company_id', '=', companyId);
  if (filters.status) {
    rows = rows.where('status', '=', filters.status);
    totals = totals.where('status', '=', filters.status);
  }
  if (filters.paymentMethod) {
    rows = rows.where('payment_method', '=', filters.paymentMethod);
    totals = totals.where('payment_method', '=', filters.paymentMethod);
  }
  if (filters.dateFrom) {
    rows = rows.where('payment_date', '>=', filters.dateFrom);
    totals = totals.where('payment_date', '>=', filters.dateFrom);
  }
  if (filters.dateTo) {
    rows = rows.where('payment_date', '<=', filters.dateTo);
    totals = totals.where('payment_date', '<=', filters.dateTo);
  }
  const pageQuery = rows.orderBy('payment_date', 'desc').orderBy('id', 'desc').limit(page.limit).offset(page.offset);
  // The page is cut first, then joined to its invoices: the join never drives the plan.
  const data = await db
    .selectFrom(pageQuery.as('p'))
    .innerJoin('invoices as i', 'i.id', 'p.invoice_id')
    .selectAll('p')
    .select('i.invoice_number')
    .orderBy('p.payment_date', 'desc')
    .orderBy('p.id', 'desc')
    .execute();
  const { n } = await totals.executeTakeFirstOrThrow();
  return { count: Number(n), data: data.map(toPaymentDto) };
}

/**
 * One customer's payments: its invoices first (invoices_customer), then each one's payments
 * (payments_invoice). CROSS JOIN keeps that order, so a customer's page never walks the company's
 * payments; a customer has a few hundred at most, counted directly.
 */
async function listCustomerPayments(db: Db, companyId: string, customerId: string, filters: PaymentFilters, page: OffsetPage): Promise<PaymentList> {
  let rows = db
    .selectFrom('invoices as i')
    .crossJoin('payments as p')
    .whereRef('p.invoice_id', '=', 'i.id')
    .where('i.company_id', '=', companyId)
    .where('i.customer_id', '=', customerId)
    .where('p.company_id', '=', companyId);
  if (filters.status) rows = rows.where('p.status', '=', filters.status);
  if (filters.paymentMethod) rows = rows.where('p.payment_method', '=', filters.paymentMethod);
  if (filters.dateFrom) rows = rows.where('p.payment_date', '>=', filters.dateFrom);
  if (filters.dateTo) rows = rows.where('p.payment_date', '<=', filters.dateTo);
  const data = await rows
    .select(PAYMENT_COLUMNS.map((c) => `p.${c}` as const))
    .select('i.invoice_number')
    .orderBy('p.payment_date', 'desc')
    .orderBy('p.id', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  const { n } = await rows.select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow();
  return { count: Number(n), data: data.map(toPaymentDto) };
}

async function findPayment(db: Db, companyId: string, paymentId: string): Promise<PaymentDto | undefined> {
  const row = await db
    .selectFrom('payments as p')
    .innerJoin('invoices as i', 'i.id', 'p.invoice_id')
    .select(PAYMENT_COLUMNS.map((c) => `p.${c}` as const))
    .select('i.invoice_number')
    .where('p.id', '=', paymentId)
    .where('p.company_id', '=', companyId)
    .executeTakeFirst();
  return row ? toPaymentDto(row) : undefined;
}

export async function getPayment(db: Db, companyId: string, paymentId: string): Promise<PaymentDto> {
  const payment = await findPayment(db, companyId, paymentId);
  if (!payment) throw new NotFoundError('Payment', paymentId);
  return payment;
}

/** All payments of one invoice (an invoice has a handful), newest first; 404 for another company's invoice. */
export async function listInvoicePayments(db: Db, companyId: string, invoiceId: string): Promise<PaymentList> {
  const invoice = await db
    .selectFrom('invoices')
    .select(['id', 'invoice_number'])
    .where('id', '=', invoiceId)
    .where('company_id', '=', companyId)
    .executeTakeFirst();
  if (!invoice) throw new NotFoundError('Invoice', invoiceId);
  const rows = await db
    .selectFrom('payments')
    .select(PAYMENT_COLUMNS)
    .where('invoice_id', '=', invoice.id)
    .orderBy('payment_date', 'desc')
    .orderBy('id', 'desc')
    .execute();
  return { count: rows.length, data: rows.map((r) => toPaymentDto({ ...r, invoice_number: invoice.invoice_number })) };
}
