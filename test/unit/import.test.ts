import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemActor } from '../../core/engine';
import { NotFoundError, ValidationError } from '../../core/errors';
import { changePaymentStatus } from '../../core/payments/commands';
import { addCompany } from '../support/api';
import { testEngine, type TestEngine } from '../support/engine';
import { AR_HEADER, AR_MAPPING, csv, rowCount, runImport, workbook } from '../support/import-fixtures';

let engine: TestEngine;
let companyId: string;

beforeEach(async () => {
  engine = await testEngine('2026-11-23T12:00:00.000Z');
  companyId = await addCompany(engine, 'Acme AR');
});
afterEach(async () => engine.dispose());

const sqlite = () => engine.database.sqlite;
const invoice = (number: string) => sqlite().prepare('SELECT * FROM invoices WHERE invoice_number = ?').get(number) as Record<string, any>;
const changes = () => sqlite().prepare('SELECT entity, op, data FROM changes WHERE command = ? ORDER BY seq').all('import') as Array<{ entity: string; op: string; data: string }>;

const AR_ROWS = [
  AR_HEADER,
  ['C-1', 'Globex, Inc.', 'US', 'ap@globex.test', '000101', '1/5/2026', '2/4/2026', '100.00', 'No', '100.00', '1/20/2026', 'ach'],
  ['C-1', 'Globex, Inc.', 'US', 'ap@globex.test', '000102', '2/5/2026', '3/7/2026', '250.50', 'Yes', '50.50', '3/1/2026', 'Check'],
  ['C-2', 'Initech', 'DE', '', '000103', '10/1/2026', '10/31/2026', '75.25', '', '', '', ''],
];

