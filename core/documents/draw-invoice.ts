/**
 * Drawing an invoice copy (on a document thread, render.ts) from the figures invoice.ts reads.
 * Nothing here reads the database, so a thread loads only this, the page kit and pdfkit.
 */
import { formatRf, invoiceRf } from '../rf';
import type { ClosingReason } from '../db/schema';
import { invoiceStatus, STATUS_LABELS } from '../invoices/status';
import type { DocumentDetailsWithLogo } from './details';
import { type DrawnDocument, drawHead, finish, formatsFor, heading, methodWords, paragraph, setRunningTitle, startDocument, table, textBlock, totals } from './pdf';

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


export function renderInvoice(data: InvoiceDocumentData, details: DocumentDetailsWithLogo, today: string): Promise<DrawnDocument> {
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
  y = textBlock(doc.font('bold'), data.customer_name, page.left, y, page.width);
  doc.font('regular');
  for (const line of data.location ? [data.location.name, ...data.location.lines] : []) y = textBlock(doc, line, page.left, y, page.width);
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

  // The reference a bank transfer quotes, so cash application matches the payment to this invoice.
  const reference = invoiceRf(data.invoice_number);
  if (data.balance > 0 && (data.payment_link || details.payment_instructions || details.portal_link || reference)) {
    y = heading(page, y, 'How to pay');
    if (data.payment_link) y = paragraph(page, y, `Pay this invoice online: ${data.payment_link}`);
    if (details.payment_instructions) y = paragraph(page, y, details.payment_instructions);
    if (reference) y = paragraph(page, y, `Payment reference for a bank transfer: ${formatRf(reference)}`);
    if (details.portal_link && details.portal_link !== data.payment_link) paragraph(page, y, `Customer portal: ${details.portal_link}`);
  }
  return finish(page, details);
}
