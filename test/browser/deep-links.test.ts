import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiGet, type Browser, ensureRendererBuilt, openBrowser, signIn } from '../support/browser';
import { type DemoServer, startDemoServer } from '../support/server';

type Listed = { items?: Array<{ id: string }>; data?: Array<{ id: string }>; results?: Array<{ id: string }> };
const firstId = (list: Listed) => (list.items ?? list.data ?? list.results ?? [])[0]?.id;

const SETTINGS_TABS = ['email', 'team', 'labels', 'users', 'tokens', 'import', 'data', 'sync', 'appearance'];

/** Every screen a link can name, for one company: sections, an item of each kind, each Settings tab, the sequence's Enrollments tab. */
async function routesOf(page: Page, companyId: string): Promise<string[]> {
  const base = `/companies/${companyId}`;
  const [invoice, customer, action, sequence] = await Promise.all([
    apiGet<Listed>(page, `/api${base}/invoices?limit=1`).then(firstId),
    apiGet<Listed>(page, `/api${base}/customers?page_size=1`).then(firstId),
    apiGet<Listed>(page, `/api${base}/actions?page_size=1`).then(firstId),
    apiGet<Listed>(page, `/api${base}/sequences?page_size=1`).then(firstId),
  ]);
  const routes = ['invoices', 'customers', 'actions', 'queue', 'cash', 'sequences', 'analytics', 'insights', 'settings'].map((s) => `${base}/${s}`);
  if (invoice) routes.push(`${base}/invoices/${invoice}`);
  if (customer) routes.push(`${base}/customers/${customer}`);
  if (action) routes.push(`${base}/actions/${action}`);
  if (sequence) routes.push(`${base}/sequences/${sequence}`, `${base}/sequences/${sequence}?tab=enrollments`);
  // Each tab's own address is opened by the test of tabs below.
  routes.push(`${base}/team`);
  routes.push(...SETTINGS_TABS.map((t) => `${base}/settings/${t}`));
  return routes;
}

/** The page settled: its heading or a worded state is up, and neither the page nor a part of it failed. */
async function expectShown(page: Page, errors: string[], route: string) {
  await page.locator('#main-content').waitFor();
  await page.locator('#main-content h1, #main-content h2, #main-content [role="alert"]').first().waitFor();
  // Effects that loop (React error #185) give up within a few frames.
  for (let frame = 0; frame < 5; frame += 1) await page.evaluate(() => new Promise((painted) => requestAnimationFrame(painted)));
  expect(errors, route).toEqual([]);
  expect(await page.getByTestId('page-failed').count(), `${route}: a part of the page failed`).toBe(0);
  expect((await page.locator('body').innerText()).trim().length, `${route}: blank`).toBeGreaterThan(0);
}

