import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, ensureRendererBuilt, openBrowser } from '../support/browser';
import { type ServerProcess, startServe } from '../support/cli';

describe('first launch on an empty workspace, in Chromium', () => {
  let dir: string;
  let server: ServerProcess;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    await ensureRendererBuilt();
    dir = mkdtempSync(join(tmpdir(), 'ardesk-first-'));
    server = await startServe(['--port', '0', '--db', join(dir, 'ardesk.sqlite')]);
    browser = await openBrowser();
    page = browser.page;
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('offers to create an account, then opens the empty desk of the new company', async () => {
    await page.goto(server.url);
    await page.getByRole('heading', { name: 'Welcome to ardesk' }).waitFor();
    const form = page.getByRole('form', { name: 'Create an account' });
    await form.getByLabel('Company name').fill('Harbor Tools Ltd');
    await form.getByLabel('Your name').fill('Robin Vale');
    await form.getByLabel('Username').fill('robin');
    await form.getByLabel('Password').fill('s3cret-pw');
    await form.getByRole('button', { name: 'Create an account' }).click();
    // The desk opens on My work, which a new company has none of.
    await page.locator('.grid-empty', { hasText: 'Nothing in your worklist matches right now.' }).waitFor();
    expect(await page.locator('.company-name').innerText()).toBe('Harbor Tools Ltd');
    expect(await page.getByTestId('signed-in-user').innerText()).toBe('Robin Vale');
    await expect.poll(() => page.getByTestId('kpi-open').innerText()).toBe('$0.00');
  });

  it('opens every page of the navigation on the new company, each saying in words that it has nothing yet', async () => {
    const nav = page.getByRole('navigation', { name: 'Main' });
    const links = nav.getByRole('link');
    expect(await links.count()).toBeGreaterThanOrEqual(8);
    for (let i = 0; i < (await links.count()); i++) {
      const href = (await links.nth(i).getAttribute('href')) ?? '';
      await links.nth(i).click();
      await page.waitForURL((u) => u.pathname === href);
      await page.locator('main h1').first().waitFor();
      await expect.poll(() => page.locator('main').innerText()).not.toMatch(/Loading/);
      expect(await page.locator('.error-box').count(), href).toBe(0);
    }
    await nav.getByRole('link', { name: 'Invoices' }).click();
    await page.locator('.grid-empty').waitFor();
  });

  it('signs out to the sign-in page, refuses a wrong password, and signs back in', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('form', { name: 'Sign in' }).waitFor();
    await page.getByLabel('Username').fill('robin');
    await page.getByLabel('Password').fill('wrong');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('.form-error', { hasText: 'Unable to log in' }).waitFor();
    await page.getByLabel('Password').fill('s3cret-pw');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('.grid-empty').waitFor();
    // The token survives a reload in browser mode.
    await page.reload();
    await page.locator('.grid-empty').waitFor();
    expect(browser.offHost).toEqual([]);
  });
});

describe('first launch: open the demo workspace, in Chromium', () => {
  let dir: string;
  let server: ServerProcess;
  let browser: Browser;

  beforeAll(async () => {
    await ensureRendererBuilt();
    dir = mkdtempSync(join(tmpdir(), 'ardesk-first-demo-'));
    server = await startServe(['--port', '0', '--db', join(dir, 'ardesk.sqlite')]);
    browser = await openBrowser();
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('fills the empty workspace with the demo data and signs in as demo, with a company switcher', async () => {
    const page = browser.page;
    await page.goto(server.url);
    await page.getByRole('button', { name: 'Open the demo workspace' }).click();
    await page.locator('[data-testid="invoice-grid"] .ag-row[row-index="0"]').waitFor({ timeout: 30_000 });
    const switcher = page.getByLabel('Company');
    const companies = await switcher.locator('option').allInnerTexts();
    expect(companies).toHaveLength(2);
    const first = page.url();
    const current = await switcher.inputValue();
    const values = await switcher.locator('option').evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value));
    await switcher.selectOption(values.find((v) => v !== current)!);
    expect(page.url()).not.toContain(current);
    await page.waitForURL((u) => u.href !== first && /\/invoices$/.test(u.pathname));
    await page.locator('[data-testid="invoice-grid"] .ag-row[row-index="0"]').waitFor();
    expect(browser.offHost).toEqual([]);
  });
});
