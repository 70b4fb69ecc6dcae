/**
 * The contact rule said before sending, in Chromium against ardesk serve --demo: the approve panel of
 * an email to a customer a person paused says nothing goes and why, and approving is refused with
 * the reason (no message reaches SMTP); the statement dialog says who is held and why and how many will
 * go before anything is sent; the Actions list marks held emails, and a person stops contact with a
 * customer (with a reason) on its page, the Queue lists its steps on hold with the stop's words, and it
 * is lifted; the approve panel sends a held email anyway with a
 * reason, or says an owner forbade it. Screenshots light and dark at 1024x700 and
 * 1440x900, axe clean.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lookAndCheck } from '../support/axe';
import { apiCall, apiGet } from '../support/browser';
import type { DemoServer } from '../support/server';
import { type SendingDesk, openSendingDesk } from '../support/sending-desk';
import type { SmtpServer } from '../support/smtp';

describe('holds said before sending', () => {
  let desk: SendingDesk | undefined;
  let server: DemoServer;
  let smtp: SmtpServer;
  let page: Page;
  let companyId: string;
  /** The email action the first test found held by a person's pause: the last test sends it anyway. */
  let heldAction: { id: string; customer_name: string } | undefined;

  beforeAll(async () => {
    desk = await openSendingDesk();
    ({ server, smtp, page, companyId } = desk);
  }, 240_000);

  afterAll(() => desk?.close(), 120_000);

  it("the approve panel of an email to a customer a person paused says nothing goes and why; Approve is refused with the reason", async () => {
    const enrollments = await apiGet<{ data: Array<{ id: string; customer: string; pause_kind: string | null }> }>(page, `/api/companies/${companyId}/sequence-enrollments?status=active&page_size=100`);
    const emails = await apiGet<{ data: Array<{ id: string; customer: string; customer_name: string }> }>(page, `/api/companies/${companyId}/actions?category=needs_action&include_alternatives=false&action_type=email&page_size=100`);
    const action = emails.data.find((a) => enrollments.data.some((e) => e.customer === a.customer && e.pause_kind === null));
    expect(action).toBeDefined();
    const enrollment = enrollments.data.find((e) => e.customer === action!.customer)!;
    expect((await apiCall(page, 'POST', `/api/companies/${companyId}/sequence-enrollments/${enrollment.id}/pause`, {})).status).toBe(200);

    await page.goto(`${server.url}/companies/${companyId}/actions/${action!.id}`);
    const note = page.getByTestId('contact-hold');
    await note.waitFor();
    expect(await note.innerText()).toMatch(new RegExp(`^Nothing goes to ${action!.customer_name} now: Paused by \\S`));
    await note.scrollIntoViewIfNeeded();
    await lookAndCheck(page, 'contact-hold-approve-panel');

    const before = smtp.messages.length;
    await page.getByRole('button', { name: 'Approve and send', exact: true }).click();
    await expect.poll(() => page.getByTestId('action-error').innerText()).toMatch(/Held: Paused by /);
    expect((await apiGet<{ status: string }>(page, `/api/companies/${companyId}/actions/${action!.id}`)).status).toBe('proposed');
    expect(smtp.messages).toHaveLength(before);
    heldAction = action;
  });

  it('the Actions list marks the held email and why; on the customer page a person stops contact with a reason, the chase says nothing goes, and Lift undoes it', async () => {
    // The customer paused in the first test: their email decision reads "On hold" in the list.
    await page.goto(`${server.url}/companies/${companyId}/actions`);
    const held = page.locator(`[data-action-row="${heldAction!.id}"]`).getByTestId('contact-held');
    await held.waitFor();
    expect(await held.innerText()).toMatch(/^On hold: Paused by \S/);
    await held.scrollIntoViewIfNeeded();
    await lookAndCheck(page, 'contact-hold-actions-list');

    // A customer who owes something and whom nothing holds: the stop is what holds them.
    const customers = await apiGet<{ data: Array<{ id: string; name: string }> }>(page, `/api/companies/${companyId}/customers?sort=overdue&order=desc&limit=50`);
    const free = [];
    for (const c of customers.data) {
      const chase = await apiGet<{ contact: { allowed: boolean; reason: string | null } }>(page, `/api/companies/${companyId}/customers/${c.id}/chase`);
      if (chase.contact.allowed && chase.contact.reason === null) free.push(c);
      if (free.length) break;
    }
    const customer = free[0];
    expect(customer).toBeDefined();
    await page.goto(`${server.url}/companies/${companyId}/customers/${customer.id}`);
    // The stop is read after the customer: on a busy machine it comes a moment later.
    await page.getByRole('button', { name: 'Stop contact…' }).click({ timeout: 30_000 });
    const dialog = page.getByRole('alertdialog');
    await dialog.getByLabel('Do not contact').check();
    // No reason, no stop: the button waits for one.
    expect(await dialog.getByRole('button', { name: 'Stop contact' }).isDisabled()).toBe(true);
    await dialog.getByLabel(/^Why/).fill('Their lawyer asked for letters only');
    await lookAndCheck(page, 'contact-stop-dialog');
    await dialog.getByRole('button', { name: 'Stop contact' }).click();
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(() => page.getByTestId('chase-contact').innerText()).toMatch(/^Nothing goes out now: Do not contact, set by .+: Their lawyer asked for letters only/);
    await lookAndCheck(page, 'contact-stop-customer');

    // The Queue reads the stop too: the customer's steps wait under Paused in the rule's words, lifted on the customer's page.
    const sequences = await apiGet<{ data: Array<{ id: string }> }>(page, `/api/companies/${companyId}/sequences?status=active&page_size=1`);
    expect((await apiCall(page, 'POST', `/api/companies/${companyId}/sequence-enrollments`, { sequence_id: sequences.data[0].id, customer_id: customer.id })).status).toBeLessThan(300);
    await page.goto(`${server.url}/companies/${companyId}/queue/paused`);
    await page.getByLabel('Search the queue').fill(customer.name);
    const stopped = page.getByTestId('queue-row-status').first();
    await expect.poll(() => stopped.innerText()).toMatch(/^On hold: Do not contact, set by .+: Their lawyer asked for letters only/);
    await lookAndCheck(page, 'contact-stop-queue');
    await page.getByRole('link', { name: `Lift the stop on ${customer.name}'s page` }).first().click();
    await page.getByRole('button', { name: 'Lift "do not contact"' }).click();
    await page.getByRole('button', { name: 'Stop contact…' }).waitFor();
    expect((await apiGet<{ stop: string | null }>(page, `/api/companies/${companyId}/customers/${customer.id}/contact-stop`)).stop).toBeNull();
  }, 120_000);

  it('the statement dialog says who is held and why, and how many will go, before anything is sent; Send it anyway takes a reason', async () => {
    // A person pauses one customer's sequence: that customer is held on every channel.
    const enrollments = await apiGet<{ data: Array<{ id: string; customer: string; customer_name: string; pause_kind: string | null }> }>(page, `/api/companies/${companyId}/sequence-enrollments?status=active&page_size=50`);
    const enrollment = enrollments.data.find((e) => e.pause_kind === null);
    expect(enrollment).toBeDefined();
    expect((await apiCall(page, 'POST', `/api/companies/${companyId}/sequence-enrollments/${enrollment!.id}/pause`, {})).status).toBe(200);

    await page.goto(`${server.url}/companies/${companyId}/customers/${enrollment!.customer}`);
    const before = smtp.messages.length;
    await page.getByRole('button', { name: 'Send statement', exact: true }).click();
    const preview = page.getByTestId('statement-preview');
    await preview.waitFor();
    expect(await preview.innerText()).toMatch(new RegExp(`0 of 1 statement will go; 1 on hold:\\s+${enrollment!.customer_name}: Paused by \\S`));
    // Nothing goes as it is: the one way is Send it anyway, and only with a reason.
    expect(await preview.getByRole('button', { name: /^Send/ }).allInnerTexts()).toEqual(['Send it anyway']);
    const anyway = preview.getByRole('button', { name: 'Send it anyway' });
    expect(await anyway.isDisabled()).toBe(true);
    await lookAndCheck(page, 'contact-hold-statement-dialog');
    await preview.getByRole('button', { name: 'Cancel' }).click();
    await preview.waitFor({ state: 'detached' });
    expect(smtp.messages).toHaveLength(before);

    // Asked again, sent anyway with a reason: exactly one statement goes.
    await page.getByRole('button', { name: 'Send statement', exact: true }).click();
    await preview.waitFor();
    await preview.getByLabel(/^To send it anyway, say why/).fill('They asked for their statement on the phone today');
    await lookAndCheck(page, 'contact-hold-statement-anyway');
    await preview.getByRole('button', { name: 'Send it anyway' }).click();
    await expect.poll(() => page.getByTestId('send-statements').getByRole('status').innerText(), { timeout: 30_000 }).toMatch(/1 of 1 statement sent/);
    // The demo's own background sends may add others meanwhile: the statements are counted.
    expect(smtp.messages.slice(before).filter((m) => m.subject.startsWith('Statement of account'))).toHaveLength(1);
  }, 120_000);

  it('the approve panel offers Send anyway… with a reason for a hold that may be overridden, and says so when an owner forbade it', async () => {
    const action = heldAction!;
    const settings = `/api/companies/${companyId}/contact-settings`;
    // An owner forbids sending through a pause: the panel says so and offers no way around it.
    expect((await apiCall(page, 'PATCH', settings, { no_override: ['paused'] })).status).toBe(200);
    await page.goto(`${server.url}/companies/${companyId}/actions/${action.id}`);
    const panel = page.getByTestId('action-panel');
    const refused = panel.getByTestId('override-refused');
    await refused.waitFor();
    expect(await refused.innerText()).toBe('Sending anyway is turned off for a pause: an owner decided it always holds. It goes once the hold is lifted.');
    expect(await panel.getByRole('button', { name: 'Send anyway…' }).count()).toBe(0);

    // Allowed again: Send anyway… asks why, and sends once with the reason.
    expect((await apiCall(page, 'PATCH', settings, { no_override: [] })).status).toBe(200);
    await page.reload();
    await expect.poll(() => panel.getByTestId('contact-hold').innerText()).toMatch(/, or you send it anyway with a reason\.$/);
    await panel.getByRole('button', { name: 'Send anyway…' }).click();
    const form = panel.getByTestId('send-anyway');
    const go = form.getByRole('button', { name: 'Approve and send anyway' });
    expect(await go.isDisabled()).toBe(true);
    await form.getByLabel(/^Why it goes despite the hold/).fill('They asked for it on the phone today');
    await form.scrollIntoViewIfNeeded();
    await lookAndCheck(page, 'contact-hold-send-anyway');
    const { subject } = await apiGet<{ subject: string }>(page, `/api/companies/${companyId}/actions/${action.id}/envelope`);
    const before = smtp.messages.length;
    await go.click();
    await expect.poll(() => panel.getByTestId('action-status').innerText(), { timeout: 30_000 }).toBe('Done');
    // The demo's own background sends may add others meanwhile: this email is counted by its subject.
    expect(smtp.messages.slice(before).filter((m) => m.subject === subject)).toHaveLength(1);
  }, 120_000);
});
