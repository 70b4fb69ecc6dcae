import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeFindings, seriousA11yFindings } from '../support/axe';
import { type Browser, ensureRendererBuilt, openBrowser, screenshotPath } from '../support/browser';
import { type DemoServer, startDemoServer } from '../support/server';

/**
 * Every page of the app against WCAG 2.2 AA (axe-core, serious and critical findings), in both
 * themes at a wide and a laptop size: each page is loaded once per size and checked in both themes.
 * The pages are the links of the Frame's main navigation as rendered, so a page added to the
 * navigation is checked without touching this file; the invoice panel, a customer page and the
 * sign-in page are checked too.
 */

const THEMES = ['light', 'dark'] as const;
const SIZES = [
  { width: 1440, height: 900 },
  { width: 1024, height: 700 },
] as const;

interface NavPage {
  name: string;
  href: string;
}

/** Waits until the page has its heading and nothing says it is loading. */
async function settled(page: Page): Promise<void> {
  await page.locator('main h1').first().waitFor();
  await page.waitForFunction(() => !document.querySelector('.loading') && ![...document.querySelectorAll('main *')].some((el) => el.childElementCount === 0 && el.textContent?.trim() === 'Loading…'), null, {
    timeout: 10_000,
  });
  await page.waitForLoadState('networkidle').catch(() => undefined);
}

/**
 * The operating system's light or dark setting, which the app follows while it runs (the page is
 * not reloaded, so each page is loaded once per size and checked in both themes).
 */
async function useTheme(page: Page, theme: (typeof THEMES)[number]): Promise<void> {
  await page.emulateMedia({ colorScheme: theme });
  await page.waitForFunction((t) => document.documentElement.dataset.theme === t, theme);
}

/**
 * Axe's findings (every rule in light, the colour rules in dark: the DOM is the same), the number of
 * h1 and the document title. `within`: the elements a state adds to a page the sweep checked whole.
 */
async function check(page: Page, what: string, theme: (typeof THEMES)[number] = 'light', within?: string[]): Promise<{ h1: number; title: string }> {
  const findings = await seriousA11yFindings(page, theme === 'light' ? 'all' : 'colours', within);
  expect(findings, `${what}:\n${describeFindings(findings)}`).toEqual([]);
  return { h1: await page.locator('h1').count(), title: await page.title() };
}

