import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../core/dates';
import { lookAndCheck } from '../support/axe';
import { apiCall, apiGet } from '../support/browser';
import type { DemoServer } from '../support/server';
import { type SendingDesk, openSendingDesk } from '../support/sending-desk';
import type { SmtpServer } from '../support/smtp';

describe('a sequence timed from due dates, in Chromium against ardesk serve --demo', () => {
  let desk: SendingDesk | undefined;
  let server: DemoServer;
  let smtp: SmtpServer;
  let page: Page;
  let companyId: string;

  beforeAll(async () => {
    desk = await openSendingDesk(['--reply-minutes', '0']);
    ({ server, smtp, page, companyId } = desk);
  }, 240_000);

  afterAll(() => desk?.close(), 120_000);

  it('builds "3 days before due" in the builder, then sends one email for two invoices not yet due that fall due the same day', async () => {
    const base = `/api/companies/${companyId}`;
    // A customer of its own, so no reply, promise or dispute of the demo pauses it. Its time zone is UTC: today's 00:00 step is due now.
    const today = new Date().toISOString().slice(0, 10);
    const customer = await apiCall(page, 'POST', `${base}/customers`, { name: 'Lakeside Dental Group', contacts: [{ name: 'Robin Reyes', email: 'ap@lakeside-dental.test', is_billing: true }] });
    expect(customer.status).toBe(201);
    for (const [number, due] of [
      ['LDG-101', addDays(today, 3)],
      ['LDG-102', addDays(today, 3)],
      ['LDG-103', addDays(today, 12)],
    ]) {
      const inv = await apiCall(page, 'POST', `${base}/invoices`, { customer: customer.body.id, total_amount: 1200, issue_date: today, due_date: due, number });
      expect(inv.status, JSON.stringify(inv.body)).toBe(201);
    }
    const connections = await apiGet<{ data: Array<{ id: string }> }>(page, `${base}/email-connections`);
    const seq = await apiCall(page, 'POST', `${base}/sequences`, { name: 'Before it falls due', timezone: 'UTC', sender_connection_id: connections.data[0].id });
    expect(seq.status).toBe(201);

    // The builder: choose the timing, then a step three days before each invoice's due date.
    await page.goto(`${server.url}/companies/${companyId}/sequences/${seq.body.id}`);
    await page.getByTestId('sequence-name').waitFor();
    const timing = page.getByTestId('timing-choice');
    await timing.getByLabel('Per invoice, from its due date').check();
    await page.getByText('Steps now run from each invoice’s due date').waitFor();
    await expect.poll(() => timing.getByLabel('Per invoice, from its due date').isChecked()).toBe(true);
    await page.getByRole('button', { name: 'Add a step' }).click();
    const editor = page.getByTestId('step-editor');
    await editor.getByLabel('Name').fill('Coming due');
    await editor.getByLabel('Before or after due').selectOption('before');
    await editor.getByLabel('Days', { exact: true }).fill('3');
    await editor.getByLabel(/Send time/).fill('00:00');
    await editor.getByLabel('Subject').fill('Coming due soon for {{customer_name}}');
    await editor.getByLabel(/Body/).first().fill('Hello {{contact_name}},\nThese invoices fall due soon:\n{{invoice_list}}\nThank you,\n{{sender_name}}');
    await lookAndCheck(page, 'due-dates-builder-step');
    await editor.getByRole('button', { name: /Add step|Save step/ }).click();
    const stepsTable = page.getByTestId('steps').locator('table');
    await stepsTable.getByText('3 days before due, 00:00').waitFor();
    // The saved step stays open with what was saved.
    await expect.poll(() => page.getByTestId('step-editor').getByLabel('Name', { exact: true }).inputValue()).toBe('Coming due');
    expect(await page.getByTestId('step-editor').getByLabel('Days', { exact: true }).inputValue()).toBe('3');
    expect(await page.getByTestId('step-editor').getByLabel('Before or after due').inputValue()).toBe('before');
    await page.getByRole('button', { name: 'Activate' }).click();
    await page.getByTestId('sequence-status').getByText('Active').waitFor();
    await lookAndCheck(page, 'due-dates-builder');

    const enrolled = await apiCall(page, 'POST', `${base}/sequence-enrollments`, { sequence_id: seq.body.id, customer_id: customer.body.id });
    expect(enrolled.status).toBe(201);

    // The Queue: one email for the customer, about both invoices due in three days (not the one due later).
    await page.getByRole('link', { name: 'Queue' }).click();
    await page.getByRole('heading', { level: 1, name: 'Queue' }).waitFor();
    const row = page.locator('[data-testid="queue-group-reminder"] tbody tr', { hasText: 'Lakeside Dental Group' });
    await expect.poll(() => row.count(), { timeout: 15_000 }).toBe(1);
    expect((await row.getByTestId('queue-invoices').innerText()).trim()).toBe('LDG-101, LDG-102');
    await row.locator('button.linkish').click();
    const preview = page.getByTestId('email-preview');
    await preview.getByText('From', { exact: true }).waitFor();
    await lookAndCheck(page, 'due-dates-queue-merged');
    await preview.getByRole('button', { name: 'Send this email' }).click();
    await expect.poll(() => smtp.messages.filter((m) => m.to.includes('ap@lakeside-dental.test')).length, { timeout: 15_000 }).toBe(1);
    const mail = smtp.messages.find((m) => m.to.includes('ap@lakeside-dental.test'))!;
    expect(mail.subject).toBe('Coming due soon for Lakeside Dental Group');
    expect(mail.text).toMatch(/LDG-101, due .*: \$1,200\.00/);
    expect(mail.text).toMatch(/LDG-102, due .*: \$1,200\.00/);
    expect(mail.text).not.toContain('LDG-103');
    await expect.poll(() => row.count()).toBe(0);

    // The enrollment shows each invoice's own schedule in words.
    await page.goto(`${server.url}/companies/${companyId}/sequences/${seq.body.id}?tab=enrollments`);
    await page.locator('[data-enrollment="Lakeside Dental Group"] button.linkish').click();
    const scheduled = page.getByTestId('scheduled-steps');
    await scheduled.getByText(/LDG-103, due .*: 3 days before due/).waitFor();
    expect(await scheduled.getByText(/LDG-10[12], due .*: 3 days before due/).count()).toBe(2);
    await lookAndCheck(page, 'due-dates-enrollment-schedule');
    // Nothing else went to the customer.
    expect(smtp.messages.filter((m) => m.to.includes('ap@lakeside-dental.test'))).toHaveLength(1);
  }, 180_000);

  it('an invoice that opens after the customer’s email of the day waits for tomorrow, and the Queue says so in words', async () => {
    const base = `/api/companies/${companyId}`;
    const today = new Date().toISOString().slice(0, 10);
    const customer = await apiCall(page, 'POST', `${base}/customers`, { name: 'Harbor Optics', contacts: [{ name: 'Sam Lee', email: 'ap@harbor-optics.test', is_billing: true }] });
    expect(customer.status).toBe(201);
    const invoice = (number: string, due: string) => apiCall(page, 'POST', `${base}/invoices`, { customer: customer.body.id, total_amount: 800, issue_date: today, due_date: due, number });
    expect((await invoice('HO-201', addDays(today, 3))).status).toBe(201);
    const connections = await apiGet<{ data: Array<{ id: string }> }>(page, `${base}/email-connections`);
    const seq = await apiCall(page, 'POST', `${base}/sequences`, { name: 'Harbor heads-up', timezone: 'UTC', timing: 'due_date', sender_connection_id: connections.data[0].id });
    expect(seq.status).toBe(201);
    const step = { label: 'Coming due', due_offset_days: -3, offset_time: '00:00', subject_template: 'Coming due for {{customer_name}}', body_plain_template: 'Due soon:\n{{invoice_list}}' };
    expect((await apiCall(page, 'POST', `${base}/sequences/${seq.body.id}/steps`, step)).status).toBe(201);
    expect((await apiCall(page, 'POST', `${base}/sequences/${seq.body.id}`, { action: 'activate' })).status).toBe(200);
    expect((await apiCall(page, 'POST', `${base}/sequence-enrollments`, { sequence_id: seq.body.id, customer_id: customer.body.id })).status).toBe(201);
    const ready = await apiGet<{ data: Array<{ id: string }> }>(page, `${base}/sequences/queue?category=ready&customer_id=${customer.body.id}`);
    expect(ready.data).toHaveLength(1);
    expect((await apiCall(page, 'POST', `${base}/sequences/queue/${ready.data[0].id}/send`, {})).body.status).toBe('sent');
    const toHarbor = () => smtp.messages.filter((m) => m.to.includes('ap@harbor-optics.test'));
    await expect.poll(() => toHarbor().length, { timeout: 10_000 }).toBe(1);

    // A second invoice opens, due in two days: its "3 days before due" is past, so it would run today.
    expect((await invoice('HO-202', addDays(today, 2))).status).toBe(201);
    await page.goto(`${server.url}/companies/${companyId}/queue`);
    await page.getByRole('heading', { level: 1, name: 'Queue' }).waitFor();
    const held = page.getByTestId('queue-held').locator('tr', { hasText: 'Harbor Optics' });
    await expect.poll(() => held.count(), { timeout: 10_000 }).toBe(1);
    expect(await held.getByTestId('queue-row-status').innerText()).toBe('Waits for tomorrow: the customer already got an email today, and one email a day goes out');
    expect(await page.locator('[data-testid="queue-group-reminder"] tbody tr', { hasText: 'Harbor Optics' }).count()).toBe(0);
    await page.getByTestId('queue-held').scrollIntoViewIfNeeded();
    await lookAndCheck(page, 'due-dates-queue-waits-for-tomorrow');
    expect(toHarbor()).toHaveLength(1);
  }, 180_000);
});
