/**
 * Issue 41 in Chromium, on the demo with its connections sending through a real SMTP server:
 * - a customer's reply answered from its page's email threads: the contact rule's answer shown
 *   before sending, the answer threaded (In-Reply-To, References) and shown in the thread;
 * - the team view: each collector's figures as the API gives them, moving customers between books;
 * - at 1024 px the open Filters panel lies over the list (rows still on screen) and the aging chart
 *   keeps every bucket's label;
 * - a connection's refused save says why beside the field (another host needs the password), and a
 *   port changed on the same host keeps the password.
 * Light and dark at 1024x700 and 1440x900, axe clean (lookAndCheck).
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lookAndCheck } from '../support/axe';
import { apiCall, apiGet } from '../support/browser';
import { openSendingDesk, type SendingDesk } from '../support/sending-desk';
import { layoutSettled } from '../support/settle';

type Communication = { id: string; customer: string };

describe('issue 41: answers from the timeline, the team view, laptop widths', () => {
  let desk: SendingDesk;
  let page: Page;
  let base = '';

  beforeAll(async () => {
    desk = await openSendingDesk();
    page = desk.page;
    base = `/companies/${desk.companyId}`;
  }, 240_000);

  afterAll(async () => {
    await desk?.close();
  });

  it("answers a customer's reply from its page: the rule's answer first, then the answer in the thread, threaded", async () => {
    const replies = await apiGet<{ data: Communication[] }>(page, `/api${base}/communications?kind=email&direction=inbound&limit=50`);
    const reply = replies.data[0];
    expect(reply, 'a reply received in the demo').toBeDefined();
    const draft = (await apiCall(page, 'GET', `/api${base}/communications/${reply!.id}/reply`)).body as { to: string; in_reply_to: string; references: string[]; contact: { allowed: boolean; reason: string | null } };
    await page.goto(`${desk.server.url}${base}/customers/${reply!.customer}`);
    const threads = page.getByTestId('email-threads');
    await threads.waitFor();
    const thread = page.getByTestId('email-thread').filter({ has: page.locator(`[data-direction="inbound"]`) }).first();
    await thread.evaluate((el) => ((el as HTMLDetailsElement).open = true));
    await thread.getByRole('button', { name: 'Reply' }).last().click();
    const form = page.getByTestId('reply-form');
    expect(await form.getByTestId('reply-to').innerText()).toBe(draft.to);
    // The rule's answer before anything is sent: held needs a reason, else it says it may go.
    const contact = await form.getByTestId('reply-contact').innerText();
    if (draft.contact.allowed) expect(contact).toBe('The contact rule lets this answer go now.');
    else expect(contact).toBe(draft.contact.reason);
    await form.getByLabel('Your answer').fill('Thank you, we have noted it and will follow up this week.');
    if (!draft.contact.allowed) await form.getByLabel('Why it goes anyway').fill('They asked a question');
    await lookAndCheck(page, 'timeline-reply-form');
    const sentBefore = desk.smtp.messages.length;
    await form.getByRole('button', { name: draft.contact.allowed ? 'Send answer' : 'Send anyway' }).click();
    const [mail] = (await desk.smtp.waitFor(sentBefore + 1)).slice(sentBefore);
    expect(mail.to).toEqual([draft.to]);
    expect(mail.headers['in-reply-to']).toBe(draft.in_reply_to);
    expect(mail.headers.references.split(/\s+/)).toEqual(draft.references);
    await page.locator('.toast-success', { hasText: `Answer sent to ${draft.to}` }).waitFor();
    const ours = thread.locator('[data-direction="outbound"]').filter({ hasText: 'Thank you, we have noted it' });
    await ours.waitFor();
    await lookAndCheck(page, 'timeline-thread-answered');
  });

  it("shows each collector's book as the API counts it, and moves customers between books", async () => {
    const view = await apiGet<{ collectors: Array<{ member_id: string | null; name: string; customers: number; touches: number }> }>(page, `/api${base}/team-view`);
    await page.goto(`${desk.server.url}${base}/team`);
    const table = page.getByTestId('team-table');
    await table.waitFor();
    const rows = await page.getByTestId('team-row').allInnerTexts();
    expect(rows.map((r) => r.split('\t')[0].trim())).toEqual(view.collectors.map((c) => c.name));
    expect(rows[0].split('\t')[1].trim()).toBe(String(view.collectors[0].customers));
    await lookAndCheck(page, 'team-view', { fullPage: true });

    // Move one customer of the first book to the second.
    const [from, to] = view.collectors.filter((c) => c.member_id && c.customers > 0);
    const section = page.getByRole('region', { name: 'Move customers between books' });
    const [fromPick, toPick] = [section.getByRole('combobox').nth(0), section.getByRole('combobox').nth(1)];
    await fromPick.selectOption(from.member_id!);
    await toPick.selectOption(to.member_id!);
    const book = page.getByTestId('book-customers');
    await book.waitFor();
    await book.locator('label').nth(1).locator('input').check();
    await section.getByRole('button', { name: 'Move 1 customer' }).click();
    await page.locator('.toast-success', { hasText: `Moved 1 customer to ${to.name}` }).waitFor();
    const after = await apiGet<{ collectors: Array<{ member_id: string | null; customers: number }> }>(page, `/api${base}/team-view`);
    expect(after.collectors.find((c) => c.member_id === from.member_id)!.customers).toBe(from.customers - 1);
    expect(after.collectors.find((c) => c.member_id === to.member_id)!.customers).toBe(to.customers + 1);
  });

  it('at 1024 px lays the open Filters over the list, keeps invoice rows on screen, and labels every aging bucket', async () => {
    await page.setViewportSize({ width: 1024, height: 700 });
    await page.goto(`${desk.server.url}${base}/invoices`);
    await page.locator('[data-testid="invoice-grid"] .ag-row[row-index="0"]').first().waitFor();
    // The chart draws once its figures came (after the grid's first rows, sometimes).
    const labels = () => page.getByTestId('aging-chart').locator('svg text').allTextContents().then((t) => t.join(' '));
    for (const words of ['Current', '1-30', '31-60', '61-90']) await expect.poll(labels, { message: words }).toContain(words);
    const rowTop = async () => (await page.locator('[data-testid="invoice-grid"] .ag-row[row-index="0"]').first().boundingBox())!.y;
    const before = await rowTop();
    await page.getByRole('button', { name: /^Filters/ }).click();
    await page.locator('#filter-panel').waitFor();
    await layoutSettled(page, '#filter-panel, [data-testid="invoice-grid"] .ag-row[row-index="0"]');
    // The list did not move, and the first row's start (its invoice number) is still in sight, not under the panel.
    expect(await rowTop()).toBe(before);
    expect(before).toBeLessThan(650);
    const row = page.locator('[data-testid="invoice-grid"] .ag-row[row-index="0"] .ag-cell[col-id="invoice_number"]').first();
    const box = (await row.boundingBox())!;
    expect(await page.evaluate(({ x, y }) => document.elementFromPoint(x, y)?.closest('.ag-row')?.getAttribute('row-index') ?? null, { x: box.x + 10, y: box.y + box.height / 2 })).toBe('0');
    const panel = (await page.locator('#filter-panel').boundingBox())!;
    expect(panel.x).toBeGreaterThan(box.x + box.width);
    await lookAndCheck(page, 'desk-filters-overlay');
    await page.getByRole('button', { name: /^Filters/ }).click();
  });

  it('says beside the field why a connection was not saved, and keeps the password when only the port changes', async () => {
    const connections = await apiGet<{ data: Array<{ id: string; name: string; smtp_host: string; smtp_port: number }> }>(page, `/api${base}/email-connections`);
    const c = connections.data[0];
    await page.goto(`${desk.server.url}${base}/settings/email`);
    await page.getByTestId('email-connections').getByRole('button', { name: `Edit ${c.name}` }).click();
    const form = page.getByTestId('email-connection-form').first();
    await form.getByLabel('SMTP server').fill('mail.elsewhere.example');
    await form.getByRole('button', { name: 'Save connection' }).click();
    const error = form.getByTestId('field-error-smtp_password');
    expect(await error.innerText()).toBe('Is required when the host or username changes');
    expect(await form.getByLabel('SMTP password').getAttribute('aria-invalid')).toBe('true');
    await lookAndCheck(page, 'connection-field-error');
    // The same host on another port saves, and the stored password stays.
    await form.getByLabel('SMTP server').fill(c.smtp_host);
    await form.getByLabel('Port', { exact: true }).fill(String(c.smtp_port + 1));
    await form.getByRole('button', { name: 'Save connection' }).click();
    await page.locator('.toast-success', { hasText: 'saved' }).waitFor();
    const saved = (await apiCall(page, 'GET', `/api${base}/email-connections/${c.id}`)).body as { smtp_port: number; has_password: boolean };
    expect(saved).toMatchObject({ smtp_port: c.smtp_port + 1, has_password: true });
    await apiCall(page, 'PATCH', `/api${base}/email-connections/${c.id}`, { smtp_port: c.smtp_port });
  });
});
