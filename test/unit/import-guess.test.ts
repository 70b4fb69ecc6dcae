import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildMapping,
  type ColumnProfile,
  dateFormatsOf,
  guessChoice,
  guessColumns,
  guessDateFormat,
  guessDecimal,
  guessLabels,
  labelFromHeader,
  type MappingChoice,
  profileColumns,
} from '../../core/import/guess';
import { previewFile } from '../../core/import/preview';
import { addCompany } from '../support/api';
import { testEngine, type TestEngine } from '../support/engine';
import { AR_HEADER, IBM_AR_CSV, runImport } from '../support/import-fixtures';

const profileOf = (rows: string[][]) => profileColumns(rows[0], rows.slice(1));
const one = (header: string, ...cells: string[]): ColumnProfile => profileColumns([header], cells.map((c) => [c]))[0];

describe('column profiles', () => {
  it('tells ids, names, amounts, dates, yes/no and short value lists apart from the cells', () => {
    expect(one('x', '0379-NEVHP', 'INV-7', '000123')).toMatchObject({ id: true, text: false, amount: false, date: false });
    expect(one('x', 'Globex, Inc.', 'Initech')).toMatchObject({ id: false, text: true, amount: false });
    expect(one('x', '55.94', '1,234.50', '$7')).toMatchObject({ amount: true, decimals: true, decimal: '.', id: false });
    expect(one('x', '55,94', '1.234,50')).toMatchObject({ amount: true, decimal: ',' });
    expect(one('x', 'Yes', 'No', 'yes')).toMatchObject({ yes_no: true, values: ['Yes', 'No', 'yes'], unique: true });
    expect(one('x', 'ap@globex.test')).toMatchObject({ email: true, text: false });
    expect(one('x', 'Paper', 'Paper')).toMatchObject({ values: ['Paper'], unique: false });
    expect(one('x', ...Array.from({ length: 20 }, (_, i) => `v${i}`))).toMatchObject({ values: null, unique: true });
    expect(one('x', '', '')).toMatchObject({ filled: 0, date: false, amount: false, text: false });
  });

  it('reads which date formats fit the values, and shows the doubt when day and month both fit', () => {
    expect(dateFormatsOf('1/26/2013')).toEqual(['M/D/YYYY']);
    expect(dateFormatsOf('26/1/2013')).toEqual(['D/M/YYYY']);
    expect(dateFormatsOf('1/2/2013')).toEqual(['M/D/YYYY', 'D/M/YYYY']);
    expect(dateFormatsOf('2/30/2013')).toEqual([]);
    expect(dateFormatsOf('2026-01-31')).toEqual(['YYYY-MM-DD', 'M/D/YYYY', 'D/M/YYYY']);
    expect(one('d', '1/2/2013', '1/26/2013').date_formats).toEqual(['M/D/YYYY']);
    expect(one('d', '1/2/2013', '3/4/2013').date_formats).toEqual(['M/D/YYYY', 'D/M/YYYY']);
    expect(one('d', '2026-01-31', '2026-02-01').date_formats).toEqual(['YYYY-MM-DD']);
    // Dates no single format reads, and a typo'd date that does not narrow the format.
    expect(one('d', '13/1/2013', '1/13/2013')).toMatchObject({ date: true, date_formats: [] });
    expect(one('d', '2026-10-01', '2026-02-30')).toMatchObject({ date: true, date_formats: ['YYYY-MM-DD'] });
    expect(one('d', '1/26/2013', '2/30/2013')).toMatchObject({ date: true, date_formats: ['M/D/YYYY'] });

    expect(guessDateFormat([one('a', '1/2/2013'), one('b', '2/26/2013')])).toEqual({ format: 'M/D/YYYY', fits: ['M/D/YYYY'], ambiguous: false });
    expect(guessDateFormat([one('a', '1/2/2013'), one('b', '26/2/2013')])).toEqual({ format: 'D/M/YYYY', fits: ['D/M/YYYY'], ambiguous: false });
    expect(guessDateFormat([one('a', '1/2/2013', '3/4/2013')])).toEqual({ format: 'M/D/YYYY', fits: ['M/D/YYYY', 'D/M/YYYY'], ambiguous: true });
    expect(guessDateFormat([one('a', '2026-01-31')])).toEqual({ format: 'YYYY-MM-DD', fits: ['YYYY-MM-DD'], ambiguous: false });
    expect(guessDateFormat([one('a', 'Globex')])).toEqual({ format: 'YYYY-MM-DD', fits: [], ambiguous: false });
  });

  it('guesses a decimal comma only when every fraction is written with one', () => {
    expect(guessDecimal([one('a', '12,50'), one('b', '3,10')])).toBe(',');
    expect(guessDecimal([one('a', '12,50'), one('b', '3.10')])).toBe('.');
    expect(guessDecimal([one('a', '12')])).toBe('.');
  });
});

