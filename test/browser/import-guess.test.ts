import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lookAndCheck } from '../support/axe';
import { apiGet, type Browser, ensureRendererBuilt, openBrowser, signIn } from '../support/browser';
import { IBM_AR_CSV } from '../support/import-fixtures';
import { type DemoServer, startDemoServer } from '../support/server';

/** What a person maps by hand for the IBM file: field label -> column. */
const BY_HAND: Record<string, string> = {
  'Customer fields|Customer ID': 'customerID',
  'Customer fields|Customer name': 'customerID',
  'Customer fields|Country': 'countryCode',
  'Invoice fields|Invoice number': 'invoiceNumber',
  'Invoice fields|Invoice date': 'InvoiceDate',
  'Invoice fields|Due date': 'DueDate',
  'Invoice fields|Total amount': 'InvoiceAmount',
  'Invoice fields|Bill sent on paper or electronically': 'PaperlessBill',
  'Payment fields|Payment amount': 'InvoiceAmount',
  'Payment fields|Payment date': 'SettledDate',
};

describe('the IBM file through the import wizard without its preset', () => {
  let server: DemoServer;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    await ensureRendererBuilt();
    server = await startDemoServer();
    browser = await openBrowser();
    page = browser.page;
    await signIn(page, server.url);
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('guesses the mapping, needs at most two corrections, imports every row and keeps the 561 disputes as a label', async () => {
    const companyId = /\/companies\/([0-9a-f-]{36})\//.exec(page.url())![1];
    const disputed = async () => {
      const labels = await apiGet<{ data: Array<{ id: string; name: string }> }>(page, `/api/companies/${companyId}/labels`);
      const label = labels.data.find((l) => l.name === 'Disputed');
      if (!label) return 0;
      return (await apiGet<{ count: number }>(page, `/api/companies/${companyId}/invoices?labels=${label.id}&page_size=1`)).count;
    };
    const before = await disputed();

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings', exact: true }).click();
    await page.getByRole('link', { name: 'Import' }).click();
    await page.getByLabel('CSV or XLSX file').setInputFiles({ name: 'ibm.csv', mimeType: 'text/csv', buffer: readFileSync(IBM_AR_CSV) });
    await page.getByRole('button', { name: 'Read the file' }).click();
    await expect.poll(() => page.getByTestId('import-preview').locator('tbody tr').count(), { timeout: 20_000 }).toBe(5);
    // The file is recognised as the IBM sample (issue 40): this test reads it without its preset.
    expect(await page.getByLabel('How to read it').inputValue()).toBe('preset:ibm-ar');
    await page.getByLabel('How to read it').selectOption('columns');

    // The guess, field by field, against what a person wants; each difference is one correction.
    const wizard = page.getByTestId('import-wizard');
    // A label's text holds its options' too ("countryCode" under Customer ID): match the field's own words.
    const fieldSelect = (legend: string, field: string) =>
      wizard
        .getByRole('group', { name: legend })
        .locator('label.form-row')
        .filter({ has: page.locator(':scope > span', { hasText: new RegExp(`^${field}( \\(|$)`) }) })
        .locator('select');
    const corrections: string[] = [];
    for (const [key, column] of Object.entries(BY_HAND)) {
      const [legend, field] = key.split('|');
      const select = fieldSelect(legend, field);
      if ((await select.inputValue()) !== column) {
        corrections.push(field);
        await select.selectOption(column);
      }
    }
    if ((await page.getByLabel('Dates are written').inputValue()) !== 'M/D/YYYY') {
      corrections.push('date format');
      await page.getByLabel('Dates are written').selectOption('M/D/YYYY');
    }
    const disputedMap = page.getByLabel('Label when Disputed is Yes');
    if ((await disputedMap.count()) === 0 || (await disputedMap.inputValue()) !== 'Disputed') {
      corrections.push('Disputed value map');
      if ((await disputedMap.count()) === 0) {
        await page.getByRole('button', { name: 'Add a value map' }).click();
        const map = page.getByTestId('value-map').last();
        await map.getByLabel('Column').selectOption('Disputed');
      }
      await page.getByLabel('Label when Disputed is Yes').fill('Disputed');
    }
    expect(corrections.length, `corrections: ${corrections.join(', ')}`).toBeLessThanOrEqual(2);
    // Required fields are marked, and the date hint says the format was read from the file.
    expect(await wizard.getByTestId('required-mark').count()).toBeGreaterThanOrEqual(4);
    expect(await page.getByTestId('import-date-hint').innerText()).toBe('Read from the dates in the file.');
    await lookAndCheck(page, 'import-guess-map', { fullPage: true });
    await wizard.getByRole('group', { name: 'Customer fields' }).scrollIntoViewIfNeeded();
    await lookAndCheck(page, 'import-guess-fields', { fullPage: true });

    // A required field left out is said in words before anything is sent.
    const invoiceDate = fieldSelect('Invoice fields', 'Invoice date');
    await invoiceDate.selectOption('');
    await page.getByRole('button', { name: 'Check every row' }).click();
    await expect.poll(() => wizard.locator('.form-error').innerText(), { timeout: 5_000 }).toBe('Choose a column for Invoice date: it is required.');
    await lookAndCheck(page, 'import-guess-missing', { fullPage: true });
    await invoiceDate.selectOption('InvoiceDate');

    await page.getByRole('button', { name: 'Check every row' }).click();
    await expect.poll(() => page.getByTestId('import-check-summary').innerText(), { timeout: 60_000 }).toContain('All 2,466 rows can be imported');
    await page.getByRole('button', { name: 'Import 2,466 rows' }).click();
    await expect.poll(() => page.getByTestId('import-done').innerText(), { timeout: 90_000 }).toContain('Imported 2,466 rows');
    expect(await page.getByTestId('import-counts').innerText()).toMatch(/Invoices\s+2,466\s+0\s+0/);
    await lookAndCheck(page, 'import-guess-done', { fullPage: true });
    expect(await disputed()).toBe(before + 561);
    expect(browser.errors).toEqual([]);
  }, 240_000);

  it('imports a refunded payment: the status value map offers exactly the server\'s statuses, and "Refunded" maps to Voided', async () => {
    const companyId = /\/companies\/([0-9a-f-]{36})\//.exec(page.url())![1];
    const file = ['Customer,Invoice,Date,Amount,Paid,Paid on,Payment status', 'Refund Test Co,RF-1,2026-10-01,100.00,100.00,2026-10-20,Paid', 'Refund Test Co,RF-2,2026-10-02,250.00,250.00,2026-10-21,Refunded'].join('\n');
    await page.goto(`${new URL(page.url()).origin}/companies/${companyId}/settings/import`);
    await page.getByLabel('CSV or XLSX file').setInputFiles({ name: 'refund.csv', mimeType: 'text/csv', buffer: Buffer.from(file) });
    await page.getByRole('button', { name: 'Read the file' }).click();
    await expect.poll(() => page.getByTestId('import-preview').locator('tbody tr').count(), { timeout: 20_000 }).toBe(2);
    await page.getByRole('button', { name: 'Add a value map' }).click();
    const map = page.getByTestId('value-map').last();
    await map.getByLabel('Column').selectOption('Payment status');
    await map.getByLabel('Gives').selectOption('status');
    const refunded = page.getByLabel('Status when Payment status is Refunded');
    expect(await refunded.locator('option').allInnerTexts()).toEqual(['Nothing', 'Paid', 'Partial', 'Pending', 'Failed', 'Voided (refunded or reversed)']);
    await refunded.selectOption({ label: 'Voided (refunded or reversed)' });
    await page.getByLabel('Status when Payment status is Paid').selectOption({ label: 'Paid' });
    await page.getByRole('button', { name: 'Check every row' }).click();
    await expect.poll(() => page.getByTestId('import-check-summary').innerText(), { timeout: 20_000 }).toContain('All 2 rows can be imported');
    await page.getByRole('button', { name: 'Import 2 rows' }).click();
    await expect.poll(() => page.getByTestId('import-done').innerText(), { timeout: 20_000 }).toContain('Imported 2 rows');
    const voided = await apiGet<{ data: Array<{ invoice_number: string; amount: number }> }>(page, `/api/companies/${companyId}/payments?status=VOIDED&limit=1000`);
    expect(voided.data.filter((p) => p.invoice_number.startsWith('RF-')).map((p) => [p.invoice_number, p.amount])).toEqual([['RF-2', 250]]);
    const open = await apiGet<{ items: Array<{ invoice_number: string; balance: number }> }>(page, `/api/companies/${companyId}/invoices?search=RF-&limit=10`);
    expect(open.items.map((i) => [i.invoice_number, i.balance]).sort()).toEqual([['RF-1', 0], ['RF-2', 250]]);
    expect(browser.errors).toEqual([]);
  }, 60_000);
});