describe('accessibility of every page (axe-core, WCAG 2.2 AA) in Chromium against ardesk serve --demo', () => {
  let server: DemoServer;
  let browser: Browser;
  let page: Page;
  let nav: NavPage[] = [];
  let company = '';

  beforeAll(async () => {
    await ensureRendererBuilt();
    server = await startDemoServer();
    browser = await openBrowser();
    page = browser.page;
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('signs in from a sign-in page that passes, and reads the navigation', async () => {
    await page.goto(server.url);
    await page.getByLabel('Username').waitFor();
    const signIn = await check(page, 'sign-in page');
    expect(signIn.h1).toBe(1);
    expect(signIn.title).toMatch(/Sign in/);
    await page.getByLabel('Username').fill('demo');
    await page.getByLabel('Password').fill('demo');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('nav[aria-label="Main"] a').first().waitFor();
    // Each link's text without its decorative (aria-hidden) icon.
    nav = await page.locator('nav[aria-label="Main"] a').evaluateAll((links) =>
      links.map((a) => {
        const copy = a.cloneNode(true) as HTMLElement;
        for (const hidden of copy.querySelectorAll('[aria-hidden="true"]')) hidden.remove();
        return { name: copy.textContent!.trim(), href: a.getAttribute('href')! };
      }),
    );
    company = await page.evaluate(() => {
      const select = document.querySelector<HTMLSelectElement>('select[aria-label="Company"]');
      return (select ? select.selectedOptions[0].text : document.querySelector('[data-testid="company-name"]')?.textContent ?? '').trim();
    });
    expect(nav.length).toBeGreaterThanOrEqual(7);
    expect(nav.map((n) => n.name)).toContain('Invoices');
    expect(company).not.toBe('');
  });

  for (const size of SIZES) {
    it(`has no serious finding, one h1 and a title naming page and company on every page, light and dark (${size.width}x${size.height})`, async () => {
      await page.setViewportSize(size);
      for (const item of nav) {
        await page.goto(`${server.url}${item.href}`);
        await settled(page);
        for (const theme of THEMES) {
          await useTheme(page, theme);
          const { h1, title } = await check(page, `${item.name} (${theme}, ${size.width}px)`, theme);
          expect(h1, `${item.name}: one h1`).toBe(1);
          expect(title, `${item.name}: title`).toContain(item.name);
          expect(title, `${item.name}: title`).toContain(company);
        }
      }
    }, 240_000);

    it(`has no serious finding with the invoice panel open, nor on a customer page, light and dark (${size.width}x${size.height})`, async () => {
      await page.setViewportSize(size);
      const invoices = nav.find((n) => n.name === 'Invoices')!;
      await page.goto(`${server.url}${invoices.href}`);
      await settled(page);
      const row = page.locator('[data-testid="invoice-grid"] .ag-row[row-index="0"] .ag-cell[col-id="invoice_number"]');
      await row.click();
      await page.getByTestId('invoice-panel').locator('[data-testid="panel-activity"] .timeline, [data-testid="panel-activity"] p').first().waitFor();
      await page.waitForLoadState('networkidle').catch(() => undefined);
      for (const theme of THEMES) {
        await useTheme(page, theme);
        const panel = await check(page, `invoice panel (${theme}, ${size.width}px)`, theme, ['[data-testid="invoice-panel"]']);
        expect(panel.h1).toBe(1);
        expect(panel.title).toContain(company);
        await page.screenshot({ path: screenshotPath(`a11y-panel-${theme}-${size.width}.png`) });
      }

      const link = page.locator('[data-testid="invoice-panel"] a[href*="/customers/"]').first();
      await link.click();
      await page.getByTestId('customer-name').waitFor();
      await settled(page);
      for (const theme of THEMES) {
        await useTheme(page, theme);
        const customer = await check(page, `customer page (${theme}, ${size.width}px)`, theme);
        expect(customer.h1).toBe(1);
        expect(customer.title).toContain((await page.getByTestId('customer-name').innerText()).trim());
        expect(customer.title).toContain(company);
      }
    }, 120_000);

    it(`has no serious finding in interaction states: filters open, rows picked with the bulk bar, the Customers list's bulk bars and its dialog, light and dark (${size.width}x${size.height})`, async () => {
      await page.setViewportSize(size);
      const invoices = nav.find((n) => n.name === 'Invoices')!;
      await page.goto(`${server.url}${invoices.href}${invoices.href.includes('?') ? '&' : '?'}ar_owner=all`);
      await settled(page);
      await page.getByRole('button', { name: /^Filters/ }).click();
      await page.locator('#filter-panel').waitFor();
      for (const theme of THEMES) {
        await useTheme(page, theme);
        await check(page, `filters open (${theme}, ${size.width}px)`, theme, ['#filter-panel', 'button[aria-controls="filter-panel"]']);
        await page.screenshot({ path: screenshotPath(`a11y-filters-${theme}-${size.width}.png`) });
      }
      for (const index of [0, 1]) await page.locator(`[data-testid="invoice-grid"] .ag-row[row-index="${index}"] .ag-cell[col-id="ag-Grid-SelectionColumn"] input[type="checkbox"]`).check();
      await page.getByRole('toolbar', { name: 'Bulk actions' }).waitFor();
      for (const theme of THEMES) {
        await useTheme(page, theme);
        await check(page, `invoice bulk bar (${theme}, ${size.width}px)`, theme, ['.bulk-bar', '[data-testid="invoice-grid"] .ag-row-selected']);
        await page.screenshot({ path: screenshotPath(`a11y-bulk-${theme}-${size.width}.png`) });
      }

      const customers = nav.find((n) => n.name === 'Customers')!;
      await page.goto(`${server.url}${customers.href}`);
      await settled(page);
      await page.getByTestId('customer-list').locator('tbody input[type="checkbox"]').first().check();
      await page.getByTestId('assign-selected').waitFor();
      for (const theme of THEMES) {
        await useTheme(page, theme);
        await check(page, `customer bulk bars (${theme}, ${size.width}px)`, theme, ['.bulk-bar', '[data-testid="customer-list"] tbody tr:first-child']);
      }
      await page.getByRole('button', { name: 'Assign AR owners by rule…' }).click();
      const dialog = page.getByRole('alertdialog', { name: 'Assign AR owners by rule' });
      await dialog.getByLabel('Open balance at least').fill('1000');
      await expect.poll(() => dialog.getByTestId('assign-rule-preview').innerText()).toMatch(/match|No customer/);
      for (const theme of THEMES) {
        await useTheme(page, theme);
        await check(page, `assign-by-rule dialog (${theme}, ${size.width}px)`, theme, ['[role="alertdialog"]']);
        await page.screenshot({ path: screenshotPath(`a11y-owner-dialog-${theme}-${size.width}.png`) });
      }
      await dialog.getByRole('button', { name: 'Cancel' }).click();
    }, 120_000);
  }

  it('logged no errors', () => {
    expect(browser.errors).toEqual([]);
  });
});
