/**
 * Who a reminder goes to and what it says: the invoice, its customer and billing contact, the
 * company and its default sending connection. Shared by the endpoint (to refuse what cannot be
 * sent before queuing anything) and the job (to send what is still sendable).
 */
import type { Db } from '../db/connection';
import type { ClosingReason } from '../db/schema';
import { daysBetween } from '../dates';
import { blankToNull } from '../text';
import { type RenderedEmail, renderReminder } from './template';

export interface ReminderTarget {
  invoiceId: string;
  invoiceNumber: string;
  invoiceDate: string;
  dueDate: string;
  currency: string;
  totalAmount: number;
  paidAmount: number;
  balance: number;
  closingReason: ClosingReason | null;
  paymentLink: string | null;
  customerId: string;
  customerName: string;
  contactName: string | null;
  /** The billing contact's address, trimmed; null when there is none to write to. */
  billingEmail: string | null;
}

/** The reminder email for a target as of `today`: what the preview shows is what the job sends. */
export function reminderEmailFor(companyName: string, target: ReminderTarget, today: string, portalLink: string | null = null): RenderedEmail {
  return renderReminder({
    companyName,
    customerName: target.customerName,
    contactName: target.contactName,
    invoiceNumber: target.invoiceNumber,
    invoiceDate: target.invoiceDate,
    dueDate: target.dueDate,
    currency: target.currency,
    totalAmount: target.totalAmount,
    paidAmount: target.paidAmount,
    balance: target.balance,
    daysPastDue: daysBetween(target.dueDate, today),
    paymentLink: target.paymentLink,
    portalLink,
  });
}

/** The company's invoices among `invoiceIds` (others' and unknown ids are simply absent). */
export async function loadReminderTargets(db: Db, companyId: string, invoiceIds: string[]): Promise<Map<string, ReminderTarget>> {
  const out = new Map<string, ReminderTarget>();
  if (invoiceIds.length === 0) return out;
  const rows = await db
    .selectFrom('invoices as i')
    .innerJoin('customers as c', 'c.id', 'i.customer_id')
    .leftJoin('customer_contacts as bc', (join) => join.onRef('bc.customer_id', '=', 'i.customer_id').on('bc.is_billing', '=', 1))
    .select([
      'i.id',
      'i.invoice_number',
      'i.invoice_date',
      'i.due_date',
      'i.currency',
      'i.total_amount',
      'i.paid_amount',
      'i.balance',
      'i.closing_reason',
      'i.payment_link',
      'c.id as customer_id',
      'c.name as customer_name',
      'bc.name as contact_name',
      'bc.email as contact_email',
    ])
    .where('i.company_id', '=', companyId)
    .where('i.id', 'in', invoiceIds)
    .orderBy('bc.created_at')
    .execute();
  for (const r of rows) {
    const email = blankToNull(r.contact_email);
    const seen = out.get(r.id);
    // A customer has one billing contact; should there be several, the first with an address wins.
    if (seen && (seen.billingEmail || !email)) continue;
    out.set(r.id, {
      invoiceId: r.id,
      invoiceNumber: r.invoice_number,
      invoiceDate: r.invoice_date,
      dueDate: r.due_date,
      currency: r.currency,
      totalAmount: r.total_amount,
      paidAmount: r.paid_amount,
      balance: r.balance,
      closingReason: r.closing_reason,
      paymentLink: r.payment_link,
      customerId: r.customer_id,
      customerName: r.customer_name,
      contactName: r.contact_name,
      billingEmail: email && email.includes('@') ? email : null,
    });
  }
  return out;
}

/**
 * Why a reminder request cannot be queued, one message per kind of problem, naming the ids:
 * unknown (or another company's) invoices, closed invoices, customers without a billing address.
 * Empty when every invoice can be reminded.
 */
export function reminderBlockers(requested: string[], found: Map<string, ReminderTarget>): string[] {
  const unknown = requested.filter((id) => !found.has(id));
  const targets = requested.map((id) => found.get(id)).filter((t): t is ReminderTarget => t !== undefined);
  const closed = targets.filter((t) => t.closingReason !== null);
  const noEmail = targets.filter((t) => t.closingReason === null && t.billingEmail === null);
  const messages: string[] = [];
  if (unknown.length) messages.push(`Unknown invoice ids: ${unknown.join(', ')}`);
  if (closed.length) messages.push(`Closed invoices get no reminder: ${closed.map((t) => t.invoiceId).join(', ')}`);
  if (noEmail.length) messages.push(`No billing contact email for the customer of invoices: ${noEmail.map((t) => t.invoiceId).join(', ')}`);
  return messages;
}
