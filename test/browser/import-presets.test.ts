/**
 * Issue 40 in Chromium: a Xero invoices export read with no mapping (the wizard says which
 * preset it recognised, the dry run what it decided), and the banner every page shows while the
 * nightly re-import of a watched file fails.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lookAndCheck } from '../support/axe';
import { apiCall, apiGet, type Browser, ensureRendererBuilt, openBrowser, signIn } from '../support/browser';
import { type DemoServer, startDemoServer } from '../support/server';

const XERO = resolve(__dirname, '../fixtures/import-presets/xero-invoices.csv');
const QBO_AGING = resolve(__dirname, '../fixtures/import-presets/qbo-ar-aging-detail.csv');

describe('accounting exports in the app (issue 40)', () => {
  let server: DemoServer;
  let browser: Browser;
  let page: Page;
  let companyId: string;

  beforeAll(async () => {
    await ensureRendererBuilt();
    [server, browser] = await Promise.all([startDemoServer(), openBrowser()]);
    page = browser.page;
    companyId = await signIn(page, server.url);
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('imports a Xero export with no mapping, saying what it recognised and decided', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings', exact: true }).click();
    await page.getByRole('link', { name: 'Import' }).click();
    await page.getByLabel('CSV or XLSX file').setInputFiles({ name: 'xero-invoices.csv', mimeType: 'text/csv', buffer: readFileSync(XERO) });
    await page.getByRole('button', { name: 'Read the file' }).click();
    await expect.poll(() => page.getByTestId('import-recognised').innerText()).toContain('Recognised as Xero: Invoices export');
    expect(await page.getByLabel('How to read it').inputValue()).toBe('preset:xero-invoices');
    await lookAndCheck(page, 'import-presets-recognised');
    await page.getByRole('button', { name: 'Check every row' }).click();
    const notes = page.getByTestId('import-notes');
    await expect.poll(() => notes.innerText()).toContain("Dates read day first (D/M/YYYY), as the file's dates show");
    expect(await notes.innerText()).toContain('1 row skipped: draft invoices');
    await lookAndCheck(page, 'import-presets-check', { fullPage: true });
    await page.getByRole('button', { name: 'Import 6 rows' }).click();
    await expect.poll(() => page.getByTestId('import-done').count(), { timeout: 20_000 }).toBe(1);
    const found = await apiGet<{ items: Array<{ invoice_number: string }> }>(page, `/api/companies/${companyId}/invoices?search=Bayside`);
    expect(found.items.map((i) => i.invoice_number).sort()).toEqual(['INV-0001']);

    // A recognised report with the columns chosen by hand: the preset's layout still skips its title rows and totals.
    await page.getByRole('button', { name: 'Import another file' }).click();
    await page.getByLabel('CSV or XLSX file').setInputFiles({ name: 'aging.csv', mimeType: 'text/csv', buffer: readFileSync(QBO_AGING) });
    await page.getByRole('button', { name: 'Read the file' }).click();
    await expect.poll(() => page.getByTestId('import-recognised').innerText()).toContain('QuickBooks Online: A/R Aging Detail');
    await page.getByLabel('How to read it').selectOption('columns');
    await page.getByRole('button', { name: 'Check every row' }).click();
    await expect.poll(() => page.getByTestId('import-check-summary').innerText()).toBe('All 4 rows can be imported. Nothing has been written yet.');
    expect(await page.getByTestId('import-notes').innerText()).toContain('1 row skipped: no invoice or credit note');
  }, 120_000);

  it('shows a banner on every page while the nightly import fails, saying why', async () => {
    const missing = join(dirname(server.file), 'erp', 'open-items.csv');
    expect((await apiCall(page, 'PUT', `/api/companies/${companyId}/import-watch`, { path: missing })).status).toBe(200);
    expect((await apiCall(page, 'POST', `/api/companies/${companyId}/import-watch/run`)).status).toBe(202);
    await expect
      .poll(async () => (await apiGet<{ data: Array<{ status: string }> }>(page, `/api/companies/${companyId}/import-watch/runs`)).data[0]?.status, { timeout: 20_000 })
      .toBe('failed');
    await page.reload();
    const banner = page.getByTestId('import-watch-warning');
    await expect.poll(() => banner.innerText()).toContain(`There is no file or folder at ${missing}`);
    await lookAndCheck(page, 'import-watch-banner');
  }, 60_000);
});