describe('guessing columns by name and by content', () => {
  it('maps a common AR export by its names', () => {
    const rows = [AR_HEADER, ['C-1', 'Globex', 'US', 'ap@globex.test', 'INV-1', '1/5/2026', '2/4/2026', '100.00', 'No', '100.00', '1/20/2026', 'ACH']];
    expect(guessColumns('ar-rows', profileOf(rows))).toEqual({
      'customers.remote_id': 'Customer ID',
      'customers.name': 'Customer',
      'customers.country': 'Country',
      'customers.contact_email': 'Email',
      'invoices.invoice_number': 'Invoice',
      'invoices.invoice_date': 'Date',
      'invoices.due_date': 'Due',
      'invoices.total_amount': 'Amount',
      'payments.amount': 'Paid',
      'payments.payment_date': 'Paid on',
      'payments.payment_method': 'Method',
    });
  });

  it('refuses a name whose content does not fit, and fills required fields from content alone', () => {
    // "Date" holds text, so it is no invoice date; the only date column is.
    const rows = [
      ['Ref', 'Client', 'Date', 'When', 'Value', 'Sent'],
      ['A-100', 'Globex Inc', 'soon', '3/14/2026', '12.50', 'paper'],
      ['A-101', 'Initech', 'later', '3/15/2026', '8.00', 'electronic'],
    ];
    expect(guessColumns('invoices', profileOf(rows))).toEqual({
      'invoices.invoice_number': 'Ref',
      'invoices.customer_name': 'Client',
      'invoices.invoice_date': 'When',
      'invoices.total_amount': 'Value',
      'invoices.bill_channel': 'Sent',
    });
  });

  it('uses a customer ID as the name when the file has no name, and a settled date as payment in full', () => {
    const rows = [
      ['customerID', 'invoiceNumber', 'InvoiceDate', 'InvoiceAmount', 'SettledDate'],
      ['0379-NEVHP', '0000611365', '1/2/2013', '55.94', '1/15/2013'],
    ];
    expect(guessColumns('ar-rows', profileOf(rows))).toMatchObject({
      'customers.remote_id': 'customerID',
      'customers.name': 'customerID',
      'payments.amount': 'InvoiceAmount',
      'payments.payment_date': 'SettledDate',
    });
  });

  it('makes a label of each yes/no column no field reads', () => {
    expect(labelFromHeader('IsDisputed')).toBe('Disputed');
    expect(labelFromHeader('on_hold')).toBe('On hold');
    const profiles = profileOf([['Invoice', 'Disputed', 'Person'], ['I-1', 'No', 'x'], ['I-2', 'Yes', 'y']]);
    expect(guessLabels('ar-rows', profiles, { 'invoices.invoice_number': 'Invoice' })).toEqual([{ column: 'Disputed', value: 'Yes', label: 'Disputed' }]);
    expect(guessLabels('customers', profiles, {})).toEqual([]);
  });

  it('builds the API mapping with value maps: labels per value, status and method through a values table', () => {
    const choice: MappingChoice = {
      entity: 'ar-rows',
      columns: { 'customers.name': 'Customer', 'invoices.invoice_number': 'Invoice', 'payments.amount': 'Paid' },
      date: 'D/M/YYYY',
      decimal: ',',
      valueMaps: [
        { column: 'Flag', target: 'label', values: { D: 'Disputed', H: 'On hold', N: '' } },
        { column: 'State', target: 'status', values: { ok: 'PAID', part: 'PARTIAL' } },
        { column: 'How', target: 'payment_method', values: { chq: 'CHECK', ' ': '' } },
      ],
    };
    expect(buildMapping(choice)).toEqual({
      entity: 'ar-rows',
      formats: { date: 'D/M/YYYY', decimal: ',' },
      customers: { name: 'Customer' },
      invoices: {
        invoice_number: 'Invoice',
        labels: [
          { label: 'Disputed', column: 'Flag', equals: 'D' },
          { label: 'On hold', column: 'Flag', equals: 'H' },
        ],
      },
      payments: { amount: 'Paid', status: { column: 'State', values: { ok: 'PAID', part: 'PARTIAL' } }, payment_method: { column: 'How', values: { chq: 'CHECK' } } },
    });
    // A customers file has no invoice labels or payment status: those maps are left out.
    expect(buildMapping({ ...choice, entity: 'customers' })).toEqual({ entity: 'customers', formats: { date: 'D/M/YYYY', decimal: ',' }, customers: { name: 'Customer' } });
  });
});