describe('importing combined AR rows', () => {
  it('creates customers, invoices and payments, with balances from the payments', async () => {
    const report = await runImport(engine, companyId, csv(AR_ROWS), AR_MAPPING);
    expect(report).toEqual({
      dry_run: false,
      entity: 'ar-rows',
      preset: null,
      rows: 3,
      counts: { customers: { created: 2, updated: 0, unchanged: 0 }, invoices: { created: 3, updated: 0, unchanged: 0 }, payments: { created: 2, updated: 0, unchanged: 0 } },
      labels_created: ['Disputed'],
      notes: [],
      errors: [],
    });
    expect(invoice('000101')).toMatchObject({ customer_name: 'Globex, Inc.', total_amount: 10000, paid_amount: 10000, balance: 0, closing_reason: 'paid', closed_date: '2026-01-20' });
    expect(invoice('000102')).toMatchObject({ total_amount: 25050, paid_amount: 5050, balance: 20000, closing_reason: null, due_date: '2026-03-07' });
    expect(invoice('000103')).toMatchObject({ customer_name: 'Initech', paid_amount: 0, balance: 7525, closing_reason: null });
    const payments = sqlite().prepare('SELECT remote_id, status, payment_method, amount FROM payments ORDER BY remote_id').all();
    expect(payments).toEqual([
      { remote_id: 'pay-000101', status: 'PAID', payment_method: 'ACH', amount: 10000 },
      { remote_id: 'pay-000102', status: 'PARTIAL', payment_method: 'CHECK', amount: 5050 },
    ]);
    const labelled = sqlite().prepare('SELECT i.invoice_number FROM invoice_labels l JOIN invoices i ON i.id = l.invoice_id').all();
    expect(labelled).toEqual([{ invoice_number: '000102' }]);
    expect(sqlite().prepare('SELECT c.name, l.name AS location, l.country, k.email, k.is_billing FROM customers c JOIN customer_locations l ON l.customer_id = c.id LEFT JOIN customer_contacts k ON k.customer_id = c.id ORDER BY c.name').all()).toEqual([
      { name: 'Globex, Inc.', location: 'Main', country: 'US', email: 'ap@globex.test', is_billing: 1 },
      { name: 'Initech', location: 'Main', country: 'DE', email: null, is_billing: null },
    ]);
    // Every written row is recorded, and the invoice's money state from its payments too.
    const byEntity = changes().reduce<Record<string, number>>((acc, c) => ({ ...acc, [`${c.entity}.${c.op}`]: (acc[`${c.entity}.${c.op}`] ?? 0) + 1 }), {});
    expect(byEntity).toEqual({
      'label.insert': 1,
      'customer.insert': 2,
      'customer_location.insert': 2,
      'customer_contact.insert': 1,
      'invoice.insert': 3,
      'invoice_label.insert': 1,
      'payment.insert': 2,
    });
    // Recorded as the invoices area records an assignment: one change per invoice and label.
    const assigned = sqlite().prepare("SELECT invoice_id, label_id FROM invoice_labels").get() as { invoice_id: string; label_id: string };
    const labelChange = sqlite().prepare("SELECT entity_id, data FROM changes WHERE entity = 'invoice_label'").get();
    expect(labelChange).toEqual({ entity_id: `${assigned.invoice_id}:${assigned.label_id}`, data: JSON.stringify(assigned) });
    const totals = sqlite().prepare("SELECT state, invoice_count, balance FROM invoice_due_totals WHERE company_id = ? ORDER BY state").all(companyId);
    expect(totals).toEqual([
      { state: 'open', invoice_count: 1, balance: 20000 },
      { state: 'open', invoice_count: 1, balance: 7525 },
      { state: 'paid', invoice_count: 1, balance: 0 },
    ]);
  });

  it('a dry run checks every row, reports every error and writes nothing', async () => {
    const rows = [
      AR_HEADER,
      ['C-1', 'Globex', 'US', 'not-an-email', '1', '13/5/2026', '', 'ten', 'Maybe', '', '', ''],
      ['C-1', 'Globex', 'US', '', '2', '1/5/2026', '1/4/2026', '5', 'No', '9', '12/24/2026', ''],
      ['C-2', 'Initech', 'US', '', '3', '1/5/2026', '', '5', 'No', '', '', ''],
      ['', '', '', '', '3', '1/5/2026', '', '5', 'No', '', '', '', 'extra'],
    ];
    const recorded = rowCount(engine, 'changes');
    const report = await runImport(engine, companyId, csv(rows), AR_MAPPING, { dryRun: true });
    expect(report.errors).toEqual([
      { row: 2, column: 'Email', message: 'Contact email: "not-an-email" is not an email address' },
      { row: 2, column: 'Date', message: 'Invoice date: "13/5/2026" is not a date in the format M/D/YYYY' },
      { row: 2, column: 'Amount', message: 'Total amount: "ten" is not an amount (decimal separator ".")' },
      { row: 2, column: 'Disputed', message: 'label Disputed: "Maybe" is not one of yes, y, true, 1, x, no, n, false, 0' },
      { row: 3, column: 'Due', message: 'Due date: 2026-01-04 is before the invoice date 2026-01-05' },
      { row: 3, column: 'Paid on', message: 'Payment date: 2026-12-24 is in the future' },
      { row: 5, column: null, message: 'has 1 filled cell(s) beyond the 12 columns of the header' },
      { row: 5, column: 'Customer ID', message: 'Customer ID: is required to identify the customer' },
    ]);
    expect(report.counts.customers.created).toBe(1);
    expect(report.counts.invoices.created).toBe(1);
    for (const table of ['customers', 'invoices', 'payments', 'labels']) expect(rowCount(engine, table)).toBe(0);
    expect(rowCount(engine, 'changes')).toBe(recorded);
  });

  it('a real run with one bad row writes nothing at all', async () => {
    const rows = [...AR_ROWS, ['C-3', 'Hooli', 'US', '', '000104', '1/5/2026', '', '-5', 'No', '', '', '']];
    const before = rowCount(engine, 'changes');
    const report = await runImport(engine, companyId, csv(rows), AR_MAPPING);
    expect(report.errors).toEqual([{ row: 5, column: 'Amount', message: 'Total amount: must not be negative' }]);
    expect(report.counts).toEqual({
      customers: { created: 0, updated: 0, unchanged: 0 },
      invoices: { created: 0, updated: 0, unchanged: 0 },
      payments: { created: 0, updated: 0, unchanged: 0 },
    });
    expect(report.labels_created).toEqual([]);
    for (const table of ['customers', 'customer_locations', 'invoices', 'payments', 'labels', 'invoice_labels']) expect(rowCount(engine, table)).toBe(0);
    expect(rowCount(engine, 'changes')).toBe(before);
  });

  it('refuses a NUL in a cell as a row error (it would reach the CSV export as a raw byte)', async () => {
    const rows = [...AR_ROWS, ['C-3', 'Hoo\u0000li', 'US', '', '000104', '1/5/2026', '', '5', 'No', '', '', '']];
    const report = await runImport(engine, companyId, csv(rows), AR_MAPPING);
    expect(report.errors).toEqual([{ row: 5, column: 'Customer', message: 'Customer name: contains a NUL character or an unpaired surrogate' }]);
    expect(rowCount(engine, 'customers')).toBe(0);
  });

  it('importing the same file again changes nothing and records nothing', async () => {
    await runImport(engine, companyId, csv(AR_ROWS), AR_MAPPING);
    const recorded = rowCount(engine, 'changes');
    const updatedAt = invoice('000101').updated_at;
    engine.clock.set('2026-11-24T09:00:00.000Z');
    const again = await runImport(engine, companyId, csv(AR_ROWS), AR_MAPPING);
    expect(again.counts).toEqual({
      customers: { created: 0, updated: 0, unchanged: 2 },
      invoices: { created: 0, updated: 0, unchanged: 3 },
      payments: { created: 0, updated: 0, unchanged: 2 },
    });
    expect(again.labels_created).toEqual([]);
    expect(rowCount(engine, 'changes')).toBe(recorded);
    expect(invoice('000101').updated_at).toBe(updatedAt);
  });

  it('a changed file updates only what changed, and the balances follow', async () => {
    await runImport(engine, companyId, csv(AR_ROWS), AR_MAPPING);
    const seq = (sqlite().prepare('SELECT max(seq) AS s FROM changes').get() as { s: number }).s;
    engine.clock.set('2026-11-24T09:00:00.000Z');
    const changed = AR_ROWS.map((r) => [...r]);
    changed[1][7] = '120.00'; // the paid invoice grows: it reopens with 20.00 open
    changed[2][8] = 'No'; // no longer disputed
    changed[3][1] = 'Initech GmbH'; // renamed customer
    const report = await runImport(engine, companyId, csv(changed), AR_MAPPING);
    expect(report.counts).toEqual({
      customers: { created: 0, updated: 1, unchanged: 1 },
      invoices: { created: 0, updated: 2, unchanged: 1 },
      payments: { created: 0, updated: 0, unchanged: 2 },
    });
    expect(invoice('000101')).toMatchObject({ total_amount: 12000, paid_amount: 10000, balance: 2000, closing_reason: null, closed_date: null });
    expect(invoice('000103').customer_name).toBe('Initech GmbH');
    expect(rowCount(engine, 'invoice_labels')).toBe(0);
    const recorded = sqlite().prepare('SELECT entity, op, data FROM changes WHERE seq > ? ORDER BY seq').all(seq);
    expect(recorded).toEqual([
      { entity: 'customer', op: 'update', data: JSON.stringify({ name: 'Initech GmbH' }) },
      { entity: 'invoice', op: 'update', data: JSON.stringify({ total_amount: 12000 }) },
      { entity: 'invoice_label', op: 'delete', data: expect.stringContaining('label_id') },
      { entity: 'invoice', op: 'update', data: JSON.stringify({ balance: 2000, closing_reason: null, closed_date: null }) },
    ]);
  });

  it('refuses a customer whose rows disagree, naming the first row', async () => {
    const rows = [AR_HEADER, ['C-1', 'Globex', '', '', '1', '1/5/2026', '', '5', '', '', '', ''], ['C-1', 'Globex Corp', '', '', '2', '1/5/2026', '', '5', '', '', '', '']];
    const report = await runImport(engine, companyId, csv(rows), AR_MAPPING, { dryRun: true });
    expect(report.errors).toEqual([{ row: 3, column: 'Customer', message: 'Customer name: "Globex Corp" differs from "Globex" given for the same customer on row 2' }]);
  });

  it('takes a row per payment: rows repeating one invoice merge, and their payments add up', async () => {
    const mapping = { ...AR_MAPPING, payments: { amount: 'Paid', payment_date: 'Paid on' } };
    const rows = [
      AR_HEADER,
      ['C-1', 'Globex', '', '', '7', '1/5/2026', '', '90.00', 'Yes', '30.00', '1/10/2026', ''],
      ['C-1', 'Globex', '', '', '7', '1/5/2026', '', '90.00', 'Yes', '60.00', '1/20/2026', ''],
    ];
    const report = await runImport(engine, companyId, csv(rows), mapping);
    expect(report.errors).toEqual([]);
    expect(report.counts.invoices).toEqual({ created: 1, updated: 0, unchanged: 0 });
    expect(report.counts.payments).toEqual({ created: 2, updated: 0, unchanged: 0 });
    expect(invoice('7')).toMatchObject({ paid_amount: 9000, balance: 0, closing_reason: 'paid', closed_date: '2026-01-20' });
    expect(sqlite().prepare('SELECT status FROM payments ORDER BY payment_date').all()).toEqual([{ status: 'PARTIAL' }, { status: 'PAID' }]);
    const again = await runImport(engine, companyId, csv(rows), mapping);
    expect(again.counts.payments).toEqual({ created: 0, updated: 0, unchanged: 2 });
  });

  it('refuses rows of one invoice that disagree, and two invoices with one number', async () => {
    const rows = [
      AR_HEADER,
      ['C-1', 'Globex', '', '', '7', '1/5/2026', '', '5', 'No', '', '', ''],
      ['C-1', 'Globex', '', '', '7', '1/6/2026', '', '6', 'No', '', '', ''],
      ['C-1', 'Globex', '', '', '7', '1/5/2026', '', '5', 'Yes', '', '', ''],
      ['C-2', 'Initech', '', '', '7', '1/5/2026', '', '5', 'No', '', '', ''],
    ];
    const report = await runImport(engine, companyId, csv(rows), AR_MAPPING, { dryRun: true });
    expect(report.errors).toEqual([
      { row: 3, column: 'Date', message: 'Invoice date: "2026-01-06" differs from "2026-01-05" given for the same invoice on row 2' },
      { row: 4, column: 'Disputed', message: 'label Disputed: yes differs from no given for the same invoice on row 2' },
      { row: 5, column: null, message: 'the invoice is for customer "Globex" on row 2 but for "Initech" here' },
    ]);
    const numbered = { ...AR_MAPPING, invoices: { ...AR_MAPPING.invoices, remote_id: 'Method' } };
    const twins = [AR_HEADER, ['C-1', 'Globex', '', '', '8', '1/5/2026', '', '5', '', '', '', 'R1'], ['C-1', 'Globex', '', '', '8', '1/5/2026', '', '5', '', '', '', 'R2']];
    const clash = await runImport(engine, companyId, csv(twins), numbered, { dryRun: true });
    expect(clash.errors).toEqual([{ row: 3, column: 'Invoice', message: 'Invoice number: "8" is also on row 2, for another invoice' }]);
  });
});

