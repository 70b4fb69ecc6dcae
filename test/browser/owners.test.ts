import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeFindings, seriousA11yFindings } from '../support/axe';
import { apiCall, type Browser, ensureRendererBuilt, openBrowser, screenshotPath } from '../support/browser';
import { type ServerProcess, startServe } from '../support/cli';

/** A write through the API with the page's own sign-in, as a script of the collector's would. */
async function apiPost<T>(page: Page, path: string, body: unknown): Promise<T> {
  const res = await apiCall<T>(page, 'POST', path, body);
  if (res.status < 200 || res.status > 299) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

describe('AR owners after a first launch, in Chromium', () => {
  let dir: string;
  let server: ServerProcess;
  let browser: Browser;
  let page: Page;
  let company: string;

  beforeAll(async () => {
    await ensureRendererBuilt();
    dir = mkdtempSync(join(tmpdir(), 'ardesk-owners-'));
    server = await startServe(['--port', '0', '--db', join(dir, 'ardesk.sqlite')]);
    browser = await openBrowser();
    page = browser.page;
    await page.goto(server.url);
    const form = page.getByRole('form', { name: 'Create an account' });
    await form.getByLabel('Company name').fill('Harbor Tools Ltd');
    await form.getByLabel('Your name').fill('Robin Vale');
    await form.getByLabel('Username').fill('robin');
    await form.getByLabel('Password').fill('s3cret-pw');
    await form.getByRole('button', { name: 'Create an account' }).click();
    await page.getByTestId('kpi-open').waitFor();
    company = new URL(page.url()).pathname.split('/')[2];
    // An imported ledger: three customers, nobody owns any.
    for (const [name, country, total] of [
      ['Alder Freight', 'US', 100],
      ['Birch Mills', 'us', 250.5],
      ['Cedar GmbH', 'DE', 4000],
    ] as const) {
      const customer = await apiPost<{ id: string }>(page, `/api/companies/${company}/customers`, { name, locations: [{ name: 'HQ', country }] });
      await apiPost(page, `/api/companies/${company}/invoices`, { customer: customer.id, number: `INV-${name.slice(0, 4)}`, total_amount: total, invoice_date: '2026-09-01', due_date: '2026-10-01' });
    }
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('Mine with nothing assigned says so, offers Everyone, and the header totals follow the scope', async () => {
    await page.reload();
    const notice = page.getByTestId('mine-empty');
    await expect.poll(() => notice.textContent(), { timeout: 15_000 }).toContain('No customers are assigned to you yet');
    expect(await page.getByTestId('kpi-scope').textContent()).toContain('your customers');
    expect(await page.getByTestId('kpi-open').innerText()).toBe('$0.00');
    await page.screenshot({ path: screenshotPath('owners-mine-empty-1440.png') });
    await notice.getByRole('button', { name: 'Show everyone' }).click();
    await page.waitForURL((u) => u.searchParams.get('ar_owner') === 'all');
    await expect.poll(() => page.getByTestId('kpi-open').innerText(), { timeout: 20_000 }).toBe('$4,350.50');
    expect(await page.getByTestId('kpi-scope').textContent()).toContain('the whole company');
    expect(await notice.count()).toBe(0);
  });

  it('assigns by rule (country), by selection on the Customers list, and on the customer page; Mine then totals its customers only', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Customers' }).click();
    const list = page.getByTestId('customer-list');
    await list.getByRole('link', { name: 'Cedar GmbH' }).waitFor();

    await page.getByRole('button', { name: 'Assign AR owners by rule…' }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Assign AR owners by rule' });
    // The owners to pick from load with the dialog: the first is chosen once they are there.
    await expect.poll(() => dialog.locator('select').inputValue()).not.toBe('');
    await dialog.getByLabel('Country (of any location)').fill('us');
    await expect.poll(() => dialog.getByTestId('assign-rule-preview').innerText()).toBe('2 customers match; 2 customers will change.');
    expect(describeFindings(await seriousA11yFindings(page))).toBe('');
    await page.screenshot({ path: screenshotPath('owners-rule-dialog-1440.png') });
    await dialog.getByRole('button', { name: 'Assign 2 customers' }).click();
    await dialog.waitFor({ state: 'detached' });
    const ownerOf = (name: string) => list.getByRole('row').filter({ hasText: name }).locator('td').nth(5).innerText();
    await expect.poll(() => ownerOf('Alder Freight')).toBe('Robin Vale');
    expect(await ownerOf('Birch Mills')).toBe('Robin Vale');
    expect(await ownerOf('Cedar GmbH')).toBe('Unassigned');

    await list.getByLabel('Select Cedar GmbH').check();
    const bar = page.getByTestId('assign-selected');
    await bar.locator('select').selectOption({ label: 'Robin Vale' });
    expect(describeFindings(await seriousA11yFindings(page))).toBe('');
    await bar.getByRole('button', { name: 'Assign 1 customer' }).click();
    await expect.poll(() => ownerOf('Cedar GmbH')).toBe('Robin Vale');
    expect(await bar.count()).toBe(0);

    await list.getByRole('link', { name: 'Cedar GmbH' }).click();
    const select = page.getByTestId('customer-ar-owner');
    await expect.poll(() => select.inputValue(), { timeout: 20_000 }).not.toBe('');
    await select.selectOption({ label: 'Unassigned' });
    await page.getByText('AR owner removed').waitFor();
    await page.reload();
    await expect.poll(() => page.getByTestId('customer-ar-owner').locator('option').count(), { timeout: 20_000 }).toBe(2);
    expect(await page.getByTestId('customer-ar-owner').inputValue()).toBe('');
    await page.screenshot({ path: screenshotPath('owners-customer-page-1440.png') });

    await page.goto(`${server.url}/companies/${company}/invoices`);
    await expect.poll(() => page.getByTestId('kpi-open').innerText(), { timeout: 20_000 }).toBe('$350.50');
    expect(await page.getByTestId('mine-empty').count()).toBe(0);
    expect(browser.errors).toEqual([]);
  });
});