describe('Every route opens by deep link, for each company and after a company switch, without a page error', () => {
  let server: DemoServer;
  let browser: Browser;
  let companies: Array<{ id: string; name: string }>;

  beforeAll(async () => {
    await ensureRendererBuilt();
    server = await startDemoServer();
    browser = await openBrowser();
    const { page } = browser;
    await signIn(page, server.url);
    companies = (await apiGet<{ companies: Array<{ id: string; name: string }> }>(page, '/api/v1/auth/me/')).companies;
    expect(companies.length).toBeGreaterThan(1);
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  /** A fresh window on the route (the sign-in is in the profile), collecting its own errors. */
  async function openFresh(route: string) {
    const page = await browser.context.newPage();
    page.setDefaultTimeout(10_000);
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    page.on('console', (msg) => {
      if (msg.type() === 'error') errors.push(msg.text());
    });
    await page.goto(`${server.url}${route}`);
    return { page, errors };
  }

  it('opens each route in a fresh window, for every company, and still shows it after a company switch', async () => {
    const [from, to] = companies;
    for (const company of companies) {
      for (const route of await routesOf(browser.page, company.id)) {
        const { page, errors } = await openFresh(route);
        try {
          await expectShown(page, errors, route);
          // From the first company's routes, the switch to the second: the same page, its data.
          if (company.id !== from.id) continue;
          await page.getByLabel('Company', { exact: true }).selectOption(to.id);
          await page.waitForURL(new RegExp(`/companies/${to.id}/`));
          await expectShown(page, errors, `${route} → ${to.name}`);
        } finally {
          await page.close();
        }
      }
    }
  }, 300_000);

  it("opens the tab a link names, and a tab chosen becomes the page's address", async () => {
    const base = `/companies/${companies[0].id}`;
    const sequence = firstId(await apiGet<Listed>(browser.page, `/api${base}/sequences?page_size=1`))!;
    const selected = async (page: Page, key: string) => page.getByTestId(`tab-${key}`).getAttribute('aria-selected');
    for (const [route, tab] of [
      [`${base}/sequences/${sequence}/enrollments`, 'enrollments'],
      [`${base}/sequences/${sequence}`, 'steps'],
      [`${base}/queue/upcoming`, 'upcoming'],
      [`${base}/queue/history`, 'history'],
    ] as const) {
      const { page, errors } = await openFresh(route);
      try {
        await expectShown(page, errors, route);
        await page.getByTestId(`tab-${tab}`).waitFor();
        expect(await selected(page, tab), route).toBe('true');
      } finally {
        await page.close();
      }
    }
    // A tab's name where a sequence's id goes is not a sequence: the list, not "Sequence enrollments was not found".
    const { page, errors } = await openFresh(`${base}/sequences/enrollments`);
    try {
      await expectShown(page, errors, 'sequences/enrollments');
      await page.getByRole('heading', { level: 1, name: 'Sequences' }).waitFor();
      expect(await page.locator('body').innerText()).not.toContain('was not found');
      await page.goto(`${server.url}${base}/queue`);
      await page.getByTestId('tab-paused').click();
      await page.waitForURL(new RegExp(`${base}/queue/paused$`));
      expect(await selected(page, 'paused')).toBe('true');
    } finally {
      await page.close();
    }
  });

  it('a link to an invoice the company does not have says so, with nothing to retry', async () => {
    const { page, errors } = await openFresh(`/companies/${companies[0].id}/invoices/0188efd9-ac00-7000-8000-000000000000`);
    try {
      await page.getByTestId('invoice-missing').waitFor();
      expect(await page.getByTestId('invoice-panel').getByRole('button', { name: 'Retry' }).count()).toBe(0);
      // The browser logs the 404 answer itself; nothing else may fail.
      expect(errors.filter((e) => !/status of 404/.test(e))).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('a part that fails shows what failed in words with "Reload this page", and the rest of the window keeps working', async () => {
    const base = `/companies/${companies[0].id}`;
    const invoice = firstId(await apiGet<Listed>(browser.page, `/api${base}/invoices?limit=1`))!;
    // The server answers the invoice with a shape the panel cannot read.
    const { page, errors } = await openFresh(`${base}/invoices`);
    try {
      await page.route(`**/api/companies/*/invoices/${invoice}`, (route) => route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({ id: invoice, labels: 7 }) }));
      await page.goto(`${server.url}${base}/invoices/${invoice}`);
      const failed = page.getByTestId('page-failed');
      await failed.waitFor();
      expect(await failed.innerText()).toMatch(/Something went wrong while showing this invoice\./);
      await failed.getByRole('button', { name: 'Reload this page' }).waitFor();
      expect(errors.some((e) => e.includes('this invoice stopped working'))).toBe(true);
      // The desk around the panel is still there.
      await page.getByRole('heading', { level: 1, name: 'Invoices' }).waitFor();
      expect(await page.locator('.ag-row').count()).toBeGreaterThan(0);
      await page.unroute(`**/api/companies/*/invoices/${invoice}`);
      await failed.getByRole('button', { name: 'Reload this page' }).click();
      await page.getByTestId('panel-invoice-number').waitFor();
      expect(await page.getByTestId('page-failed').count()).toBe(0);
    } finally {
      await page.close();
    }
  });
});