describe("importing how each bill was sent (bill_channel, an invoice's issue-time fact)", () => {
  const mapping = { ...AR_MAPPING, invoices: { ...AR_MAPPING.invoices, bill_channel: 'Method' }, payments: undefined };

  it('stores paper or electronic in any case, refuses anything else as a row error, and a re-import changes nothing', async () => {
    const rows = [AR_HEADER, ['C-1', 'Globex', '', '', '1', '1/5/2026', '', '5', '', '', '', 'Paper'], ['C-1', 'Globex', '', '', '2', '1/6/2026', '', '5', '', '', '', 'ELECTRONIC'], ['C-1', 'Globex', '', '', '3', '1/7/2026', '', '5', '', '', '', '']];
    const bad = await runImport(engine, companyId, csv([...rows, ['C-1', 'Globex', '', '', '4', '1/8/2026', '', '5', '', '', '', 'fax']]), mapping, { dryRun: true });
    expect(bad.errors).toEqual([{ row: 5, column: 'Method', message: 'Bill sent on paper or electronically: "fax" is not one of paper, electronic' }]);
    const report = await runImport(engine, companyId, csv(rows), mapping);
    expect(report.errors).toEqual([]);
    expect([invoice('1').bill_channel, invoice('2').bill_channel, invoice('3').bill_channel]).toEqual(['paper', 'electronic', null]);
    const again = await runImport(engine, companyId, csv(rows), mapping);
    expect(again.counts.invoices).toEqual({ created: 0, updated: 0, unchanged: 3 });
  });
});

