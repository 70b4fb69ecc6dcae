/**
 * Settings › Webhooks in Chromium: an owner adds a webhook to a script's address (a real receiver
 * on loopback, allowed by --webhook-hosts), copies the secret shown once, and reads in the delivery
 * log that the payment recorded next was delivered.
 */
import { createServer } from 'node:http';
import Database from 'better-sqlite3';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lookAndCheck } from '../support/axe';
import { apiCall, type Browser, ensureRendererBuilt, openBrowser, signIn } from '../support/browser';
import { type DemoServer, startDemoServer } from '../support/server';

describe('Settings › Webhooks', () => {
  const got: Array<{ type: string; data: Record<string, unknown> }> = [];
  const receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      got.push(JSON.parse(body) as (typeof got)[number]);
      res.writeHead(204).end();
    });
  });
  let server: DemoServer;
  let browser: Browser;
  let page: Page;
  let companyId: string;
  let hook: string;

  beforeAll(async () => {
    await ensureRendererBuilt();
    await new Promise<void>((done) => receiver.listen(0, '127.0.0.1', done));
    hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/ardesk`;
    [server, browser] = await Promise.all([startDemoServer(['--webhook-hosts', '127.0.0.1']), openBrowser()]);
    page = browser.page;
    companyId = await signIn(page, server.url);
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await new Promise((done) => receiver.close(done));
  });

  it('adds a webhook, shows its secret once, and logs the delivery of the next payment', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings', exact: true }).click();
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Webhooks' }).click();
    await expect.poll(() => page.getByText('No webhooks yet.').count()).toBe(1);
    await page.getByLabel('Address (https://…)').fill(hook);
    await page.getByLabel('What it is for (optional)').fill('Payments to the ledger script');
    await page.getByLabel('All events, including ones added later').uncheck();
    await page.getByLabel('A payment is recorded').check();
    await page.getByRole('button', { name: 'Add webhook' }).click();
    const secret = page.getByTestId('webhook-secret');
    await expect.poll(() => secret.innerText()).toMatch(/whsec_[A-Za-z0-9_-]{40,}/);
    const card = page.getByTestId('webhook');
    expect(await card.innerText()).toContain('Sends: A payment is recorded');
    await lookAndCheck(page, 'settings-webhook-secret');
    await secret.getByRole('button', { name: 'Done' }).click();
    expect(await secret.count()).toBe(0);

    const open = await apiCall(page, 'GET', `/api/companies/${companyId}/invoices?status=overdue&limit=1`);
    const invoice = open.body.items[0] as { id: string; invoice_number: string };
    expect((await apiCall(page, 'POST', `/api/companies/${companyId}/payments`, { invoice: invoice.id, amount: 1 })).status).toBe(201);
    await expect.poll(() => got.map((e) => e.type), { timeout: 15_000 }).toEqual(['payment.created']);
    expect(got[0].data).toMatchObject({ invoice_id: invoice.id, amount: 100 });

    await card.getByRole('button', { name: 'Show deliveries' }).click();
    const log = page.getByTestId('webhook-deliveries');
    await expect.poll(() => log.innerText()).toMatch(/A payment is recorded\s[\s\S]*Delivered in \d+ ms\s+HTTP 204/);
    await log.getByRole('button', { name: 'Send again: A payment is recorded' }).focus();
    await lookAndCheck(page, 'settings-webhook-deliveries');
    await page.keyboard.press('Enter');
    await expect.poll(() => got.length, { timeout: 15_000 }).toBe(2);
    expect(got[1]).toEqual(got[0]);
  }, 120_000);

  it('tells an owner on every page when a webhook was turned off, until it is turned on again', async () => {
    // Three days of failed deliveries are webhooks.test.ts's (with a moved clock); here the state
    // they leave is written as the server writes it.
    const db = new Database(server.file);
    db.prepare("UPDATE webhook_endpoints SET failing_since = '2026-11-20T09:00:00.000Z', disabled_at = '2026-11-23T09:00:00.000Z', disabled_reason = 'Every delivery failed since 2026-11-20 (last: The endpoint answered HTTP 500); fix the endpoint, then enable it again'").run();
    db.close();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Invoices', exact: true }).click();
    await page.reload();
    const banner = page.getByTestId('webhook-off-warning');
    await expect.poll(() => banner.innerText(), { timeout: 15_000 }).toContain(`The webhook to ${hook} is turned off: every delivery failed for three days`);
    await lookAndCheck(page, 'webhook-off-banner');
    await banner.getByRole('link', { name: 'See Webhooks in Settings' }).click();
    const card = page.getByTestId('webhook');
    await expect.poll(() => card.innerText()).toContain('Turned off');
    await card.getByRole('button', { name: 'Turn on again' }).click();
    await expect.poll(() => card.innerText()).toContain('Delivering');
    // After a reload the banner and the page each ask for the webhooks: once both have answered, no banner.
    let asked = 0;
    page.on('response', (r) => {
      if (r.request().method() === 'GET' && new URL(r.url()).pathname.endsWith('/webhooks')) asked += 1;
    });
    await page.reload();
    await expect.poll(() => asked, { timeout: 15_000 }).toBeGreaterThanOrEqual(2);
    await expect.poll(() => page.getByTestId('webhook').count()).toBe(1);
    expect(await banner.count()).toBe(0);
  }, 120_000);
});
