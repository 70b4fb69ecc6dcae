import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeFindings, seriousA11yFindings } from '../support/axe';
import { apiCall, apiGet, type Browser, ensureRendererBuilt, openBrowser, screenshotPath, signIn } from '../support/browser';
import { type DemoServer, startDemoServer } from '../support/server';
import { layoutSettled } from '../support/settle';

/** A write as the signed-in page (same token); returns the status. */
async function apiPost(page: Page, path: string, body: unknown): Promise<number> {
  return (await apiCall(page, 'POST', path, body)).status;
}

/**
 * Issue 24 and 21, in Chromium against `ardesk serve --demo`: the invoice panel's glance shows the
 * customer's latest word (a dispute or promise after the reply is that word), and the Actions table
 * fits beside its panel at 1024x700 without scrolling sideways, light and dark, axe clean.
 */
describe('the panel leads with the latest customer event; the Actions table fits beside its panel', () => {
  let server: DemoServer;
  let browser: Browser;
  let page: Page;
  let companyId: string;

  beforeAll(async () => {
    await ensureRendererBuilt();
    server = await startDemoServer();
    browser = await openBrowser();
    page = browser.page;
    companyId = await signIn(page, server.url);
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('shows the reply, then a dispute opened after it, then a promise made on a later call', async () => {
    // An open invoice of the demo whose customer replied about it, with no dispute yet.
    const inbound = await apiGet<{ data: Array<{ invoice: string | null; occurred_at: string }> }>(page, `/api/companies/${companyId}/communications?direction=inbound&kind=email&limit=200`);
    let invoiceId: string | null = null;
    for (const c of inbound.data) {
      if (!c.invoice) continue;
      const detail = await apiGet<{ status: string }>(page, `/api/companies/${companyId}/invoices/${c.invoice}`);
      const disputes = await apiGet<{ count: number }>(page, `/api/companies/${companyId}/disputes?invoice_id=${c.invoice}`);
      const activity = await apiGet<{ data: Array<{ at: string; promise_date: string | null; outcome: string | null; direction: string | null }> }>(page, `/api/companies/${companyId}/invoices/${c.invoice}/activity`);
      const later = activity.data.some((e) => e.at > c.occurred_at && (e.promise_date || e.outcome === 'disputed' || e.direction === 'inbound'));
      if (!detail.status.startsWith('closed_') && disputes.count === 0 && !later) {
        invoiceId = c.invoice;
        break;
      }
    }
    if (!invoiceId) throw new Error('the demo has no open invoice with a reply and nothing after it');
    const latest = page.getByTestId('glance-latest');
    const show = async () => {
      await page.goto(`${server.url}/companies/${companyId}/invoices/${invoiceId}`);
      await page.getByTestId('panel-glance').waitFor();
      await expect.poll(() => latest.innerText(), { timeout: 10_000 }).not.toMatch(/…$/);
      return latest.innerText();
    };
    expect(await show()).toMatch(/^Latest from the customer: Reply: /);
    // The next step by its name (it read "1 on Nov 22, 2026": the step's position).
    expect(await page.getByTestId('glance-next').innerText()).toMatch(/^Next step: (none planned|follow up on [A-Z][a-z]{2} \d{1,2}, \d{4}|[A-Za-z][^0-9].*)$/);

    expect(await apiPost(page, `/api/companies/${companyId}/disputes`, { invoice_id: invoiceId, reason: 'Three cartons arrived damaged' })).toBe(201);
    expect(await show()).toMatch(/^Latest from the customer: Disputed: Three cartons arrived damaged · /);
    await page.screenshot({ path: screenshotPath('panel-latest-dispute-1440x900-light.png') });

    const customer = (await apiGet<{ customer: string }>(page, `/api/companies/${companyId}/invoices/${invoiceId}`)).customer;
    const promised = await page.evaluate(() => new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10));
    expect(
      await apiPost(page, `/api/companies/${companyId}/communications`, { customer_id: customer, invoice_id: invoiceId, kind: 'call', direction: 'inbound', outcome: 'promised_to_pay', promise_date: promised, promise_amount: 125.5 }),
    ).toBe(201);
    const text = await show();
    expect(text).toMatch(/^Latest from the customer: Promised to pay \$125\.50 by [A-Z][a-z]{2} \d{1,2}, \d{4} · /);
    expect(text).not.toMatch(/\d{4}-\d{2}-\d{2}/);
    expect(browser.errors).toEqual([]);
  }, 90_000);

  it('Actions at 1024x700 with the panel open: no sideways scroll, the columns that tell rows apart in view, light and dark, axe clean', async () => {
    await page.goto(`${server.url}/companies/${companyId}/actions`);
    const rows = page.locator('[data-testid="actions-list"] tbody tr');
    await rows.first().waitFor();
    await rows.first().locator('a').first().click();
    await page.getByTestId('action-panel').waitFor();
    for (const size of [
      { width: 1024, height: 700 },
      { width: 1440, height: 900 },
    ]) {
      await page.setViewportSize(size);
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        await layoutSettled(page, '.outreach-main, [data-testid="actions-list"] thead th, [data-testid="action-panel"]');
        const fit = await page.evaluate(() => {
          const main = document.querySelector<HTMLElement>('.outreach-main')!;
          const table = document.querySelector<HTMLElement>('[data-testid="actions-list"]')!;
          const shown = [...table.querySelectorAll<HTMLElement>('thead th')].filter((th) => th.getBoundingClientRect().width > 0).map((th) => th.innerText.trim());
          return { scroll: main.scrollWidth - main.clientWidth, tableRight: table.getBoundingClientRect().right, mainRight: main.getBoundingClientRect().right, shown };
        });
        const where = `${size.width}x${size.height} ${scheme}`;
        await page.screenshot({ path: screenshotPath(`actions-panel-${size.width}x${size.height}-${scheme}.png`) });
        expect(fit.scroll, where).toBeLessThanOrEqual(0);
        expect(fit.tableRight, where).toBeLessThanOrEqual(fit.mainRight);
        // The panel says the open action's why (below 1600 px), its lateness, deadline and status (below 1280 px); the table keeps what tells the rows apart.
        expect(fit.shown, where).toEqual(
          size.width < 1280
            ? ['', 'Customer', 'Invoice', 'Open balance', 'Recommendation']
            : ['', 'Customer', 'Invoice', 'Open balance', 'Days past due', 'Recommendation', 'Decide by', 'Status'],
        );
        const findings = await seriousA11yFindings(page);
        expect(findings, `${where}\n${describeFindings(findings)}`).toEqual([]);
      }
    }
    await page.emulateMedia({ colorScheme: 'light' });
    expect(browser.errors).toEqual([]);
  }, 120_000);
});
