/**
 * The file of issue 40: headers "Doc No, Client, Amt Due, Inv Date, Due, Stat" with Stat OPEN or
 * PAID. Through the API as the wizard does it (preview, the guess, a dry run, the import): the
 * paid invoices come in closed, on the import date, and the dry run says so. And an accounting
 * system's export with no mapping at all: the preset is recognised from its columns.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../core/http/app';
import { buildMapping, guessChoice } from '../../core/import/guess';
import { addCompany, addUser, type App, loginAs } from '../support/api';
import { type TestEngine, testEngine } from '../support/engine';
import { csv } from '../support/import-fixtures';

const TODAY = '2026-11-28';

async function upload(app: App, path: string, token: string, fields: Record<string, string | Blob>) {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) {
    if (value instanceof Blob) form.append(name, value, 'upload.csv');
    else form.append(name, value);
  }
  const res = await app.request(path, { method: 'POST', body: form, headers: { authorization: `Token ${token}` } });
  return { status: res.status, body: (await res.json()) as any };
}

const FILE = csv([
  ['Doc No', 'Client', 'Amt Due', 'Inv Date', 'Due', 'Stat'],
  ['UX-1001', 'Umbra Exports', '1,200.00', '10/02/2026', '11/01/2026', 'OPEN'],
  ['UX-1002', 'Umbra Exports', '860.00', '10/09/2026', '11/08/2026', 'OPEN'],
  ['UX-1003', 'Vantage Retail', '1,790.00', '10/11/2026', '11/10/2026', 'PAID'],
  ['UX-1004', 'Vantage Retail', '455.50', '10/20/2026', '11/19/2026', 'OPEN'],
  ['UX-1005', 'Wexford Supply', '2,010.00', '11/02/2026', '12/02/2026', 'OPEN'],
  ['UX-1006', 'Wexford Supply', '1,250.00', '11/13/2026', '12/13/2026', 'PAID'],
]);

describe('an invoice status column (issue 40)', () => {
  let engine: TestEngine;
  let app: App;
  let token: string;
  let company: string;
  let base: string;

  beforeAll(async () => {
    engine = await testEngine(`${TODAY}T12:00:00.000Z`);
    app = createApp(engine);
    company = await addCompany(engine, 'Status file');
    await addUser(engine, 'stat-owner', [[company, 'owner']]);
    token = await loginAs(app, 'stat-owner');
    base = `/api/companies/${company}/imports`;
  });
  afterAll(async () => engine.dispose());

  const invoice = (number: string) =>
    engine.database.sqlite.prepare('SELECT total_amount, balance, closing_reason, closed_date FROM invoices WHERE company_id = ? AND invoice_number = ?').get(company, number);

  it('OPEN/PAID imports with the paid invoices closed as paid on the import date, which the dry run says', async () => {
    const preview = await upload(app, `${base}/preview`, token, { file: new Blob([FILE]) });
    expect(preview.status).toBe(200);
    expect(preview.body.preset).toBeNull();
    const choice = guessChoice('ar-rows', preview.body.columns);
    expect(choice.columns).toMatchObject({
      'invoices.invoice_number': 'Doc No',
      'customers.name': 'Client',
      'invoices.total_amount': 'Amt Due',
      'invoices.invoice_date': 'Inv Date',
      'invoices.due_date': 'Due',
      'invoices.status': 'Stat',
    });
    const mapping = JSON.stringify(buildMapping(choice));

    const dry = await upload(app, base, token, { file: new Blob([FILE]), mapping, dry_run: 'true' });
    expect(dry.status).toBe(200);
    expect(dry.body.errors).toEqual([]);
    expect(dry.body.counts.invoices.created).toBe(6);
    expect(dry.body.counts.payments.created).toBe(2);
    expect(dry.body.notes).toContain(`2 payments the file shows without a date (an invoice marked paid, or an open amount below the total): dated ${TODAY}, the import date`);
    expect(engine.database.sqlite.prepare('SELECT count(*) AS n FROM invoices WHERE company_id = ?').get(company)).toEqual({ n: 0 });

    const real = await upload(app, base, token, { file: new Blob([FILE]), mapping });
    expect(real.status).toBe(200);
    expect(invoice('UX-1003')).toEqual({ total_amount: 179000, balance: 0, closing_reason: 'paid', closed_date: TODAY });
    expect(invoice('UX-1006')).toEqual({ total_amount: 125000, balance: 0, closing_reason: 'paid', closed_date: TODAY });
    expect(invoice('UX-1001')).toEqual({ total_amount: 120000, balance: 120000, closing_reason: null, closed_date: null });
    const open = engine.database.sqlite.prepare('SELECT sum(balance) AS n FROM invoices WHERE company_id = ? AND closing_reason IS NULL').get(company);
    // 7,565.50 in the file, less the 3,040.00 of the two paid invoices.
    expect(open).toEqual({ n: 452550 });

    const again = await upload(app, base, token, { file: new Blob([FILE]), mapping });
    expect(again.body.counts.payments).toEqual({ created: 0, updated: 0, unchanged: 0 });
    expect(again.body.counts.invoices.unchanged).toBe(6);
  });

  it('a status no ledger writes is a row error in words, naming the column', async () => {
    const bad = csv([
      ['Doc No', 'Client', 'Amt Due', 'Inv Date', 'Due', 'Stat'],
      ['UX-2001', 'Umbra Exports', '10.00', '10/02/2026', '11/01/2026', 'MAYBE'],
    ]);
    const mapping = JSON.stringify({ entity: 'ar-rows', formats: { date: 'M/D/YYYY' }, customers: { name: 'Client' }, invoices: { invoice_number: 'Doc No', total_amount: 'Amt Due', invoice_date: 'Inv Date', due_date: 'Due', status: 'Stat' } });
    const res = await upload(app, base, token, { file: new Blob([bad]), mapping, dry_run: 'true' });
    expect(res.body.errors).toEqual([{ row: 2, column: 'Stat', message: 'Invoice status: "MAYBE" is not an invoice status: map it to one of open, partial, paid, void, draft, credit' }]);
  });

  it('a QuickBooks A/R Aging Detail export imports with no mapping: the preset is recognised and said', async () => {
    const file = readFileSync(resolve(__dirname, '../fixtures/import-presets/qbo-ar-aging-detail.csv'));
    const preview = await upload(app, `${base}/preview`, token, { file: new Blob([file]) });
    expect(preview.body).toMatchObject({ preset: 'qbo-ar-aging-detail', preset_label: 'QuickBooks Online: A/R Aging Detail', row_count: 4 });
    expect(preview.body.headers).toContain('Open Balance');
    const dry = await upload(app, base, token, { file: new Blob([file]), dry_run: 'true' });
    expect(dry.status).toBe(200);
    expect(dry.body).toMatchObject({ preset: 'qbo-ar-aging-detail', counts: { invoices: { created: 3 } } });
    expect(dry.body.notes[0]).toBe('Recognised as QuickBooks Online: A/R Aging Detail (preset qbo-ar-aging-detail)');
  });
});
