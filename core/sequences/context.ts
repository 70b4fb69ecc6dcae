/**
 * What a step's templates are rendered with: the customer, their recipient, their open invoices and
 * the invoice the step is about. Loaded in one batch for a page of queue rows.
 */
import { sql } from 'kysely';
import type { Db } from '../db/connection';
import type { CommandTx } from '../engine';
import type { TemplateContext, TemplateInvoice } from './templates';

type Reader = Db | CommandTx['db'];

export interface CustomerData {
  id: string;
  name: string;
  currency: string;
  contactName: string | null;
  /** The billing contact's email, else the first contact's (by name) that has one. */
  email: string | null;
  openInvoices: Array<TemplateInvoice & { id: string }>;
}

export async function companyName(db: Reader, companyId: string): Promise<string> {
  const row = await db.selectFrom('companies').select('name').where('id', '=', companyId).executeTakeFirst();
  return row?.name ?? '';
}

const INVOICE_COLUMNS = ['id', 'customer_id', 'invoice_number', 'invoice_date', 'due_date', 'currency', 'total_amount', 'balance', 'payment_link'] as const;

export async function loadCustomers(db: Reader, companyId: string, customerIds: string[]): Promise<Map<string, CustomerData>> {
  const out = new Map<string, CustomerData>();
  if (customerIds.length === 0) return out;
  const ids = [...new Set(customerIds)];
  const customers = await db.selectFrom('customers').select(['id', 'name', 'currency']).where('company_id', '=', companyId).where('id', 'in', ids).execute();
  for (const c of customers) out.set(c.id, { id: c.id, name: c.name, currency: c.currency, contactName: null, email: null, openInvoices: [] });
  const contacts = await db
    .selectFrom('customer_contacts')
    .select(['customer_id', 'name', 'email', 'is_billing'])
    .where('company_id', '=', companyId)
    .where('customer_id', 'in', ids)
    .where('email', 'is not', null)
    .where('email', '<>', '')
    .orderBy('is_billing', 'desc')
    .orderBy('name')
    .orderBy('id')
    .execute();
  for (const contact of contacts) {
    const c = out.get(contact.customer_id);
    if (c && c.email === null) {
      c.email = contact.email;
      c.contactName = contact.name;
    }
  }
  const invoices = await db
    .selectFrom('invoices')
    .select(INVOICE_COLUMNS)
    .where('company_id', '=', companyId)
    .where('customer_id', 'in', ids)
    .where('closing_reason', 'is', null)
    // The unary + keeps SQLite on the customers' invoices (see chaseFacts).
    .where(sql`+balance`, '>', 0)
    .orderBy(sql`+due_date`)
    .orderBy('invoice_number')
    .execute();
  for (const inv of invoices) out.get(inv.customer_id)?.openInvoices.push(inv);
  return out;
}

/** Invoices named by steps (they may be closed by now, so they are not always among the open ones). */
export async function loadInvoices(db: Reader, companyId: string, invoiceIds: string[]): Promise<Map<string, TemplateInvoice & { id: string }>> {
  if (invoiceIds.length === 0) return new Map();
  const rows = await db.selectFrom('invoices').select(INVOICE_COLUMNS).where('company_id', '=', companyId).where('id', 'in', [...new Set(invoiceIds)]).execute();
  return new Map(rows.map((r) => [r.id, r]));
}

/** The invoice a step is about: its own, else the customer's oldest open invoice, else none. */
export function primaryInvoice(customer: CustomerData, stepInvoice: (TemplateInvoice & { id: string }) | null | undefined) {
  return stepInvoice ?? customer.openInvoices[0] ?? null;
}

export function templateContext(customer: CustomerData, invoice: TemplateInvoice | null, company: string, senderName: string | null, today: string): TemplateContext {
  return {
    customerName: customer.name,
    contactName: customer.contactName,
    companyName: company,
    senderName,
    openInvoices: customer.openInvoices,
    invoice,
    currency: customer.currency,
    today,
  };
}

/**
 * The invoices a due-date email lists ({{invoice_list}}): those of its rows that are still open,
 * soonest due first (the order of openInvoices).
 */
export function listedOpenInvoices(customer: CustomerData, invoiceIds: Array<string | null>): CustomerData['openInvoices'] {
  const wanted = new Set(invoiceIds);
  return customer.openInvoices.filter((i) => wanted.has(i.id));
}

/** The invoices of a due-date row and of the rows merged into it. */
export async function coveredInvoiceIds(db: Reader, rowId: string, invoiceId: string | null): Promise<Array<string | null>> {
  const members = await db.selectFrom('scheduled_steps').select('invoice_id').where('merged_into', '=', rowId).where('status', '=', 'ready').execute();
  return [invoiceId, ...members.map((m) => m.invoice_id)];
}