describe('importing customers', () => {
  const mapping = {
    customers: {
      remote_id: 'ID',
      name: 'Name',
      payment_terms_days: 'Terms',
      is_person: 'Person',
      city: 'City',
      contact_name: 'Contact',
      contact_email: 'Email',
    },
  };
  const header = ['ID', 'Name', 'Terms', 'Person', 'City', 'Contact', 'Email'];

  it('upserts by remote_id and links a hand-made customer by its exact name', async () => {
    await runImport(engine, companyId, csv([['Name'], ['Hooli']]), { customers: { name: 'Name' } }, { entity: 'customers' });
    const handMade = sqlite().prepare('SELECT id FROM customers WHERE name = ?').get('Hooli') as { id: string };
    const report = await runImport(
      engine,
      companyId,
      csv([header, ['H-1', 'Hooli', '45', 'no', 'Palo Alto', 'Gavin', 'gavin@hooli.test'], ['P-1', 'Pat Smith', '', 'yes', '', '', '']]),
      mapping,
      { entity: 'customers' },
    );
    expect(report.counts.customers).toEqual({ created: 1, updated: 1, unchanged: 0 });
    expect(sqlite().prepare('SELECT id, remote_id, payment_terms_days FROM customers WHERE name = ?').get('Hooli')).toEqual({ id: handMade.id, remote_id: 'H-1', payment_terms_days: 45 });
    expect(sqlite().prepare('SELECT is_person, payment_terms_days FROM customers WHERE remote_id = ?').get('P-1')).toEqual({ is_person: 1, payment_terms_days: 30 });
    // The same contact email in another case updates the billing contact instead of adding one.
    const next = await runImport(engine, companyId, csv([header, ['H-1', 'Hooli', '45', 'no', 'Palo Alto', 'Gavin Belson', 'GAVIN@hooli.test']]), mapping, { entity: 'customers' });
    expect(next.counts.customers).toEqual({ created: 0, updated: 1, unchanged: 0 });
    expect(sqlite().prepare('SELECT name, email, is_billing FROM customer_contacts').all()).toEqual([{ name: 'Gavin Belson', email: 'GAVIN@hooli.test', is_billing: 1 }]);
  });

  it('refuses a name shared by several customers when there is no remote_id', async () => {
    await runImport(engine, companyId, csv([['ID', 'Name'], ['A', 'Twin'], ['B', 'Twin']]), { customers: { remote_id: 'ID', name: 'Name' } }, { entity: 'customers' });
    const report = await runImport(engine, companyId, csv([['Name', 'Terms'], ['Twin', '10']]), { customers: { name: 'Name', payment_terms_days: 'Terms' } }, { entity: 'customers' });
    expect(report.errors).toEqual([{ row: 2, column: 'Name', message: 'Customer name: 2 customers are named "Twin"; map remote_id to tell them apart' }]);
  });

  it('needs a name to create a customer', async () => {
    const report = await runImport(engine, companyId, csv([['ID'], ['X-1']]), { customers: { remote_id: 'ID' } }, { entity: 'customers' });
    expect(report.errors).toEqual([{ row: 2, column: null, message: 'Customer name: is required for a new customer' }]);
  });
});

