/**
 * Each built-in preset on a file written in that system's published export layout
 * (test/fixtures/import-presets/, sources in test/fixtures/README.md): recognised from its columns
 * with no mapping given, read past title rows, headings and totals, and imported as the invoices,
 * amounts, statuses and credits the file shows.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemActor } from '../../core/engine';
import { buildMapping } from '../../core/import/guess';
import { importFile, type ImportReport } from '../../core/import/import';
import { parseCsv } from '../../core/import/csv';
import { addCompany } from '../support/api';
import { testEngine, type TestEngine } from '../support/engine';
import { workbook } from '../support/import-fixtures';

const TODAY = '2026-11-28';
let engine: TestEngine;

beforeAll(async () => {
  engine = await testEngine(`${TODAY}T12:00:00.000Z`);
});
afterAll(async () => engine.dispose());

const fixture = (name: string) => new Uint8Array(readFileSync(resolve(__dirname, '../fixtures/import-presets', name)));

async function importPreset(file: string, companyId: string, dryRun = false): Promise<ImportReport> {
  return importFile(engine, { companyId, actor: systemActor, bytes: fixture(file), dryRun });
}

interface Row {
  invoice_number: string;
  customer_name: string;
  invoice_date: string;
  due_date: string;
  total_amount: number;
  balance: number;
  closing_reason: string | null;
  closed_date: string | null;
  transaction_type: string;
}

function invoices(companyId: string): Row[] {
  return engine.database.sqlite
    .prepare(
      'SELECT invoice_number, customer_name, invoice_date, due_date, total_amount, balance, closing_reason, closed_date, transaction_type FROM invoices WHERE company_id = ? ORDER BY invoice_number',
    )
    .all(companyId) as Row[];
}

const openTotal = (companyId: string) =>
  (engine.database.sqlite.prepare('SELECT coalesce(sum(balance), 0) AS n FROM invoices WHERE company_id = ? AND closing_reason IS NULL').get(companyId) as { n: number }).n;

/** Imports the file into a new company, checks the dry run said the same, and that a second import changes nothing. */
async function imported(file: string, preset: string) {
  const companyId = await addCompany(engine, `${preset} ${Math.random()}`);
  const dry = await importPreset(file, companyId, true);
  expect(dry.preset).toBe(preset);
  expect(dry.errors).toEqual([]);
  const report = await importPreset(file, companyId);
  expect(report.errors).toEqual([]);
  expect(report.counts).toEqual(dry.counts);
  const again = await importPreset(file, companyId);
  expect(again.counts.invoices.created + again.counts.invoices.updated + again.counts.payments.created + again.counts.payments.updated).toBe(0);
  return { companyId, report, rows: invoices(companyId) };
}

const pick = (rows: Row[], fields: Array<keyof Row>) => rows.map((r) => Object.fromEntries(fields.map((f) => [f, r[f]])));

