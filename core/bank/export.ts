/**
 * What a statement's credits were applied to, as a file for the accounting system: one row per
 * payment made (or unapplied cash kept), undone ones marked, in CSV (RFC 4180, formula-safe) or XLSX.
 */
import type { ApplicationExportRow } from './queries';

const HEADER = ['Booked on', 'Bank reference', 'Payer', 'Customer', 'Invoice', 'Kind', 'Amount', 'Currency', 'Payment id', 'Automatic', 'Applied by', 'Applied at', 'Undone at'];

function cells(r: ApplicationExportRow): Array<string | number> {
  return [
    r.booked_on,
    r.bank_reference ?? '',
    r.payer ?? '',
    r.customer ?? '',
    r.invoice_number ?? '',
    r.kind === 'invoice' ? 'payment' : 'unapplied cash',
    r.amount,
    r.currency,
    r.payment_id ?? '',
    r.automatic ? 'yes' : 'no',
    r.applied_by ?? '',
    r.applied_at,
    r.reversed_at ?? '',
  ];
}

/** A leading =, +, - or @ in text is quoted with an apostrophe so spreadsheets do not run it as a formula. */
export function applicationsCsv(rows: ApplicationExportRow[]): string {
  const field = (value: string | number) => {
    let text = String(value);
    if (typeof value === 'string' && /^[=+\-@]/.test(text)) text = `'${text}`;
    return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  return [HEADER, ...rows.map(cells)].map((line) => line.map(field).join(',')).join('\r\n') + '\r\n';
}

export async function applicationsXlsx(rows: ApplicationExportRow[]): Promise<Buffer> {
  // Loaded on the first export: exceljs is the slowest package to load.
  const { Workbook } = (await import('exceljs')).default;
  const workbook = new Workbook();
  const sheet = workbook.addWorksheet('Applications');
  sheet.addRow(HEADER);
  for (const r of rows) sheet.addRow(cells(r));
  sheet.getColumn(7).numFmt = '#,##0.00';
  return Buffer.from(await workbook.xlsx.writeBuffer());
}