describe('importing invoices and payments as separate files', () => {
  const invoiceMapping = {
    formats: { date: 'D/M/YYYY' as const, decimal: ',' as const, delimiter: ';' as const },
    invoices: { invoice_number: 'Nr', customer_remote_id: 'Kunde', invoice_date: 'Datum', due_date: 'Fällig', total_amount: 'Betrag', remote_id: 'Ref' },
  };
  const paymentMapping = {
    payments: { invoice_number: 'Invoice', amount: 'Amount', payment_date: 'Date', status: 'Status' },
  };

  beforeEach(async () => {
    await runImport(engine, companyId, csv([['ID', 'Name', 'Terms'], ['K1', 'Müller AG', '14']]), { customers: { remote_id: 'ID', name: 'Name', payment_terms_days: 'Terms' } }, { entity: 'customers' });
  });

  it('finds the customer by remote_id and defaults the due date from its terms', async () => {
    const text = 'Nr;Kunde;Datum;Fällig;Betrag;Ref\n0042;K1;31/12/2025;;1.234,50;R-42\n0043;K9;01/01/2026;;10;R-43\n';
    const dry = await runImport(engine, companyId, text, invoiceMapping, { entity: 'invoices', dryRun: true });
    expect(dry.errors).toEqual([{ row: 3, column: 'Kunde', message: 'Customer ID: no customer has remote_id "K9"; import the customers first' }]);
    const report = await runImport(engine, companyId, text.split('\n').slice(0, 2).join('\n'), invoiceMapping, { entity: 'invoices' });
    expect(report.counts.invoices).toEqual({ created: 1, updated: 0, unchanged: 0 });
    expect(invoice('0042')).toMatchObject({ remote_id: 'R-42', customer_name: 'Müller AG', invoice_date: '2025-12-31', due_date: '2026-01-14', total_amount: 123450 });
  });

  it('renumbers an invoice found by remote_id, and refuses a number another invoice holds', async () => {
    await runImport(engine, companyId, 'Nr;Kunde;Datum;Fällig;Betrag;Ref\nA1;K1;1/1/2026;;10;R-1\nA2;K1;1/1/2026;;10;R-2\n', invoiceMapping, { entity: 'invoices' });
    const renumber = await runImport(engine, companyId, 'Nr;Kunde;Datum;Fällig;Betrag;Ref\nA1-X;K1;1/1/2026;;10;R-1\n', invoiceMapping, { entity: 'invoices' });
    expect(renumber.counts.invoices).toEqual({ created: 0, updated: 1, unchanged: 0 });
    expect(invoice('A1-X').remote_id).toBe('R-1');
    const clash = await runImport(engine, companyId, 'Nr;Kunde;Datum;Fällig;Betrag;Ref\nA2;K1;1/1/2026;;10;R-1\nA2;K1;1/1/2026;;10;R-3\n', invoiceMapping, { entity: 'invoices', dryRun: true });
    expect(clash.errors).toEqual([
      { row: 2, column: 'Nr', message: 'Invoice number: "A2" belongs to another invoice (remote_id R-2)' },
      { row: 3, column: 'Nr', message: 'Invoice number: "A2" is also on row 2, for another invoice' },
    ]);
  });

  it('matches payments without remote_id by invoice, date and amount, equal instalments included', async () => {
    await runImport(engine, companyId, 'Nr;Kunde;Datum;Fällig;Betrag;Ref\nP1;K1;1/1/2026;;300;\n', invoiceMapping, { entity: 'invoices' });
    const file = csv([
      ['Invoice', 'Amount', 'Date', 'Status'],
      ['P1', '100', '2026-02-01', ''],
      ['P1', '100', '2026-02-01', ''],
      ['P1', '100', '2026-03-01', 'pending'],
    ]);
    const first = await runImport(engine, companyId, file, paymentMapping, { entity: 'payments' });
    expect(first.counts.payments).toEqual({ created: 3, updated: 0, unchanged: 0 });
    expect(sqlite().prepare('SELECT status FROM payments ORDER BY payment_date, created_at, id').all()).toEqual([{ status: 'PARTIAL' }, { status: 'PARTIAL' }, { status: 'PENDING' }]);
    expect(invoice('P1')).toMatchObject({ paid_amount: 20000, balance: 10000, closing_reason: null });
    const again = await runImport(engine, companyId, file, paymentMapping, { entity: 'payments' });
    expect(again.counts.payments).toEqual({ created: 0, updated: 0, unchanged: 3 });
    // The pending one arrived: settling it by file closes the invoice.
    const settled = await runImport(engine, companyId, file.replace('pending', 'PAID'), paymentMapping, { entity: 'payments' });
    expect(settled.counts.payments).toEqual({ created: 0, updated: 1, unchanged: 2 });
    expect(invoice('P1')).toMatchObject({ paid_amount: 30000, balance: 0, closing_reason: 'paid', closed_date: '2026-03-01' });
    const backwards = await runImport(engine, companyId, file.replace('pending', 'FAILED'), paymentMapping, { entity: 'payments', dryRun: true });
    expect(backwards.errors).toEqual([{ row: 4, column: 'Status', message: 'Payment status: a PAID payment cannot become FAILED' }]);
  });

  it('moves a payment found by remote_id to the invoice the file names, recomputing both', async () => {
    await runImport(engine, companyId, 'Nr;Kunde;Datum;Fällig;Betrag;Ref\nM1;K1;1/1/2026;;80;\nM2;K1;1/1/2026;;80;\n', invoiceMapping, { entity: 'invoices' });
    const mapping = { payments: { remote_id: 'Ref', invoice_number: 'Invoice', amount: 'Amount', payment_date: 'Date' } };
    const header = ['Ref', 'Invoice', 'Amount', 'Date'];
    await runImport(engine, companyId, csv([header, ['PAY-1', 'M1', '80', '2026-02-01']]), mapping, { entity: 'payments' });
    expect(invoice('M1')).toMatchObject({ balance: 0, closing_reason: 'paid' });
    const seq = (sqlite().prepare('SELECT max(seq) AS s FROM changes').get() as { s: number }).s;
    const moved = await runImport(engine, companyId, csv([header, ['PAY-1', 'M2', '80', '2026-02-01']]), mapping, { entity: 'payments' });
    expect(moved.counts.payments).toEqual({ created: 0, updated: 1, unchanged: 0 });
    expect(invoice('M1')).toMatchObject({ paid_amount: 0, balance: 8000, closing_reason: null });
    expect(invoice('M2')).toMatchObject({ paid_amount: 8000, balance: 0, closing_reason: 'paid', closed_date: '2026-02-01' });
    const recorded = sqlite().prepare('SELECT entity, entity_id FROM changes WHERE seq > ? ORDER BY seq').all(seq) as Array<{ entity: string; entity_id: string }>;
    expect(recorded.map((r) => r.entity)).toEqual(['payment', 'invoice', 'invoice']);
    expect(new Set(recorded.slice(1).map((r) => r.entity_id))).toEqual(new Set([invoice('M1').id, invoice('M2').id]));
  });

  it('leaves a payment voided in ardesk voided, and refuses unknown invoices', async () => {
    await runImport(engine, companyId, 'Nr;Kunde;Datum;Fällig;Betrag;Ref\nV1;K1;1/1/2026;;50;\n', invoiceMapping, { entity: 'invoices' });
    const file = csv([
      ['Invoice', 'Amount', 'Date', 'Status'],
      ['V1', '50', '2026-02-01', ''],
    ]);
    await runImport(engine, companyId, file, paymentMapping, { entity: 'payments' });
    const payment = sqlite().prepare('SELECT id FROM payments').get() as { id: string };
    await changePaymentStatus(engine, { actor: systemActor, companyId }, payment.id, 'void');
    const again = await runImport(engine, companyId, file, paymentMapping, { entity: 'payments' });
    expect(again.counts.payments).toEqual({ created: 0, updated: 0, unchanged: 1 });
    expect(sqlite().prepare('SELECT status FROM payments').all()).toEqual([{ status: 'VOIDED' }]);
    expect(invoice('V1')).toMatchObject({ balance: 5000, closing_reason: null });
    const unknown = await runImport(engine, companyId, csv([['Invoice', 'Amount', 'Date', 'Status'], ['NOPE', '5', '2026-02-01', '']]), paymentMapping, { entity: 'payments' });
    expect(unknown.errors).toEqual([{ row: 2, column: 'Invoice', message: 'Invoice number: no invoice has the number "NOPE"' }]);
  });
});

