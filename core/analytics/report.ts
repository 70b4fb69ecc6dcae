import { formatMoney, toMinor } from '../money';
import type { AgingSummary } from './aging';

export interface AgingReport {
  title: string;
  company_name: string;
  currency: string;
  as_of: string;
  generated_at: string;
  rows: Array<{ bucket: string; label: string; balance: number; balance_display: string; invoice_count: number; percent: number; percent_display: string }>;
  total: { balance: number; balance_display: string; invoice_count: number };
  overdue: { balance: number; balance_display: string; percent: number; percent_display: string };
}

/** The point-in-time aging report: the summary with display strings a person can read as is. */
export function agingReport(summary: AgingSummary, companyName: string, currency: string, generatedAt: string): AgingReport {
  const overduePercent = summary.total_balance ? Math.round((summary.overdue_balance / summary.total_balance) * 10000) / 100 : 0;
  return {
    title: `Accounts receivable aging as of ${summary.as_of}`,
    company_name: companyName,
    currency,
    as_of: summary.as_of,
    generated_at: generatedAt,
    rows: summary.buckets.map((b) => ({
      bucket: b.key,
      label: b.label,
      balance: b.balance,
      balance_display: formatMoney(toMinor(b.balance), currency),
      invoice_count: b.invoice_count,
      percent: b.percent,
      percent_display: `${b.percent.toFixed(1)}%`,
    })),
    total: { balance: summary.total_balance, balance_display: formatMoney(toMinor(summary.total_balance), currency), invoice_count: summary.invoice_count },
    overdue: { balance: summary.overdue_balance, balance_display: formatMoney(toMinor(summary.overdue_balance), currency), percent: overduePercent, percent_display: `${overduePercent.toFixed(1)}%` },
  };
}

export interface DetailRow {
  invoice_number: string;
  customer_name: string;
  invoice_date: string;
  due_date: string;
  days_past_due: number;
  aging_bucket: string;
  balance: number;
}

const HEADER = ['Invoice', 'Customer', 'Invoice date', 'Due date', 'Days past due', 'Bucket', 'Balance'];

function cells(row: DetailRow): Array<string | number> {
  return [row.invoice_number, row.customer_name, row.invoice_date, row.due_date, row.days_past_due, row.aging_bucket, row.balance];
}

/** RFC 4180 CSV; a leading =, +, - or @ is quoted with an apostrophe so spreadsheets do not run it as a formula. */
export function agingCsv(report: AgingReport, rows: DetailRow[]): string {
  const field = (value: string | number) => {
    let text = String(value);
    if (typeof value === 'string' && /^[=+\-@]/.test(text)) text = `'${text}`;
    return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  const lines = [
    [report.title],
    [report.company_name],
    [],
    ['Bucket', 'Balance', 'Invoices', 'Percent'],
    ...report.rows.map((r) => [r.label, r.balance, r.invoice_count, r.percent]),
    ['Total', report.total.balance, report.total.invoice_count, 100],
    [],
    HEADER,
    ...rows.map(cells),
  ];
  return lines.map((line) => line.map(field).join(',')).join('\r\n') + '\r\n';
}

export async function agingXlsx(report: AgingReport, rows: DetailRow[]): Promise<Buffer> {
  // Loaded on the first export: exceljs is the slowest package to load, and most runs export none.
  const { Workbook } = (await import('exceljs')).default;
  const workbook = new Workbook();
  const summary = workbook.addWorksheet('Summary');
  summary.addRow([report.title]);
  summary.addRow([report.company_name]);
  summary.addRow([]);
  summary.addRow(['Bucket', 'Balance', 'Invoices', 'Percent']);
  for (const r of report.rows) summary.addRow([r.label, r.balance, r.invoice_count, r.percent / 100]);
  summary.addRow(['Total', report.total.balance, report.total.invoice_count, 1]);
  summary.getColumn(2).numFmt = '#,##0.00';
  summary.getColumn(4).numFmt = '0.0%';
  const details = workbook.addWorksheet('Invoices');
  details.addRow(HEADER);
  for (const row of rows) details.addRow(cells(row));
  details.getColumn(7).numFmt = '#,##0.00';
  return Buffer.from(await workbook.xlsx.writeBuffer());
}
