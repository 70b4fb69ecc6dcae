/**
 * Invoice PDF: a "copy of invoice" drawn from the stored invoice (ardesk keeps no original file
 * from the source system), with the company's details, the customer and location, the amounts,
 * what was paid and what is open, the status and the payment link.
 */
import type { Db } from '../db/connection';
import type { ClosingReason } from '../db/schema';
import { NotFoundError } from '../errors';
import { invoiceStatus, STATUS_LABELS } from '../invoices/status';
import { documentDetailsWithLogo, type DocumentDetailsWithLogo } from './details';
import { drawHead, finish, formatsFor, heading, methodWords, paragraph, safeFilePart, setRunningTitle, startDocument, table, totals } from './pdf';

export interface InvoiceDocumentData {
  invoice_number: string;
  invoice_date: string;
  due_date: string;
  currency: string;
  total_amount: number;
  paid_amount: number;
  balance: number;
  closing_reason: ClosingReason | null;
  closed_date: string | null;
  payment_link: string | null;
  customer_name: string;
  location: { name: string; lines: string[] } | null;
  payments: Array<{ payment_date: string; payment_method: string; amount: number; status: string }>;
}

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
  const cityLine = [postal_code, city, region].filter(Boolean).join(' ');
  const location = location_name ? { name: location_name, lines: [address_line1, cityLine, country].filter((l): l is string => Boolean(l)) } : null;
  return { ...rest, location, payments };
}

export function renderInvoice(data: InvoiceDocumentData, details: DocumentDetailsWithLogo, today: string): Promise<Buffer> {
  const f = formatsFor(details.locale);
  const money = (minor: number) => f.money(minor, data.currency);
  const title = 'Copy of invoice';
  const page = startDocument(details, `${title} ${data.invoice_number}`);
  const status = STATUS_LABELS[invoiceStatus(data, today)];
  let y = drawHead(page, details, title, [
    ['Invoice', data.invoice_number],
    ['Invoice date', f.date(data.invoice_date)],
    ['Due date', f.date(data.due_date)],
    ['Status', status],
    ['Open', money(data.balance)],
  ]);
  setRunningTitle(page, `${details.company_name} · ${title} ${data.invoice_number}`);
  y = paragraph(page, y, `This is a copy of invoice ${data.invoice_number} made from ${details.company_name}'s records on ${f.date(today)}; it is not the original document.`, '#4B5563');
  y += 6;

  y = heading(page, y, 'Bill to');
  const { doc } = page;
  doc.font('bold').text(data.customer_name, page.left, y, { width: page.width });
  y = doc.y;
  doc.font('regular');
  for (const line of data.location ? [data.location.name, ...data.location.lines] : []) {
    doc.text(line, page.left, y, { width: page.width });
    y = doc.y;
  }
  y += 12;

  y = heading(page, y, 'Amounts');
  const closed = data.closing_reason && data.closed_date ? [{ label: `${status} on`, value: f.date(data.closed_date) }] : [];
  y = totals(page, y, [
    { label: 'Invoice total', value: money(data.total_amount) },
    { label: 'Paid', value: money(data.paid_amount) },
    ...closed,
    { label: 'Open', value: money(data.balance), bold: true },
  ]);

  if (data.payments.length) {
    y = heading(page, y, 'Payments received');
    y = table(
      page,
      y,
      [
        { label: 'Date', share: 0.3 },
        { label: 'Method', share: 0.4 },
        { label: 'Amount', share: 0.3, align: 'right' },
      ],
      data.payments.map((p) => ({ cells: [f.date(p.payment_date), methodWords(p.payment_method), money(p.amount)] })),
    );
  }

  if (data.balance > 0 && (data.payment_link || details.payment_instructions || details.portal_link)) {
    y = heading(page, y, 'How to pay');
    if (data.payment_link) y = paragraph(page, y, `Pay this invoice online: ${data.payment_link}`);
    if (details.payment_instructions) y = paragraph(page, y, details.payment_instructions);
    if (details.portal_link && details.portal_link !== data.payment_link) paragraph(page, y, `Customer portal: ${details.portal_link}`);
  }
  return finish(page, details);
}

export function invoiceFileName(invoiceNumber: string): string {
  return `Invoice-${safeFilePart(invoiceNumber)}.pdf`;
}

/** The invoice's PDF with the figures of this moment. */
export async function invoicePdf(db: Db, companyId: string, invoiceId: string, today: string): Promise<{ pdf: Buffer; fileName: string; data: InvoiceDocumentData }> {
  const data = await invoiceDocumentData(db, companyId, invoiceId);
  const details = await documentDetailsWithLogo(db, companyId);
  return { pdf: await renderInvoice(data, details, today), fileName: invoiceFileName(data.invoice_number), data };
}
