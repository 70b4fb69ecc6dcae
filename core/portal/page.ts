/**
 * What a customer's portal page shows: the company as it prints itself (document details: name,
 * logo, brand colours, address, payment instructions, its own online payment link), the customer's open
 * invoices with what holds each (their promise, their dispute), totals and credits (the same as on
 * the statement: core/payments/credits.ts). Bounded: at most MAX_ROWS open items are listed (the
 * totals count them all).
 */
import { sql } from 'kysely';
import { invoiceRf } from '../rf';
import type { BrandColours } from '../documents/colours';
import type { Db } from '../db/connection';
import { daysBetween } from '../dates';
import { documentDetailsWithLogo } from '../documents/details';
import { NotFoundError } from '../errors';
import { type CreditItem, customerCredits } from '../payments/credits';

export const MAX_ROWS = 500;

export interface PortalInvoice {
  id: string;
  number: string;
  invoiceDate: string;
  dueDate: string;
  currency: string;
  total: number;
  balance: number;
  daysPastDue: number;
  disputed: boolean;
  /** The latest date the customer (or anyone on record) promised for it, still standing. */
  promisedFor: string | null;
  /** The structured creditor reference (ISO 11649) to pay it with, so cash application finds it; null when its number is too long for one. */
  reference: string | null;
}

export interface PortalTotal {
  currency: string;
  open: number;
  pastDue: number;
  credits: number;
}

export interface PortalPage {
  companyName: string;
  address: string | null;
  logo: { type: string; base64: string } | null;
  /** The company's brand colours, in the shades the page draws (its brand.css). */
  brand: BrandColours;
  paymentInstructions: string | null;
  paymentLink: string | null;
  customerName: string;
  billingContact: { name: string; email: string | null; phone: string | null } | null;
  invoices: PortalInvoice[];
  credits: CreditItem[];
  totals: PortalTotal[];
  /** More open items than listed. */
  truncated: boolean;
}

export async function portalPage(db: Db, companyId: string, customerId: string, today: string): Promise<PortalPage> {
  const customer = await db.selectFrom('customers').select('name').where('company_id', '=', companyId).where('id', '=', customerId).executeTakeFirst();
  if (!customer) throw new NotFoundError('Customer', customerId);
  const details = await documentDetailsWithLogo(db, companyId);
  const rows = await db
    .selectFrom('invoices')
    .select(['id', 'invoice_number', 'invoice_date', 'due_date', 'currency', 'total_amount', 'balance'])
    .where('company_id', '=', companyId)
    .where('customer_id', '=', customerId)
    .where('closing_reason', 'is', null)
    .where('balance', '>', 0)
    .orderBy('due_date')
    .orderBy('invoice_number')
    .limit(MAX_ROWS + 1)
    .execute();
  const ids = rows.map((r) => r.id);
  const disputed = new Set(
    ids.length
      ? (await db.selectFrom('disputes').select('invoice_id').where('company_id', '=', companyId).where('customer_id', '=', customerId).where('status', '=', 'open').execute()).map((d) => d.invoice_id)
      : [],
  );
  const promised = new Map<string, string>();
  const promises = await db
    .selectFrom('communications')
    .select(['invoice_id', (eb) => eb.fn.max('promise_date').as('date')])
    .where('company_id', '=', companyId)
    .where('customer_id', '=', customerId)
    .where('promise_date', '>=', today)
    .where('invoice_id', 'is not', null)
    .groupBy('invoice_id')
    .execute();
  for (const p of promises) if (p.invoice_id && p.date) promised.set(p.invoice_id, p.date);
  const items: PortalInvoice[] = rows.slice(0, MAX_ROWS).map((r) => ({
    id: r.id,
    number: r.invoice_number,
    invoiceDate: r.invoice_date,
    dueDate: r.due_date,
    currency: r.currency,
    total: r.total_amount,
    balance: r.balance,
    daysPastDue: Math.max(0, daysBetween(r.due_date, today)),
    disputed: disputed.has(r.id),
    promisedFor: promised.get(r.id) ?? null,
    reference: invoiceRf(r.invoice_number),
  }));
  const sums = await db
    .selectFrom('invoices')
    .select([
      'currency',
      sql<number>`coalesce(sum(CASE WHEN balance > 0 THEN balance END), 0)`.as('open'),
      sql<number>`coalesce(sum(CASE WHEN balance > 0 AND due_date < ${today} THEN balance END), 0)`.as('past_due'),
    ])
    .where('company_id', '=', companyId)
    .where('customer_id', '=', customerId)
    .where('closing_reason', 'is', null)
    .groupBy('currency')
    .orderBy('currency')
    .execute();
  const credits = await customerCredits(db, companyId, customerId, today);
  const currencies = [...new Set([...sums.map((s) => s.currency), ...credits.totals.map((c) => c.currency)])].sort();
  const contact = await db
    .selectFrom('customer_contacts')
    .select(['name', 'email', 'phone'])
    .where('company_id', '=', companyId)
    .where('customer_id', '=', customerId)
    .orderBy('is_billing', 'desc')
    .orderBy('created_at')
    .limit(1)
    .executeTakeFirst();
  return {
    companyName: details.company_name,
    address: details.address,
    logo: details.logo && details.logoData ? { type: details.logo.type, base64: details.logoData.toString('base64') } : null,
    brand: details.brand_colours,
    paymentInstructions: details.payment_instructions,
    paymentLink: details.portal_link,
    customerName: customer.name,
    billingContact: contact ?? null,
    invoices: items,
    credits: credits.items,
    totals: currencies
      .map((currency) => {
        const s = sums.find((x) => x.currency === currency);
        return { currency, open: s?.open ?? 0, pastDue: s?.past_due ?? 0, credits: credits.totals.find((c) => c.currency === currency)?.credits ?? 0 };
      })
      .filter((t) => t.open || t.credits),
    truncated: rows.length > MAX_ROWS,
  };
}