describe('importing an XLSX workbook', () => {
  it('reads typed cells from the chosen sheet', async () => {
    const bytes = await workbook({
      Notes: [['nothing here']],
      Invoices: [
        ['Customer ID', 'Customer', 'Invoice', 'Date', 'Amount', 'Paid', 'Paid on'],
        ['X1', 'Wonka', '000777', new Date(Date.UTC(2026, 0, 15)), 1234.5, 1234.5, { formula: 'D2+10', result: new Date(Date.UTC(2026, 0, 25)) }],
        ['X1', 'Wonka', { richText: [{ text: '0007' }, { text: '78' }] }, 46037, 10, null, null],
      ],
    });
    const mapping = {
      entity: 'ar-rows' as const,
      customers: { remote_id: 'Customer ID', name: 'Customer' },
      invoices: { invoice_number: 'Invoice', invoice_date: 'Date', total_amount: 'Amount' },
      payments: { amount: 'Paid', payment_date: 'Paid on' },
    };
    const report = await runImport(engine, companyId, bytes, mapping, { sheet: 'Invoices' });
    expect(report.errors).toEqual([]);
    expect(report.counts.invoices.created).toBe(2);
    expect(invoice('000777')).toMatchObject({ invoice_date: '2026-01-15', due_date: '2026-02-14', total_amount: 123450, closing_reason: 'paid', closed_date: '2026-01-25' });
    expect(invoice('000778')).toMatchObject({ invoice_date: '2026-01-15', total_amount: 1000, balance: 1000 });
  });

  it('names the sheets when the chosen one does not exist', async () => {
    const bytes = await workbook({ First: [['a']], Second: [['b']] });
    await expect(runImport(engine, companyId, bytes, { customers: { name: 'a' } }, { entity: 'customers', sheet: 'Third' })).rejects.toMatchObject({
      errors: { sheet: ['No such sheet; the sheets are: First, Second'] },
    });
  });
});

describe('what an import refuses before reading rows', () => {
  it('an unknown company, a missing entity, a mapping that does not fit', async () => {
    await expect(runImport(engine, '01900000-0000-7000-8000-000000000000', 'a\n1', { customers: { name: 'a' } }, { entity: 'customers' })).rejects.toBeInstanceOf(NotFoundError);
    await expect(runImport(engine, companyId, 'a\n1', { customers: { name: 'a' } })).rejects.toMatchObject({ errors: { entity: [expect.stringMatching(/ar-rows/)] } });
    await expect(runImport(engine, companyId, 'a\n1', { customers: { name: 'b' } }, { entity: 'customers' })).rejects.toBeInstanceOf(ValidationError);
  });
});
