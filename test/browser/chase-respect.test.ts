/**
 * The chase respects the customer, in Chromium against `ardesk serve --demo`: a dispute opened from
 * the invoice panel pauses the customer's sequence with its reason (panel and customer page), its
 * resolution is logged and the chase goes on; a bulk reminder over a disputed, a promised and a
 * plain invoice leaves the first two out by default and says why.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lookAndCheck } from '../support/axe';
import { apiCall, apiGet, type Browser, ensureRendererBuilt, openBrowser, signIn } from '../support/browser';
import { type DemoServer, startDemoServer } from '../support/server';

interface Chase {
  holds: unknown[];
  enrollments: Array<{ sequence_name: string; pause_kind: string | null }>;
}

describe('disputes and bulk reminder warnings in Chromium against ardesk serve --demo', () => {
  let server: DemoServer;
  let browser: Browser;
  let page: Page;
  let companyId: string;
  const api = (path: string) => `/api/companies/${companyId}${path}`;
  const post = (path: string, body: unknown) => apiCall(page, 'POST', api(path), body);

  beforeAll(async () => {
    await ensureRendererBuilt();
    server = await startDemoServer(['--reply-minutes', '0']);
    browser = await openBrowser();
    page = browser.page;
    companyId = await signIn(page, server.url);
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  }, 120_000);

  it('a dispute opened from the invoice panel pauses the chase with its reason; resolving it resumes the chase and logs the resolution', async () => {
    // A customer of the demo whose sequence runs and whom nothing holds, and one of its open invoices.
    const enrollments = await apiGet<{ data: Array<{ customer: string }> }>(page, api('/sequence-enrollments?status=active&page_size=100'));
    let customer: string | null = null;
    let invoice: { id: string; invoice_number: string } | undefined;
    for (const e of enrollments.data) {
      const chase = await apiGet<Chase>(page, api(`/customers/${e.customer}/chase`));
      if (chase.holds.length > 0 || chase.enrollments.length === 0 || chase.enrollments.some((x) => x.pause_kind !== null)) continue;
      invoice = (await apiGet<{ items: Array<{ id: string; invoice_number: string }> }>(page, api(`/invoices?customer_id=${e.customer}&status=overdue`))).items[0];
      if (invoice) {
        customer = e.customer;
        break;
      }
    }
    if (!customer || !invoice) throw new Error('the demo has a running enrollment nothing holds, with an overdue invoice');

    await page.goto(`${server.url}/companies/${companyId}/invoices/${invoice.id}?view=all&ar_owner=all`);
    const panel = page.getByTestId('invoice-panel');
    const status = panel.getByTestId('chase-status');
    await expect.poll(() => status.innerText(), { timeout: 15_000 }).toMatch(/: running$/m);

    const disputes = panel.getByTestId('panel-disputes');
    await disputes.getByRole('button', { name: 'Open a dispute…' }).click();
    const dialog = page.getByRole('alertdialog', { name: `Open a dispute on ${invoice.invoice_number}` });
    await dialog.getByLabel('What does the customer dispute?').fill('Short shipment: 4 pallets of 10 delivered');
    await dialog.getByLabel('Owner').selectOption({ index: 1 });
    await lookAndCheck(page, 'chase-open-dispute');
    await dialog.getByRole('button', { name: 'Open dispute' }).click();
    await dialog.waitFor({ state: 'detached' });

    const paused = `Paused: ${invoice.invoice_number} is disputed (Short shipment: 4 pallets of 10 delivered)`;
    await expect.poll(() => status.innerText()).toContain(paused);
    expect(await status.innerText()).not.toMatch(/\d{4}-\d{2}-\d{2}/);
    await disputes.getByTestId('dispute').first().waitFor();
    expect(await disputes.getByTestId('dispute').first().innerText()).toMatch(/^Short shipment: 4 pallets of 10 delivered\s+open\s+Opened .+ by .+ · owner .+/);
    const activity = panel.getByTestId('panel-activity');
    await expect.poll(() => activity.innerText()).toContain('Dispute opened');
    await disputes.scrollIntoViewIfNeeded();
    await lookAndCheck(page, 'chase-panel-disputed');

    // The customer page says the same, in words.
    await page.goto(`${server.url}/companies/${companyId}/customers/${customer}`);
    const customerStatus = page.getByTestId('chase-status');
    await expect.poll(() => customerStatus.innerText(), { timeout: 15_000 }).toContain(paused);
    await lookAndCheck(page, 'chase-customer-disputed');

    // Resolve it with a note: logged on the invoice's activity, and the chase goes on.
    await page.goto(`${server.url}/companies/${companyId}/invoices/${invoice.id}?view=all&ar_owner=all`);
    await panel.getByTestId('panel-disputes').getByRole('button', { name: 'Resolve…' }).click();
    const resolve = page.getByRole('alertdialog', { name: `Resolve the dispute on ${invoice.invoice_number}` });
    await resolve.getByLabel('How was it resolved?').fill('Credit memo for the 6 missing pallets issued');
    await resolve.getByRole('button', { name: 'Resolve dispute' }).click();
    await resolve.waitFor({ state: 'detached' });
    await expect.poll(() => status.innerText()).toMatch(/: running$/m);
    expect(await status.innerText()).not.toContain('Paused');
    await expect.poll(() => activity.innerText()).toContain('Dispute resolved');
    expect(await activity.innerText()).toContain('Credit memo for the 6 missing pallets issued');
    await expect.poll(() => panel.getByTestId('dispute').first().getAttribute('data-status')).toBe('resolved');
    const enrollment = await apiGet<{ data: Array<{ pause_kind: string | null }> }>(page, api(`/sequence-enrollments?customer_id=${customer}&status=active`));
    expect(enrollment.data.every((e) => e.pause_kind === null)).toBe(true);
  }, 300_000);

  it('a bulk reminder over a disputed, a promised and a plain invoice leaves the first two out by default, says why, and sends the third', async () => {
    await page.goto(`${server.url}/companies/${companyId}/invoices?view=all&ar_owner=all`);
    const grid = page.locator('[data-testid="invoice-grid"] .ag-row[row-index][row-id]');
    await grid.first().waitFor({ timeout: 20_000 });
    const rows = await page.evaluate(() =>
      [...document.querySelectorAll<HTMLElement>('[data-testid="invoice-grid"] .ag-row[row-index][row-id]')].map((el) => ({ index: Number(el.getAttribute('row-index')), id: el.getAttribute('row-id')! })),
    );
    const unique = [...new Map(rows.map((r) => [r.id, r])).values()].sort((a, b) => a.index - b.index).slice(0, 40);
    // Three invoices of three customers that nothing holds and that can get a reminder.
    const preview = await post('/invoices/bulk/reminder-preview', { invoice_ids: unique.map((r) => r.id) });
    expect(preview.status).toBe(200);
    const free: Array<{ invoice_id: string; invoice_number: string; customer_id: string; customer_name: string }> = [];
    for (const d of preview.body.data) {
      if (!d.held && d.blockers.length === 0 && !free.some((f) => f.customer_id === d.customer_id)) free.push(d);
    }
    expect(free.length, 'three free invoices of three customers in the first rows').toBeGreaterThanOrEqual(3);
    const [disputed, promised, plain] = free;
    expect((await post('/disputes', { invoice_id: disputed.invoice_id, reason: 'Price does not match the PO' })).status).toBe(201);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const call = await post('/communications', { customer_id: promised.customer_id, invoice_id: promised.invoice_id, kind: 'call', outcome: 'promised_to_pay', promise_date: tomorrow });
    expect(call.status).toBe(201);

    for (const f of [disputed, promised, plain]) {
      const index = unique.find((r) => r.id === f.invoice_id)!.index;
      await page.locator(`[data-testid="invoice-grid"] .ag-row[row-index="${index}"] .ag-cell[col-id="ag-Grid-SelectionColumn"] input[type="checkbox"]`).check();
    }
    const bar = page.getByRole('toolbar', { name: 'Bulk actions' });
    await expect.poll(() => bar.locator('strong').innerText()).toBe('3 invoices selected');
    await bar.getByRole('button', { name: 'Send reminders…' }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Send payment reminders?' });
    const held = dialog.getByTestId('held-invoices').locator('li');
    await expect.poll(() => held.count(), { timeout: 15_000 }).toBe(2);
    const words = (await held.allInnerTexts()).join('\n');
    expect(words).toContain(`${disputed.invoice_number} · ${disputed.customer_name} (left out): ${disputed.invoice_number} is disputed (Price does not match the PO).`);
    expect(words).toMatch(new RegExp(`${promised.invoice_number} · .+ \\(left out\\): .+ promised payment for ${promised.invoice_number} by [A-Z][a-z]{2} \\d{1,2}\\.`));
    expect(words).not.toContain(plain.invoice_number);
    expect(words).not.toMatch(/\d{4}-\d{2}-\d{2}/);
    const leaveOut = dialog.getByLabel(/^Leave out the 2 invoices below/);
    expect(await leaveOut.isChecked()).toBe(true);
    await dialog.getByRole('button', { name: 'Send 1 reminder' }).waitFor();
    await lookAndCheck(page, 'chase-bulk-dialog');
    // One click puts them back in; another leaves them out again.
    await leaveOut.uncheck();
    await dialog.getByRole('button', { name: 'Send 3 reminders' }).waitFor();
    await leaveOut.check();
    await dialog.getByRole('button', { name: 'Send 1 reminder' }).click();
    await page.locator('.toast-success', { hasText: 'Reminders queued for 1 invoice; 2 invoices left out' }).waitFor();
    const reminders = async (id: string) => (await apiGet<{ count: number }>(page, api(`/invoices/${id}/reminders`))).count;
    expect(await reminders(plain.invoice_id)).toBe(1);
    expect(await reminders(disputed.invoice_id)).toBe(0);
    expect(await reminders(promised.invoice_id)).toBe(0);
  }, 300_000);

  it('a dispute is edited from the invoice panel by keyboard: the pause and the dispute name the new reason, and the activity says what changed', async () => {
    // A customer whose sequence runs and whom nothing holds, and one of its overdue invoices.
    const enrollments = await apiGet<{ data: Array<{ customer: string }> }>(page, api('/sequence-enrollments?status=active&page_size=100'));
    let invoice: { id: string; invoice_number: string } | undefined;
    for (const e of enrollments.data) {
      const chase = await apiGet<Chase>(page, api(`/customers/${e.customer}/chase`));
      if (chase.holds.length > 0 || chase.enrollments.length === 0 || chase.enrollments.some((x) => x.pause_kind !== null)) continue;
      invoice = (await apiGet<{ items: Array<{ id: string; invoice_number: string }> }>(page, api(`/invoices?customer_id=${e.customer}&status=overdue`))).items[0];
      if (invoice) break;
    }
    if (!invoice) throw new Error('the demo has a running enrollment nothing holds, with an overdue invoice');
    expect((await post('/disputes', { invoice_id: invoice.id, reason: 'Price' })).status).toBe(201);

    await page.goto(`${server.url}/companies/${companyId}/invoices/${invoice.id}?view=all&ar_owner=all`);
    const panel = page.getByTestId('invoice-panel');
    const status = panel.getByTestId('chase-status');
    await expect.poll(() => status.innerText(), { timeout: 15_000 }).toContain(`Paused: ${invoice.invoice_number} is disputed (Price)`);
    // The open dispute's Edit (the invoice may have a resolved one too).
    const edit = panel.locator('[data-testid="dispute"][data-status="open"]').getByRole('button', { name: /^Edit…/ });
    await edit.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('alertdialog', { name: `Edit the dispute on ${invoice.invoice_number}` });
    const reason = dialog.getByLabel('What does the customer dispute?');
    // The reason field has the focus: the collector types over it.
    await expect.poll(() => reason.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type('Price does not match PO 4471');
    await page.keyboard.press('Tab');
    const owner = dialog.getByLabel('Owner');
    await expect.poll(() => owner.evaluate((el) => el === document.activeElement)).toBe(true);
    await owner.selectOption({ index: 1 });
    await lookAndCheck(page, 'chase-edit-dispute');
    const save = dialog.getByRole('button', { name: 'Save dispute' });
    await save.focus();
    await page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'detached' });

    await expect.poll(() => status.innerText(), { timeout: 10_000 }).toContain(`Paused: ${invoice.invoice_number} is disputed (Price does not match PO 4471)`);
    const dispute = panel.getByTestId('dispute').first();
    await expect.poll(() => dispute.innerText(), { timeout: 10_000 }).toMatch(/^Price does not match PO 4471\s+open\s+Opened .+ · owner .+/);
    const activity = panel.getByTestId('panel-activity');
    await expect.poll(() => activity.innerText(), { timeout: 10_000 }).toContain('Dispute edited');
    expect(await activity.innerText()).toContain('Reason: Price does not match PO 4471 (was: Price)');
  }, 300_000);
});
