/**
 * Invoice PDF: a "copy of invoice" drawn from the stored invoice (ardesk keeps no original file
 * from the source system), with the company's details, the customer and location, the amounts,
 * what was paid and what is open, the status and the payment link.
 */
import type { Db } from '../db/connection';
import { NotFoundError } from '../errors';
import { documentDetailsWithLogo } from './details';
import type { InvoiceDocumentData } from './draw-invoice';
import { safeFilePart } from './pdf';
import { renderDocument } from './render';
import { postalLines } from './postal';

export async function invoiceDocumentData(db: Db, companyId: string, invoiceId: string): Promise<InvoiceDocumentData> {
  const invoice = await db
    .selectFrom('invoices as i')
    .leftJoin('customer_locations as l', (join) => join.onRef('l.id', '=', 'i.customer_location_id').on('l.company_id', '=', companyId))
    .select([
      'i.invoice_number',
      'i.invoice_date',
      'i.due_date',
      'i.currency',
      'i.total_amount',
      'i.paid_amount',
      'i.balance',
      'i.closing_reason',
      'i.closed_date',
      'i.payment_link',
      'i.customer_name',
      'l.name as location_name',
      'l.address_line1',
      'l.city',
      'l.region',
      'l.postal_code',
      'l.country',
    ])
    .where('i.company_id', '=', companyId)
    .where('i.id', '=', invoiceId)
    .executeTakeFirst();
  if (!invoice) throw new NotFoundError('Invoice', invoiceId);
  const payments = await db
    .selectFrom('payments')
    .select(['payment_date', 'payment_method', 'amount', 'status'])
    .where('company_id', '=', companyId)
    .where('invoice_id', '=', invoiceId)
    .where('status', 'in', ['PAID', 'PARTIAL'])
    .orderBy('payment_date')
    .orderBy('id')
    .execute();
  const { location_name, address_line1, city, region, postal_code, country, ...rest } = invoice;
  const location = location_name ? { name: location_name, lines: postalLines({ address_line1, city, region, postal_code, country }) } : null;
  return { ...rest, location, payments };
}

export function invoiceFileName(invoiceNumber: string): string {
  return `Invoice-${safeFilePart(invoiceNumber)}.pdf`;
}

/** The invoice's PDF with the figures of this moment, drawn on a document thread. */
export async function invoicePdf(db: Db, companyId: string, invoiceId: string, today: string): Promise<{ pdf: Buffer; missing: string[]; fileName: string; data: InvoiceDocumentData }> {
  const { pdf, missing, request } = await renderDocument(async () => ({
    kind: 'invoice' as const,
    data: await invoiceDocumentData(db, companyId, invoiceId),
    details: await documentDetailsWithLogo(db, companyId),
    today,
  }));
  return { pdf, missing, fileName: invoiceFileName(request.data.invoice_number), data: request.data };
}
