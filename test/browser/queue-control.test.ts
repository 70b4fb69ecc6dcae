/**
 * Queue control and the approve panel (issue 41, items 1 and 5) in Chromium against ardesk serve
 * --demo, mail going to a real SMTP server on loopback: enrolling an enrolled customer asks; an
 * upcoming step is edited and sent now, and the step that ran shows what went out; Today's count is
 * what it lists; the approve panel shows From, To, an editable subject and the invoice PDF ticked,
 * and "Approve and send" sends the subject as edited with the PDF.
 */
import { simpleParser } from 'mailparser';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lookAndCheck } from '../support/axe';
import { apiCall, apiGet } from '../support/browser';
import { type SendingDesk, openSendingDesk } from '../support/sending-desk';
import type { SmtpServer } from '../support/smtp';

describe('queue control and the approve panel in Chromium against ardesk serve --demo', () => {
  let desk: SendingDesk | undefined;
  let smtp: SmtpServer;
  let page: Page;
  let companyId: string;
  let url: string;

  beforeAll(async () => {
    desk = await openSendingDesk(['--reply-minutes', '0']);
    ({ smtp, page, companyId } = desk);
    url = desk.server.url;
  }, 240_000);

  afterAll(() => desk?.close(), 120_000);

  const base = () => `/api/companies/${companyId}`;
  const count = async (tab: string) => Number((await page.getByTestId(`tab-${tab}`).locator('.count').innerText()).replace(/\D/g, ''));

  it('asks before enrolling again, sends an upcoming step now as edited, shows what went out, and counts what Today lists', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const customer = await apiCall(page, 'POST', `${base()}/customers`, { name: 'Quayside Chandlers', contacts: [{ name: 'Ola Quay', email: 'ap@quayside.test', is_billing: true }] });
    expect(customer.status).toBe(201);
    expect((await apiCall(page, 'POST', `${base()}/invoices`, { customer: customer.body.id, number: 'QC-1001', total_amount: 1850, issue_date: '2026-01-05', due_date: '2026-02-04' })).status).toBe(201);
    const connections = await apiGet<{ data: Array<{ id: string; is_default: boolean }> }>(page, `${base()}/email-connections`);
    const sequence = (await apiCall(page, 'POST', `${base()}/sequences`, { name: 'Quayside chase', sender_connection_id: (connections.data.find((c) => c.is_default) ?? connections.data[0]).id })).body;
    for (const step of [
      { label: 'Second reminder', offset_days: 6, offset_time: '09:00', subject_template: 'Invoice {{invoice_number}}', body_plain_template: 'Hello {{contact_name}},\n\n{{invoice_number}} has {{balance}} open.' },
      { label: 'Check the account', step_type: 'task', offset_days: 9, offset_time: '09:00' },
    ]) {
      expect((await apiCall(page, 'POST', `${base()}/sequences/${sequence.id}/steps`, step)).status).toBe(201);
    }
    await apiCall(page, 'POST', `${base()}/sequences/${sequence.id}`, { action: 'activate' });

    // Enroll from the sequence's page, then again: the dialog asks, keep (the focused answer) changes nothing.
    await page.goto(`${url}/companies/${companyId}/sequences/${sequence.id}`);
    await page.getByTestId('tab-enrollments').click();
    const enrollOnce = async () => {
      await page.getByLabel('Enroll a customer').fill('Quayside');
      await page.getByRole('button', { name: 'Enroll Quayside Chandlers' }).click();
    };
    await enrollOnce();
    await page.getByText(/^Quayside Chandlers enrolled, starting/).waitFor();
    await enrollOnce();
    const asked = page.getByTestId('already-enrolled');
    await asked.waitFor();
    expect(await asked.locator('#enrolled-detail').innerText()).toMatch(/^Quayside Chandlers is already in "Quayside chase" \(started [A-Z][a-z]{2} \d{1,2}\)\. Keep that enrollment, or restart it from /);
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Keep the enrollment');
    await lookAndCheck(page, 'queue-control-already-enrolled');
    await page.keyboard.press('Enter');
    await page.getByText(/^Quayside Chandlers stays enrolled as before/).waitFor();
    const enrollments = await apiGet<{ count: number }>(page, `${base()}/sequence-enrollments?sequence_id=${sequence.id}`);
    expect(enrollments.count).toBe(1);

    // Upcoming: the second reminder opens to its controls; edited, then sent now.
    await page.goto(`${url}/companies/${companyId}/queue`);
    await page.getByTestId('tab-upcoming').click();
    await page.getByLabel('Search the queue').fill('Quayside');
    await page.getByRole('button', { name: 'Second reminder: change or send the step for Quayside Chandlers' }).click();
    const detail = page.getByTestId('step-detail');
    await detail.getByRole('group', { name: 'Change the step "Second reminder" for Quayside Chandlers' }).waitFor();
    await detail.getByTestId('email-preview').getByText('Invoice QC-1001').waitFor();
    await lookAndCheck(page, 'queue-control-upcoming');
    await detail.getByRole('button', { name: 'Edit this email' }).click();
    await detail.getByLabel('Subject').fill('QC-1001: a word before the reminder');
    await detail.getByRole('button', { name: 'Save this email' }).click();
    await page.getByText('Your email to Quayside Chandlers is kept with the step').waitFor();
    await detail.getByText('Edited: this email goes out as you wrote it').waitFor();
    await detail.getByRole('button', { name: 'Send now' }).click();
    await page.getByText('Sent "QC-1001: a word before the reminder" to Quayside Chandlers').waitFor();
    const mail = (await smtp.waitFor(1)).find((m) => m.subject === 'QC-1001: a word before the reminder');
    expect(mail?.to).toEqual(['ap@quayside.test']);

    // The task, sent now, is today's work; the history row shows the email as it went out.
    await page.getByRole('button', { name: 'Check the account: change or send the step for Quayside Chandlers' }).click();
    await page.getByRole('button', { name: 'Do this task today' }).click();
    await page.getByText('"Check the account" for Quayside Chandlers is in Today').waitFor();
    await page.getByTestId('tab-history').click();
    await page.getByRole('button', { name: 'Second reminder: what went out to Quayside Chandlers' }).click();
    const wentOut = page.getByTestId('went-out');
    await wentOut.getByText('ap@quayside.test').waitFor();
    expect(await wentOut.innerText()).toContain('QC-1001: a word before the reminder');
    await lookAndCheck(page, 'queue-control-went-out');

    // Today counts what it lists: ready steps, the approved calls and tasks, the held emails.
    await page.getByLabel('Search the queue').fill('');
    await page.getByTestId('tab-ready').click();
    await page.getByText('Check the account').first().waitFor();
    const q = (category: string) => apiGet<{ count: number; data: Array<{ hold_reason: string | null }> }>(page, `${base()}/sequences/queue?category=${category}&page_size=100`);
    const [ready, upcoming, tasks] = await Promise.all([q('ready'), q('upcoming'), apiGet<{ data: unknown[] }>(page, `${base()}/action-tasks`)]);
    const held = upcoming.data.filter((r) => r.hold_reason === 'recent_contact' || r.hold_reason === 'emailed_today').length;
    await expect.poll(() => count('ready')).toBe(ready.count + tasks.data.length + held);
    expect(await page.getByText('Nothing is due today.').count()).toBe(0);
    expect(today).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  }, 180_000);

  it('the approve panel shows From, To, an editable subject and the invoice PDF ticked; Approve and send sends it so', async () => {
    type Listed = { data: Array<{ id: string; invoice: string | null; invoice_number: string | null; contact_hold: string | null }> };
    const emails = await apiGet<Listed>(page, `${base()}/actions?category=needs_action&action_type=email&include_alternatives=false&page_size=100`);
    const action = emails.data.find((a) => a.invoice !== null && a.contact_hold === null);
    if (!action) throw new Error('the demo has no email action about an invoice that the contact rule lets go');
    const envelope = await apiGet<{ from: { name: string; address: string }; to: string[]; subject: string }>(page, `${base()}/actions/${action.id}/envelope`);
    await page.goto(`${url}/companies/${companyId}/actions/${action.id}?tab=needs_action`);
    const panel = page.getByTestId('action-panel');
    const shown = panel.getByTestId('action-envelope');
    await shown.getByText(`${envelope.from.name} <${envelope.from.address}>`).waitFor();
    expect(await shown.innerText()).toContain(envelope.to.join(', '));
    expect(await panel.getByLabel('Subject (sent as written here)').inputValue()).toBe(envelope.subject);
    const invoiceBox = panel.getByTestId('attach-options').getByRole('checkbox', { name: /Attach the invoice PDF/ });
    await expect.poll(() => invoiceBox.isChecked()).toBe(true);
    const operations = panel.getByRole('toolbar').or(panel.locator('[aria-label="Action operations"]'));
    expect(await operations.getByRole('button').allInnerTexts()).toEqual(['Approve and send', 'Mark as sent by hand', 'Close without sending', 'Reject with a reason…', 'Withdraw this action']);
    await operations.scrollIntoViewIfNeeded();
    await lookAndCheck(page, 'queue-control-approve-panel');

    await panel.getByLabel('Subject (sent as written here)').fill(`Invoice ${action.invoice_number}: copy attached`);
    const before = smtp.messages.length;
    await panel.getByRole('button', { name: 'Approve and send', exact: true }).click();
    await expect.poll(() => smtp.messages.length, { timeout: 20_000 }).toBeGreaterThan(before);
    const sent = smtp.messages.at(-1)!;
    expect(sent.subject).toBe(`Invoice ${action.invoice_number}: copy attached`);
    expect(sent.to).toEqual(envelope.to);
    expect(sent.from).toBe(envelope.from.address);
    const files = (await simpleParser(sent.raw)).attachments.map((a) => a.filename);
    expect(files).toEqual([`Invoice-${action.invoice_number}.pdf`]);
    await expect.poll(() => panel.getByTestId('action-status').innerText(), { timeout: 20_000 }).toBe('Done');
  }, 120_000);
});
