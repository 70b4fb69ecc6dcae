import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeFindings, seriousA11yFindings } from '../support/axe';
import { type Browser, ensureRendererBuilt, openBrowser, screenshotPath } from '../support/browser';
import { type DemoServer, startDemoServer } from '../support/server';
import { type SmtpServer, startSmtp } from '../support/smtp';

/** The API as the signed-in page sees it (same token), to check what the screens did. */
async function apiGet<T>(page: Page, path: string): Promise<T> {
  return page.evaluate(async (p) => {
    const res = await fetch(p, { headers: { authorization: `Token ${localStorage.getItem('ardesk.token')}` } });
    return res.json();
  }, path);
}

/** Screenshots at both sizes in both themes, and axe over each, for one page as it is now. */
async function lookAt(page: Page, name: string): Promise<void> {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const [w, h] of [
      [1440, 900],
      [1024, 700],
    ]) {
      await page.setViewportSize({ width: w, height: h });
      await page.screenshot({ path: screenshotPath(`outreach-${name}-${w}x${h}-${scheme}.png`) });
    }
    const findings = await seriousA11yFindings(page);
    expect(findings, describeFindings(findings)).toEqual([]);
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1440, height: 900 });
}

describe('the outreach screens in Chromium against ardesk serve --demo', () => {
  let server: DemoServer;
  let smtp: SmtpServer;
  let browser: Browser;
  let page: Page;
  let companyId: string;

  beforeAll(async () => {
    await ensureRendererBuilt();
    server = await startDemoServer();
    smtp = await startSmtp();
    browser = await openBrowser();
    page = browser.page;
    await page.goto(server.url);
    await page.getByLabel('Username').fill('demo');
    await page.getByLabel('Password').fill('demo');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/companies\/[0-9a-f-]{36}\/invoices/);
    companyId = /\/companies\/([0-9a-f-]{36})\//.exec(page.url())![1];
    // The demo's email connection points at 127.0.0.1:2525; this test's SMTP server listens elsewhere.
    const connections = await apiGet<{ data: Array<{ id: string; is_default: boolean }> }>(page, `/api/companies/${companyId}/email-connections`);
    for (const c of connections.data) {
      await page.evaluate(
        async ({ path, port }) => {
          await fetch(path, {
            method: 'PATCH',
            headers: { authorization: `Token ${localStorage.getItem('ardesk.token')}`, 'content-type': 'application/json' },
            body: JSON.stringify({ smtp_port: port }),
          });
        },
        { path: `/api/companies/${companyId}/email-connections/${c.id}`, port: smtp.port },
      );
    }
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await smtp?.close();
  });

  it('Actions: approves with edited content, rejects by keyboard, bulk-approves, and shows counts and the approval log', async () => {
    await page.getByRole('link', { name: 'Actions' }).click();
    await page.getByRole('heading', { level: 1, name: 'Actions' }).waitFor();
    const rows = page.locator('[data-testid="actions-list"] tbody tr');
    await rows.first().waitFor();
    const needsCount = Number((await page.getByTestId('tab-needs_action').locator('.count').innerText()).replace(/\D/g, ''));
    expect(needsCount).toBeGreaterThan(1);
    expect(await rows.count()).toBe(Math.min(needsCount, 25));

    await rows.first().click();
    const panel = page.getByTestId('action-panel');
    await panel.getByTestId('action-glance').getByText('Balance').waitFor();
    await lookAt(page, 'actions');
    const customer = (await panel.locator('h2').innerText()).trim();
    await panel.getByTestId('action-content').fill('Hello, please pay invoice soon. Edited by the collector.');
    await panel.getByRole('button', { name: 'Approve', exact: true }).click();
    await expect.poll(() => panel.getByTestId('action-status').innerText()).toBe('Approved');
    await panel.getByTestId('approval-log').getByText('Approve').waitFor();
    const actionId = page.url().split('/actions/')[1].split('?')[0];
    const approved = await apiGet<{ status: string; metadata: { final_content?: string } }>(page, `/api/companies/${companyId}/actions/${actionId}`);
    expect(approved).toMatchObject({ status: 'processing', metadata: { final_content: 'Hello, please pay invoice soon. Edited by the collector.' } });
    expect(customer).not.toBe('');

    // Approving again is refused by the state machine; the panel says why in words.
    // Keyboard: the approved action left Needs action; j opens the next one, r asks for a reason.
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('j');
    await expect.poll(() => page.url()).not.toContain(actionId);
    const nextId = page.url().split('/actions/')[1].split('?')[0];
    await page.keyboard.press('r');
    const rejectForm = panel.getByRole('form', { name: 'Reject' });
    await rejectForm.getByLabel('Reason').selectOption('Customer already paid');
    await rejectForm.getByLabel('Comment (optional)').fill('Paid by wire yesterday');
    await rejectForm.getByRole('button', { name: 'Reject' }).click();
    await expect.poll(() => panel.getByTestId('action-status').innerText()).toBe('Cancelled');
    const rejected = await apiGet<{ status: string; approval_log: Array<{ operation: string; reason: string; comment: string }> }>(page, `/api/companies/${companyId}/actions/${nextId}`);
    expect(rejected.status).toBe('cancelled');
    expect(rejected.approval_log.at(-1)).toMatchObject({ operation: 'reject', reason: 'Customer already paid', comment: 'Paid by wire yesterday' });

    // Bulk approve two.
    await page.getByRole('button', { name: 'Close action' }).click();
    const before = Number((await page.getByTestId('tab-needs_action').locator('.count').innerText()).replace(/\D/g, ''));
    await rows.nth(0).getByRole('checkbox').check();
    await rows.nth(1).getByRole('checkbox').check();
    await page.getByRole('button', { name: 'Approve selected' }).click();
    await page.getByText('Approved 2 actions').waitFor();
    await expect.poll(async () => Number((await page.getByTestId('tab-needs_action').locator('.count').innerText()).replace(/\D/g, ''))).toBe(before - 2);

    // History shows what was decided, with a date range filter.
    await page.getByTestId('tab-history').click();
    await page.getByLabel('Executed from').waitFor();
    await rows.first().waitFor();
  });
});
