/**
 * Banks' CSV and XLSX exports over the real API and a real SQLite file: without a mapping a 400
 * asking for one, the preview's guess from the headers, an import with the mapping that keeps it
 * for the company, the next file of that layout imported without one (its entries not added
 * twice), a bad mapping refused naming the column, the bounds of a hostile table, a long one read
 * in slices.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { call, useApiWorkspace } from '../support/api';
import { type Ledger, ledger } from '../support/ledger-fixtures';

const fixture = (name: string) => readFileSync(join(import.meta.dirname, '../fixtures/bank', name));
const GERMAN = fixture('bank-export-semicolon.csv');
const UK = fixture('bank-export-paid-in-out.xlsx');

describe('bank CSV and XLSX exports through a column mapping', () => {
  const w = useApiWorkspace();
  let l: Ledger;
  const inv: Record<string, string> = {};

  beforeEach(async () => {
    w.engine.clock.set('2026-11-23T12:00:00.000Z');
    l = ledger(w.engine, w.company);
    const max = await l.customer({ name: 'Max Mustermann' });
    const globex = await l.customer({ name: 'Globex Corp' });
    inv['INV-10231'] = await l.invoice({ customer: max, number: 'INV-10231', total: 734.5, dueDate: '2026-11-01' });
    inv['INV-10240'] = await l.invoice({ customer: globex, number: 'INV-10240', total: 250, dueDate: '2026-11-01' });
  });

  async function send(path: string, file: Buffer, name: string, fields: Record<string, string> = {}, token = w.tokens.demo) {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(file)]), name);
    for (const [k, v] of Object.entries(fields)) form.append(k, v);
    const res = await w.app.request(`${w.base}/${path}`, { method: 'POST', body: form, headers: { authorization: `Token ${token}` } });
    return { status: res.status, body: (await res.json()) as any };
  }
  const upload = (file: Buffer, name: string, mapping?: object | string) => send('bank-statements', file, name, mapping === undefined ? {} : { mapping: typeof mapping === 'string' ? mapping : JSON.stringify(mapping) });
  const preview = (file: Buffer, name: string) => send('bank-statements/preview', file, name);
  const entries = async () => Number((await w.engine.db.selectFrom('bank_transactions').select((eb) => eb.fn.countAll<number>().as('n')).where('company_id', '=', w.company).executeTakeFirstOrThrow()).n);
  const kept = () => w.engine.db.selectFrom('bank_mappings').select(['company_id', 'headers', 'mapping']).where('company_id', '=', w.company).execute();

  it('a CSV export: a 400 asking for a mapping, the guess from its headers, imported with the mapping kept for the next file, which adds no entry twice', async () => {
    const refused = await upload(GERMAN, 'umsaetze.csv');
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('statement_mapping_required');
    expect(refused.body.detail).toContain('Buchungstag, Valuta, Auftraggeber/Empfänger, IBAN, Verwendungszweck, Betrag, Waehrung, Referenz');

    const seen = await preview(GERMAN, 'umsaetze.csv');
    expect(seen.status).toBe(200);
    // The blank row is not a row.
    expect(seen.body).toMatchObject({ format: 'csv', row_count: 4, saved: null });
    expect(seen.body.rows[0]).toEqual(['03.11.2026', '03.11.2026', 'Max Mustermann', 'DE91 3705 0198 0100 5580 00', 'Rechnung INV-10231', '734,50', 'EUR', 'TX-0001']);
    expect(seen.body.guess).toEqual({
      mapping: {
        currency: 'USD',
        date: 'Buchungstag',
        value_date: 'Valuta',
        amount: 'Betrag',
        currency_column: 'Waehrung',
        payer: 'Auftraggeber/Empfänger',
        payer_account: 'IBAN',
        bank_reference: 'Referenz',
        reference: ['Verwendungszweck'],
        date_format: 'DD.MM.YYYY',
        decimal: ',',
      },
      missing: ['account'],
    });

    const mapping = { ...seen.body.guess.mapping, account: 'DE02 1203 0000 0000 2020 51', currency: 'EUR' };
    const first = await upload(GERMAN, 'umsaetze.csv', mapping);
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.body).toMatchObject({ format: 'csv', account: 'DE02120300000000202051', currency: 'EUR', period_start: '2026-11-03', period_end: '2026-11-05', entries: 4, credits: 3, debits: 1, duplicates: 0 });
    expect(await kept()).toEqual([{ company_id: w.company, headers: JSON.stringify(seen.body.headers), mapping: expect.any(String) }]);
    expect(JSON.parse((await kept())[0].mapping)).toMatchObject({ account: 'DE02 1203 0000 0000 2020 51', amount: 'Betrag', date_format: 'DD.MM.YYYY' });

    // The next file from that bank: no mapping sent, the kept one fits, the entries already known are not added.
    expect((await preview(GERMAN, 'umsaetze.csv')).body.saved).toMatchObject({ account: 'DE02 1203 0000 0000 2020 51', amount: 'Betrag' });
    const again = await upload(GERMAN, 'umsaetze-2.csv');
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ entries: 4, duplicates: 4, applied: 0, suggested: 0, unmatched: 0 });
    expect(await entries()).toBe(4);
    // Another company has none of it.
    expect((await call(w.app, 'GET', `/api/companies/${w.other}/bank-transactions`, { token: w.tokens.rival })).body.data).toEqual([]);
  });

  it('an XLSX export with date cells and paid-in/paid-out columns: guessed, imported, its credit quoting the invoice applied; again, nothing added', async () => {
    const seen = await preview(UK, 'statement.xlsx');
    expect(seen.status).toBe(200);
    expect(seen.body.format).toBe('xlsx');
    expect(seen.body.guess.mapping).toEqual({ currency: 'USD', date: 'Date', credit: 'Paid in', debit: 'Paid out', payer: 'Payer', reference: ['Description'], date_format: 'YYYY-MM-DD', decimal: '.' });
    const mapping = { ...seen.body.guess.mapping, account: 'GB29NWBK60161331926819' };
    const first = await upload(UK, 'statement.xlsx', mapping);
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.body).toMatchObject({ format: 'xlsx', entries: 3, credits: 2, debits: 1, applied: 1, duplicates: 0 });
    const invoice = await w.engine.db.selectFrom('invoices').select(['balance', 'closing_reason']).where('id', '=', inv['INV-10231']).executeTakeFirstOrThrow();
    expect(invoice).toEqual({ balance: 0, closing_reason: 'paid' });
    const again = await upload(UK, 'statement.xlsx');
    expect(again.body).toMatchObject({ entries: 3, duplicates: 3, applied: 0 });
    expect(await entries()).toBe(3);
    // Both layouts kept side by side; each file finds its own.
    await upload(GERMAN, 'umsaetze.csv', { ...(await preview(GERMAN, 'u.csv')).body.guess.mapping, account: 'DE02120300000000202051' });
    expect(await kept()).toHaveLength(2);
    expect((await preview(UK, 'statement.xlsx')).body.saved).toMatchObject({ account: 'GB29NWBK60161331926819', credit: 'Paid in' });
  });

  it('a bad mapping is a 400 naming the column or the field, and writes nothing', async () => {
    const good = { account: 'DE02120300000000202051', currency: 'EUR', date: 'Buchungstag', amount: 'Betrag', reference: ['Verwendungszweck'], date_format: 'DD.MM.YYYY', decimal: ',' };
    const noColumn = await upload(GERMAN, 'u.csv', { ...good, amount: 'Amount' });
    expect(noColumn.status).toBe(400);
    expect(noColumn.body.detail).toBe('The file has no column "Amount"; its columns are: Buchungstag, Valuta, Auftraggeber/Empfänger, IBAN, Verwendungszweck, Betrag, Waehrung, Referenz');
    const wrongFormat = await upload(GERMAN, 'u.csv', { ...good, date_format: 'YYYY-MM-DD' });
    expect(wrongFormat.status).toBe(400);
    expect(wrongFormat.body.detail).toBe('Row 2: the date "03.11.2026" is not a date in the format YYYY-MM-DD');
    const badField = await upload(GERMAN, 'u.csv', { ...good, date_format: 'D-M-Y' });
    expect(badField.status).toBe(400);
    expect(Object.keys(badField.body.errors)).toEqual(['mapping.date_format']);
    const both = await upload(GERMAN, 'u.csv', { ...good, credit: 'Betrag' });
    expect(both.status).toBe(400);
    expect(both.body.errors['mapping.amount']).toEqual(['Map either one amount column or credit and debit columns']);
    expect((await upload(GERMAN, 'u.csv', '{not json')).body.errors).toEqual({ mapping: ['Send the column mapping as a JSON object'] });
    const camt = Buffer.from('<?xml version="1.0"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt></BkToCstmrStmt></Document>');
    expect((await upload(camt, 's.xml', good)).body.errors).toEqual({ mapping: ['Only a CSV or XLSX export takes a column mapping'] });
    expect(await entries()).toBe(0);
    expect(await kept()).toEqual([]);
    // Viewers read; importing (and its preview) is a collector's.
    expect((await send('bank-statements/preview', GERMAN, 'u.csv', {}, w.tokens.watcher)).status).toBe(403);
    expect((await send('bank-statements', GERMAN, 'u.csv', { mapping: JSON.stringify(good) }, w.tokens.watcher)).status).toBe(403);
  });

  it('a hostile table is bounded as an import is: too many columns or rows is a 413, nothing read further', async () => {
    const wide = Buffer.from(`${Array.from({ length: 250 }, (_, i) => `c${i}`).join(',')}\n1,2\n`);
    const res = await preview(wide, 'wide.csv');
    expect(res.status).toBe(413);
    expect(res.body.detail).toBe('Row 1 has more than 200 columns');
    const long = Buffer.from(`Date,Amount\n${'2026-11-01,1\n'.repeat(200_001)}`);
    const tall = await upload(long, 'long.csv', { account: 'X1', currency: 'USD', date: 'Date', amount: 'Amount', reference: [], date_format: 'YYYY-MM-DD', decimal: '.' });
    expect(tall.status).toBe(413);
    expect(await entries()).toBe(0);
  });

  it('a long export is read in slices to the same statement: every row an entry, the period from all of them', async () => {
    const rows = Array.from({ length: 1201 }, (_, i) => `2026-${i === 600 ? '09-30' : i === 1200 ? '11-20' : '10-15'},-1.${String(i % 100).padStart(2, '0')},fee ${i}`);
    const res = await upload(Buffer.from(`Date,Amount,Text\n${rows.join('\n')}\n`), 'fees.csv', { account: 'X1', currency: 'USD', date: 'Date', amount: 'Amount', reference: ['Text'], date_format: 'YYYY-MM-DD', decimal: '.' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ entries: 1201, debits: 1201, period_start: '2026-09-30', period_end: '2026-11-20' });
  });
});