describe('the IBM sample without its preset', () => {
  let engine: TestEngine;
  let companyId: string;
  const bytes = readFileSync(IBM_AR_CSV);

  beforeAll(async () => {
    engine = await testEngine('2026-11-23T12:00:00.000Z');
    companyId = await addCompany(engine, 'IBM by guess');
  });
  afterAll(async () => engine.dispose());

  /** What a person maps by hand, reading the file: the preset's columns and the Disputed label. */
  const byHand: MappingChoice = {
    entity: 'ar-rows',
    columns: {
      'customers.remote_id': 'customerID',
      'customers.name': 'customerID',
      'customers.country': 'countryCode',
      'invoices.invoice_number': 'invoiceNumber',
      'invoices.invoice_date': 'InvoiceDate',
      'invoices.due_date': 'DueDate',
      'invoices.total_amount': 'InvoiceAmount',
      'invoices.bill_channel': 'PaperlessBill',
      'payments.amount': 'InvoiceAmount',
      'payments.payment_date': 'SettledDate',
    },
    date: 'M/D/YYYY',
    decimal: '.',
    valueMaps: [{ column: 'Disputed', target: 'label', values: { Yes: 'Disputed' } }],
  };

  /** Each field, format or value map the guess got wrong is one correction a person makes. */
  function corrections(guess: MappingChoice): string[] {
    const keys = new Set([...Object.keys(guess.columns), ...Object.keys(byHand.columns)]);
    const wrong = [...keys].filter((k) => guess.columns[k] !== byHand.columns[k]);
    if (guess.date !== byHand.date) wrong.push('date format');
    if (guess.decimal !== byHand.decimal) wrong.push('decimal');
    if (JSON.stringify(guess.valueMaps) !== JSON.stringify(byHand.valueMaps)) wrong.push('value maps');
    return wrong;
  }

  it('maps fully from the preview in at most two corrections, and the guess imports every row with its 561 disputes', async () => {
    const preview = await previewFile(bytes, {});
    const guess = guessChoice('ar-rows', preview.columns);
    expect(guessDateFormat(preview.columns)).toEqual({ format: 'M/D/YYYY', fits: ['M/D/YYYY'], ambiguous: false });
    const needed = corrections(guess);
    expect(needed.length, `corrections: ${needed.join(', ')}`).toBeLessThanOrEqual(2);

    const corrected: MappingChoice = { ...guess, columns: { ...guess.columns }, valueMaps: byHand.valueMaps, date: byHand.date, decimal: byHand.decimal };
    for (const key of needed.filter((k) => k.includes('.'))) {
      if (byHand.columns[key]) corrected.columns[key] = byHand.columns[key];
      else delete corrected.columns[key];
    }
    const report = await runImport(engine, companyId, bytes, buildMapping(corrected));
    expect(report.errors).toEqual([]);
    expect(report.counts).toEqual({
      customers: { created: 100, updated: 0, unchanged: 0 },
      invoices: { created: 2466, updated: 0, unchanged: 0 },
      payments: { created: 2466, updated: 0, unchanged: 0 },
    });
    const disputed = engine.database.sqlite
      .prepare("SELECT count(*) AS n FROM invoice_labels il JOIN labels l ON l.id = il.label_id WHERE l.name = 'Disputed' AND l.company_id = ?")
      .get(companyId) as { n: number };
    expect(disputed.n).toBe(561);
  });
});