describe('presets recognised from real exports', () => {
  it('QuickBooks Online Invoice List: title rows and the TOTAL row skipped, Paid closed on the import date, Partial paid down, Voided left out', async () => {
    const { companyId, report, rows } = await imported('qbo-invoice-list.csv', 'qbo-invoice-list');
    expect(pick(rows, ['invoice_number', 'invoice_date', 'total_amount', 'balance', 'closing_reason', 'closed_date'])).toEqual([
      { invoice_number: '1037', invoice_date: '2026-09-14', total_amount: 36207, balance: 36207, closing_reason: null, closed_date: null },
      { invoice_number: '1038', invoice_date: '2026-10-02', total_amount: 125000, balance: 0, closing_reason: 'paid', closed_date: TODAY },
      { invoice_number: '1039', invoice_date: '2026-10-19', total_amount: 80000, balance: 30000, closing_reason: null, closed_date: null },
      { invoice_number: '1040', invoice_date: '2026-11-03', total_amount: 41000, balance: 41000, closing_reason: null, closed_date: null },
    ]);
    expect(openTotal(companyId)).toBe(107207);
    expect(report.notes).toEqual(
      expect.arrayContaining([
        'Recognised as QuickBooks Online: Invoice List (preset qbo-invoice-list)',
        'Dates read month first (M/D/YYYY), as the file\'s dates show',
        '1 row skipped: voided invoices',
        expect.stringMatching(/^2 payments .* dated 2026-11-28, the import date$/),
      ]),
    );
  });

  it('QuickBooks Online A/R Aging Detail: customer headings, subtotals, blank lines skipped; the credit memo a credit; the unapplied payment left out', async () => {
    const { companyId, report, rows } = await imported('qbo-ar-aging-detail.csv', 'qbo-ar-aging-detail');
    expect(pick(rows, ['invoice_number', 'customer_name', 'total_amount', 'balance', 'closing_reason', 'transaction_type'])).toEqual([
      { invoice_number: '1021', customer_name: "Amy's Bird Sanctuary", total_amount: 45900, balance: 23900, closing_reason: null, transaction_type: 'invoice' },
      { invoice_number: '1031', customer_name: "Amy's Bird Sanctuary", total_amount: -10000, balance: -10000, closing_reason: null, transaction_type: 'credit_note' },
      { invoice_number: '1036', customer_name: 'Freeman Sporting Goods', total_amount: 120050, balance: 120050, closing_reason: null, transaction_type: 'invoice' },
    ]);
    expect(openTotal(companyId)).toBe(23900 - 10000 + 120050);
    expect(report.counts.customers.created).toBe(2);
    expect(report.notes).toEqual(expect.arrayContaining(['1 row skipped: no invoice or credit note (payments, journal lines, drafts in Odoo)', expect.stringMatching(/^1 credit note imported as a credit/)]));
  });

  it('Xero Invoices export: line items merged into one invoice each, dates read day first, Draft and Voided left out, the credit note a credit', async () => {
    const { companyId, report, rows } = await imported('xero-invoices.csv', 'xero-invoices');
    expect(pick(rows, ['invoice_number', 'invoice_date', 'due_date', 'total_amount', 'balance', 'closing_reason', 'transaction_type'])).toEqual([
      { invoice_number: 'CN-0004', invoice_date: '2026-11-02', due_date: '2026-11-02', total_amount: -3600, balance: -3600, closing_reason: null, transaction_type: 'credit_note' },
      { invoice_number: 'INV-0001', invoice_date: '2026-09-25', due_date: '2026-10-25', total_amount: 54000, balance: 54000, closing_reason: null, transaction_type: 'invoice' },
      { invoice_number: 'INV-0002', invoice_date: '2026-10-14', due_date: '2026-11-13', total_amount: 12000, balance: 0, closing_reason: 'paid', transaction_type: 'invoice' },
    ]);
    expect(openTotal(companyId)).toBe(54000 - 3600);
    expect(report.rows).toBe(6);
    expect(report.notes).toEqual(expect.arrayContaining(["Dates read day first (D/M/YYYY), as the file's dates show", '1 row skipped: draft invoices', '1 row skipped: voided invoices']));
    const contact = engine.database.sqlite.prepare("SELECT k.email FROM customer_contacts k JOIN customers c ON c.id = k.customer_id WHERE c.company_id = ? AND c.name = 'Bayside Club'").get(companyId);
    expect(contact).toEqual({ email: 'accounts@bayside.test' });
  });

  it('Xero Aged Receivables Detail: the contact heading names the customer of the rows below it', async () => {
    const { companyId, rows } = await imported('xero-aged-receivables-detail.csv', 'xero-aged-receivables-detail');
    expect(pick(rows, ['invoice_number', 'customer_name', 'invoice_date', 'total_amount', 'transaction_type'])).toEqual([
      { invoice_number: 'CN-0041', customer_name: 'Ridgeway University', invoice_date: '2026-11-21', total_amount: -25000, transaction_type: 'credit_note' },
      { invoice_number: 'INV-0012', customer_name: 'Bayside Club', invoice_date: '2026-09-12', total_amount: 23400, transaction_type: 'invoice' },
      { invoice_number: 'INV-0031', customer_name: 'Bayside Club', invoice_date: '2026-11-03', total_amount: 9600, transaction_type: 'invoice' },
      { invoice_number: 'INV-0040', customer_name: 'Ridgeway University', invoice_date: '2026-11-20', total_amount: 150000, transaction_type: 'invoice' },
    ]);
    expect(openTotal(companyId)).toBe(158000);
  });

  it("Sage 50 Aged Debtors: SI invoices, SC credit notes, the SA payment on account and the totals rows left out; due dates from the customer's terms", async () => {
    const { companyId, rows } = await imported('sage-aged-debtors.csv', 'sage-aged-debtors');
    expect(pick(rows, ['invoice_number', 'customer_name', 'invoice_date', 'due_date', 'total_amount', 'transaction_type'])).toEqual([
      { invoice_number: '10045', customer_name: 'A1 Design Services', invoice_date: '2026-10-14', due_date: '2026-11-13', total_amount: 144000, transaction_type: 'invoice' },
      { invoice_number: '10051', customer_name: 'Bronson Inc', invoice_date: '2026-10-21', due_date: '2026-11-20', total_amount: 60000, transaction_type: 'invoice' },
      { invoice_number: 'CN012', customer_name: 'A1 Design Services', invoice_date: '2026-11-02', due_date: '2026-12-02', total_amount: -12000, transaction_type: 'credit_note' },
    ]);
    expect(openTotal(companyId)).toBe(192000);
    const ids = engine.database.sqlite.prepare('SELECT remote_id FROM customers WHERE company_id = ? ORDER BY remote_id').all(companyId);
    expect(ids).toEqual([{ remote_id: 'ABS001' }, { remote_id: 'BRO001' }]);
  });

  it('NetSuite open invoices saved search: Paid In Full closed, Amount Remaining paid down, Pending Approval left out', async () => {
    const { companyId, rows } = await imported('netsuite-open-invoices.csv', 'netsuite-open-invoices');
    expect(pick(rows, ['invoice_number', 'total_amount', 'balance', 'closing_reason', 'transaction_type'])).toEqual([
      { invoice_number: 'CM1007', total_amount: -15000, balance: -15000, closing_reason: null, transaction_type: 'credit_note' },
      { invoice_number: 'INV10021', total_amount: 480000, balance: 480000, closing_reason: null, transaction_type: 'invoice' },
      { invoice_number: 'INV10033', total_amount: 200000, balance: 50000, closing_reason: null, transaction_type: 'invoice' },
      { invoice_number: 'INV10040', total_amount: 75000, balance: 0, closing_reason: 'paid', transaction_type: 'invoice' },
    ]);
    expect(openTotal(companyId)).toBe(480000 + 50000 - 15000);
  });

  it('SAP FBL5N: semicolons, decimal commas, DD.MM.YYYY dates, the DG credit memo with its trailing minus, the DZ payment left out', async () => {
    const { companyId, rows } = await imported('sap-fbl5n.csv', 'sap-fbl5n');
    expect(pick(rows, ['invoice_number', 'customer_name', 'invoice_date', 'due_date', 'total_amount', 'transaction_type'])).toEqual([
      { invoice_number: '1700000451', customer_name: '100234', invoice_date: '2026-11-05', due_date: '2026-11-05', total_amount: -47600, transaction_type: 'credit_note' },
      { invoice_number: '1800001234', customer_name: '100234', invoice_date: '2026-10-15', due_date: '2026-11-14', total_amount: 1190000, transaction_type: 'invoice' },
      { invoice_number: '1800001260', customer_name: '100234', invoice_date: '2026-11-02', due_date: '2026-12-02', total_amount: 238000, transaction_type: 'invoice' },
      { invoice_number: '1800001301', customer_name: '100577', invoice_date: '2026-10-20', due_date: '2026-11-19', total_amount: 59500, transaction_type: 'invoice' },
    ]);
    expect(openTotal(companyId)).toBe(1190000 + 238000 + 59500 - 47600);
  });

  it('Odoo invoices export: Payment Status and Amount Due read, the negative RINV a credit note, Draft and Cancelled left out', async () => {
    const { companyId, report, rows } = await imported('odoo-invoices.csv', 'odoo-invoices');
    expect(pick(rows, ['invoice_number', 'total_amount', 'balance', 'closing_reason', 'transaction_type'])).toEqual([
      { invoice_number: 'INV/2026/00041', total_amount: 172500, balance: 172500, closing_reason: null, transaction_type: 'invoice' },
      { invoice_number: 'INV/2026/00042', total_amount: 48000, balance: 0, closing_reason: 'paid', transaction_type: 'invoice' },
      { invoice_number: 'INV/2026/00043', total_amount: 300000, balance: 100000, closing_reason: null, transaction_type: 'invoice' },
      { invoice_number: 'RINV/2026/00007', total_amount: -8000, balance: -8000, closing_reason: null, transaction_type: 'credit_note' },
    ]);
    expect(openTotal(companyId)).toBe(172500 + 100000 - 8000);
    expect(report.counts.customers.created).toBe(2);
    expect(report.notes).toContain('Dates read as YYYY-MM-DD');
  });

  it('Zoho Books invoices export: line rows merged, Overdue open, Partially Paid paid down, Draft and Void left out', async () => {
    const { companyId, rows } = await imported('zoho-books-invoices.csv', 'zoho-books-invoices');
    expect(pick(rows, ['invoice_number', 'customer_name', 'total_amount', 'balance', 'closing_reason'])).toEqual([
      { invoice_number: 'INV-000101', customer_name: 'Bowman & Co', total_amount: 165000, balance: 165000, closing_reason: null },
      { invoice_number: 'INV-000102', customer_name: 'Kevin Chen', total_amount: 40000, balance: 0, closing_reason: 'paid' },
      { invoice_number: 'INV-000103', customer_name: 'Bowman & Co', total_amount: 90000, balance: 30000, closing_reason: null },
    ]);
    expect(openTotal(companyId)).toBe(195000);
  });

  it('FreshBooks Invoice Details: line totals summed per invoice, paid closed on Date Paid, draft left out', async () => {
    const { companyId, report, rows } = await imported('freshbooks-invoices.csv', 'freshbooks-invoices');
    expect(pick(rows, ['invoice_number', 'invoice_date', 'due_date', 'total_amount', 'balance', 'closing_reason', 'closed_date'])).toEqual([
      { invoice_number: '0000041', invoice_date: '2026-10-06', due_date: '2026-11-05', total_amount: 115260, balance: 115260, closing_reason: null, closed_date: null },
      { invoice_number: '0000042', invoice_date: '2026-10-15', due_date: '2026-11-14', total_amount: 135600, balance: 0, closing_reason: 'paid', closed_date: '2026-11-02' },
      { invoice_number: '0000044', invoice_date: '2026-11-14', due_date: '2026-12-14', total_amount: 30000, balance: 30000, closing_reason: null, closed_date: null },
    ]);
    expect(openTotal(companyId)).toBe(145260);
    expect(report.notes.some((n) => n.includes('the import date'))).toBe(false);
  });

  it('a file no preset knows is refused in words, naming the exports it would know', async () => {
    const companyId = await addCompany(engine, 'Unknown layout');
    const err = await importFile(engine, { companyId, actor: systemActor, bytes: new TextEncoder().encode('a,b\n1,2\n'), dryRun: true }).catch((e) => e);
    expect(err.errors.mapping[0]).toMatch(/none of the built-in exports .*QuickBooks Online: A\/R Aging Detail.*give a mapping or a preset/);
  });

  it("the wizard's invoice status value map names only a ledger's odd words; the others read as written", async () => {
    const companyId = await addCompany(engine, 'Odd statuses');
    const file = ['Doc No,Client,Amt Due,Inv Date,Due,Stat', 'Q-1,Umbra,100.00,11/02/2026,12/02/2026,OPEN', 'Q-2,Umbra,50.00,11/03/2026,12/03/2026,SETTLED', 'Q-3,Umbra,20.00,11/04/2026,12/04/2026,CXL'].join('\n');
    const mapping = buildMapping({
      entity: 'ar-rows',
      columns: { 'customers.name': 'Client', 'invoices.invoice_number': 'Doc No', 'invoices.total_amount': 'Amt Due', 'invoices.invoice_date': 'Inv Date', 'invoices.due_date': 'Due' },
      date: 'M/D/YYYY',
      decimal: '.',
      valueMaps: [{ column: 'Stat', target: 'invoice_status', values: { SETTLED: 'paid', CXL: 'void', OPEN: '' } }],
    });
    expect(mapping.invoices?.status).toEqual({ column: 'Stat', values: { SETTLED: 'paid', CXL: 'void' } });
    const report = await importFile(engine, { companyId, actor: systemActor, bytes: new TextEncoder().encode(file), mapping, dryRun: false });
    expect(report.errors).toEqual([]);
    expect(pick(invoices(companyId), ['invoice_number', 'balance', 'closing_reason'])).toEqual([
      { invoice_number: 'Q-1', balance: 10000, closing_reason: null },
      { invoice_number: 'Q-2', balance: 0, closing_reason: 'paid' },
    ]);
  });

  it('the same report saved as XLSX is recognised and read the same way', async () => {
    const rows = parseCsv(new TextDecoder().decode(fixture('qbo-ar-aging-detail.csv'))).map((r) => r.fields);
    const bytes = await workbook({ 'AR Aging Detail': rows });
    const companyId = await addCompany(engine, 'XLSX report');
    const report = await importFile(engine, { companyId, actor: systemActor, bytes, dryRun: false });
    expect(report).toMatchObject({ preset: 'qbo-ar-aging-detail', errors: [], counts: { invoices: { created: 3 } } });
    expect(openTotal(companyId)).toBe(23900 - 10000 + 120050);
  });
});
