import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import ExcelJS from 'exceljs';
import { systemActor } from '../../core/engine';
import type { Entity, Mapping } from '../../core/import/mapping';
import { importFile, type ImportReport } from '../../core/import/import';
import type { TestEngine } from './engine';

/** IBM's public accounts-receivable sample, kept in the repository (see test/fixtures/README.md). */
export const IBM_AR_CSV = resolve(__dirname, '../fixtures/ibm-accounts-receivable.csv');

/**
 * The IBM file as an export made on `cut`: invoices issued by then, settled only if settled by
 * then (a stale ledger: its newest invoice and payment are from that day).
 */
export function ibmCutCsv(cut: string): string {
  const [header, ...rows] = readFileSync(IBM_AR_CSV, 'utf8').trim().split('\n');
  const iso = (mdy: string) => {
    const [m, d, y] = mdy.split('/');
    return `${y}-${m.padStart(2, '0')}-${d.padStart(2, '0')}`;
  };
  const kept = rows
    .map((r) => r.split(','))
    .filter((c) => iso(c[4]) <= cut)
    .map((c) => (iso(c[8]) > cut ? [...c.slice(0, 8), '', c[9], '', ''] : c).join(','));
  return [header, ...kept].join('\n');
}

/** CSV text from rows, quoting fields that need it (RFC 4180), lines ending in CRLF. */
export function csv(rows: Array<Array<string | number>>): string {
  const quote = (v: string | number) => {
    const s = String(v);
    return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  return rows.map((r) => r.map(quote).join(',')).join('\r\n') + '\r\n';
}

/** An XLSX workbook from sheets of rows, as the bytes a user would upload. */
export async function workbook(sheets: Record<string, Array<Array<ExcelJS.CellValue>>>): Promise<Uint8Array> {
  const wb = new ExcelJS.Workbook();
  for (const [name, rows] of Object.entries(sheets)) {
    const sheet = wb.addWorksheet(name);
    for (const row of rows) sheet.addRow(row);
  }
  return new Uint8Array(await wb.xlsx.writeBuffer());
}

export async function runImport(
  engine: TestEngine,
  companyId: string,
  content: string | Uint8Array,
  mapping: Mapping,
  options: { dryRun?: boolean; entity?: Entity; sheet?: string } = {},
): Promise<ImportReport> {
  return importFile(engine, {
    companyId,
    actor: systemActor,
    bytes: typeof content === 'string' ? new TextEncoder().encode(content) : content,
    mapping,
    entity: options.entity,
    sheet: options.sheet,
    dryRun: options.dryRun ?? false,
  });
}

/** Rows in a table, for "nothing was written" checks. */
export function rowCount(engine: TestEngine, table: string): number {
  return (engine.database.sqlite.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
}

/** A combined file: customer, invoice and optional payment per row (the shape most AR exports have). */
export const AR_MAPPING: Mapping = {
  entity: 'ar-rows',
  formats: { date: 'M/D/YYYY' },
  customers: { remote_id: 'Customer ID', name: 'Customer', country: 'Country', contact_email: 'Email' },
  invoices: { invoice_number: 'Invoice', invoice_date: 'Date', due_date: 'Due', total_amount: 'Amount', labels: [{ label: 'Disputed', column: 'Disputed' }] },
  payments: { amount: 'Paid', payment_date: 'Paid on', payment_method: 'Method', remote_id: { template: 'pay-{Invoice}' } },
};

export const AR_HEADER = ['Customer ID', 'Customer', 'Country', 'Email', 'Invoice', 'Date', 'Due', 'Amount', 'Disputed', 'Paid', 'Paid on', 'Method'];
