/**
 * Statement of account: a customer's open invoices as of a date with days past due, aging
 * subtotals and the total due, its recent payments and the company's payment instructions; in
 * "activity" mode also every invoice and payment between two dates. The figures are read by
 * statement-data.ts: for the route and attachments on a document thread (statementFile), for a
 * caller that needs them too in this process (statementPdf).
 */
import { sql } from 'kysely';
import type { Db } from '../db/connection';
import { daysPastDue } from '../invoices/status';
import { fromMinor } from '../money';
import { creditSourceWords } from '../payments/credit-words';
import { documentDetailsWithLogo } from './details';
import type { StatementData } from './draw-statement';
import { safeFilePart } from './pdf';
import { inTurn, type ReadSummary, renderDocument } from './render';
import { checkStatementRequest, MAX_CSV_STATEMENT_LINES, type StatementRequest, statementData } from './statement-data';

export { checkStatementRequest, MAX_CSV_STATEMENT_LINES, MAX_STATEMENT_LINES, RECENT_PAYMENT_LIMIT, type StatementRequest, StatementTooLongError, statementData } from './statement-data';

/** The statement PDF of one customer with its figures (for a caller that needs them), read here and drawn on a thread in its turn (render.ts). */
export async function statementPdf(db: Db, companyId: string, customerId: string, request: StatementRequest, today: string): Promise<{ pdf: Buffer; missing: string[]; fileName: string; data: StatementData }> {
  const rendered = await renderDocument(async () => ({
    kind: 'statement' as const,
    data: await statementData(db, companyId, customerId, request, today),
    details: await documentDetailsWithLogo(db, companyId),
  }));
  const data = rendered.request.data;
  return { pdf: rendered.pdf, missing: rendered.missing, fileName: statementFileName(data.customer.name, data.as_of), data };
}

const CSV_HEADER = ['Line', 'Date', 'Reference', 'Due date', 'Days past due', 'Currency', 'Amount', 'Paid', 'Open'];

/** RFC 4180 field; a leading =, +, - or @ is quoted with an apostrophe so spreadsheets do not run it (as the aging export). */
function csvField(value: string | number): string {
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The statement's lines as one flat table: open invoices, the period's activity, recent payments, credits. Amounts in major units. */
export function statementCsv(data: StatementData): string {
  const lines: Array<Array<string | number>> = [CSV_HEADER];
  for (const i of data.invoices) {
    const days = daysPastDue(i.due_date, data.as_of);
    lines.push(['Open invoice', i.invoice_date, i.invoice_number, i.due_date, days > 0 ? days : '', i.currency, fromMinor(i.total_amount), fromMinor(i.paid), fromMinor(i.open)]);
  }
  for (const e of data.activity?.entries ?? []) {
    lines.push(e.kind === 'invoice' ? ['Invoice issued', e.date, e.reference, '', '', e.currency, fromMinor(e.charge), '', ''] : ['Payment received', e.date, e.reference, '', '', e.currency, '', fromMinor(e.payment), '']);
  }
  for (const p of data.payments) lines.push(['Recent payment', p.payment_date, p.invoice_number, '', '', p.currency, '', fromMinor(p.amount), '']);
  // A credit is open in the customer's favour: a negative open amount, so the Open column sums to what is due.
  for (const c of data.credits.items) lines.push(['Credit', c.date, creditSourceWords(c), '', '', c.currency, '', '', -fromMinor(c.amount)]);
  return lines.map((line) => line.map(csvField).join(',')).join('\r\n') + '\r\n';
}

/** The statement as CSV (the alternative to a PDF past its cap), read in its turn among the documents. */
export async function statementCsvFile(db: Db, companyId: string, customerId: string, request: StatementRequest, today: string): Promise<{ csv: string; fileName: string }> {
  const data = await inTurn(() => statementData(db, companyId, customerId, request, today, MAX_CSV_STATEMENT_LINES, 'csv'));
  return { csv: statementCsv(data), fileName: statementFileName(data.customer.name, data.as_of).replace(/\.pdf$/, '.csv') };
}

/** The database file behind a connection, for a document thread to open on its own ('' for one in memory). */
const files = new WeakMap<Db, Promise<string>>();
function databaseFile(db: Db): Promise<string> {
  let file = files.get(db);
  if (!file) {
    file = sql<{ name: string; file: string }>`PRAGMA database_list`.execute(db).then((r) => r.rows.find((row) => row.name === 'main')?.file ?? '');
    files.set(db, file);
  }
  return file;
}

/**
 * The statement PDF of one customer, read and drawn on a document thread in its turn (render.ts):
 * a 2,500-page statement's rows never pass through this event loop. A database in memory, which a
 * thread cannot open, is read here.
 */
export async function statementFile(db: Db, companyId: string, customerId: string, request: StatementRequest, today: string): Promise<{ pdf: Buffer; missing: string[]; fileName: string }> {
  checkStatementRequest(request);
  const file = await databaseFile(db);
  if (!file) {
    const { pdf, missing, fileName } = await statementPdf(db, companyId, customerId, request, today);
    return { pdf, missing, fileName };
  }
  const { pdf, missing, read } = await renderDocument(async () => ({ kind: 'statement-read' as const, file, companyId, customerId, request, today, details: await documentDetailsWithLogo(db, companyId) }));
  const summary = read as ReadSummary;
  return { pdf, missing, fileName: statementFileName(summary.customer_name, summary.as_of) };
}

export function statementFileName(customerName: string, asOf: string): string {
  return `Statement-${safeFilePart(customerName)}-${asOf}.pdf`;
}
