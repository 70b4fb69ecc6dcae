/**
 * "Attach the invoice PDF" / "Attach a statement" where collectors send email (issue 26), in
 * Chromium against ardesk serve --demo: an email action ticked by keyboard before approval, and a
 * sequence email step ticked in the step editor, each arriving at the real SMTP server on loopback
 * with the PDF the preview named.
 */
import { simpleParser } from 'mailparser';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lookAndCheck } from '../support/axe';
import { apiCall, apiGet } from '../support/browser';
import { keepPdf, pdfText } from '../support/pdf';
import type { DemoServer } from '../support/server';
import { type SendingDesk, openSendingDesk } from '../support/sending-desk';
import type { SmtpServer } from '../support/smtp';

/** The PDFs of the messages that reached the SMTP server so far, by file name. */
async function receivedPdfs(smtp: SmtpServer): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  for (const m of smtp.messages) {
    for (const a of (await simpleParser(m.raw)).attachments) if (a.filename) out.set(a.filename, a.content);
  }
  return out;
}

describe('attaching documents to emails in Chromium against ardesk serve --demo', () => {
  let desk: SendingDesk | undefined;
  let server: DemoServer;
  let smtp: SmtpServer;
  let page: Page;
  let companyId: string;
  /** The customer the action test emailed: a step for them now would wait (recent contact). */
  let emailedCustomer = '';

  beforeAll(async () => {
    desk = await openSendingDesk(['--reply-minutes', '0']);
    ({ server, smtp, page, companyId } = desk);
  }, 240_000);

  afterAll(() => desk?.close(), 120_000);

  it('Actions: ticks "Attach the invoice PDF" by keyboard before approving; the email arrives with that invoice', async () => {
    type Listed = { data: Array<{ id: string; customer: string; invoice: string | null; invoice_number: string | null; metadata: Record<string, unknown>; contact_hold: string | null }> };
    const emails = await apiGet<Listed>(page, `/api/companies/${companyId}/actions?category=needs_action&action_type=email&include_alternatives=false&page_size=100`);
    // One the contact rule lets go now (a customer whose reply waits for an answer is held).
    const chosen = emails.data.find((a) => a.invoice && a.invoice_number && a.metadata.attach === undefined && a.contact_hold === null);
    if (!chosen) throw new Error('no proposed email about an invoice without documents');
    emailedCustomer = chosen.customer;
    await page.goto(`${server.url}/companies/${companyId}/actions/${chosen.id}?tab=needs_action`);
    const panel = page.getByTestId('action-panel');
    const options = panel.getByTestId('attach-options');
    // Each option names the file it would attach, as made now.
    await expect.poll(() => options.innerText(), { timeout: 10_000 }).toContain(`Invoice-${chosen.invoice_number}.pdf`);
    expect(await options.innerText()).toMatch(/Attach a statement of account · Statement-.+\.pdf, \d+ KB/);
    // An email about an invoice goes with its PDF unless unticked (issue 41); the box answers the keyboard.
    const invoiceBox = options.getByRole('checkbox', { name: /Attach the invoice PDF/ });
    expect(await invoiceBox.isChecked()).toBe(true);
    await invoiceBox.focus();
    await page.keyboard.press('Space');
    expect(await invoiceBox.isChecked()).toBe(false);
    await page.keyboard.press('Space');
    expect(await invoiceBox.isChecked()).toBe(true);
    expect(await options.getByRole('checkbox', { name: /Attach a statement/ }).isChecked()).toBe(false);
    await lookAndCheck(page, 'attach-action-panel');

    await panel.getByRole('button', { name: 'Approve and send', exact: true }).click();
    await panel.getByTestId('approval-log').getByText('Approve').waitFor();
    const file = `Invoice-${chosen.invoice_number}.pdf`;
    await expect.poll(async () => (await receivedPdfs(smtp)).has(file), { timeout: 20_000 }).toBe(true);
    const pdf = (await receivedPdfs(smtp)).get(file)!;
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    expect(pdfText(pdf)).toContain(chosen.invoice_number!);
    keepPdf('attach-action-invoice', pdf);
    const approved = await apiGet<{ metadata: { attach?: string[] } }>(page, `/api/companies/${companyId}/actions/${chosen.id}`);
    expect(approved.metadata.attach).toEqual(['invoice_pdf']);
    await expect.poll(() => panel.getByTestId('action-status').innerText(), { timeout: 20_000 }).toBe('Done');
    await panel.getByTestId('action-attachments').getByText('Attached: the invoice PDF, made when the email is sent.').waitFor();
  }, 120_000);

  it('Sequences: an email step with "Attach the invoice PDF" shows the file in its previews; the Queue adds a statement to one send', async () => {
    // A customer the engine would email (an address, a connection) that nothing holds and nobody contacted this week, so the step is ready at once.
    const proposals = await apiGet<{ data: Array<{ customer: string; customer_name: string }> }>(page, `/api/companies/${companyId}/actions?category=needs_action&action_type=email&page_size=100`);
    // Nor one a running sequence may email meanwhile (the one-email-a-day cap would then hold this send).
    const enrolled = await apiGet<{ data: Array<{ customer: string }> }>(page, `/api/companies/${companyId}/sequence-enrollments?status=active&page_size=100`);
    const busy = new Set(enrolled.data.map((e) => e.customer));
    let target: { id: string; name: string } | null = null;
    for (const p of proposals.data) {
      if (p.customer === emailedCustomer || busy.has(p.customer)) continue;
      const chase = await apiGet<{ holds: unknown[] }>(page, `/api/companies/${companyId}/customers/${p.customer}/chase`);
      const touches = await apiGet<{ data: Array<{ direction: string; occurred_at: string }> }>(page, `/api/companies/${companyId}/communications?customer_id=${p.customer}&limit=100`);
      const recent = touches.data.some((t) => t.direction === 'outbound' && Date.parse(t.occurred_at) > Date.now() - 5 * 86_400_000);
      // The contact rule lets every open invoice of theirs go (no dispute or promise on one of them).
      const open = await apiGet<{ items: Array<{ id: string }> }>(page, `/api/companies/${companyId}/invoices?customer_id=${p.customer}&status=overdue&limit=100`);
      const asked = open.items.length
        ? await apiCall<{ data: Array<{ held: boolean; blockers: string[]; warnings: unknown[] }> }>(page, 'POST', `/api/companies/${companyId}/invoices/bulk/reminder-preview`, { invoice_ids: open.items.map((i) => i.id) })
        : null;
      const free = asked !== null && asked.body.data.every((d) => !d.held && d.blockers.length === 0 && d.warnings.length === 0);
      if (chase.holds.length === 0 && !recent && free) {
        target = { id: p.customer, name: p.customer_name };
        break;
      }
    }
    if (!target) throw new Error('no customer free to chase');
    await page.goto(`${server.url}/companies/${companyId}/sequences`);
    await page.getByRole('heading', { level: 1, name: 'Sequences' }).waitFor();
    await page.getByRole('button', { name: 'New sequence' }).click();
    const create = page.getByRole('form', { name: 'New sequence' });
    await create.getByLabel('Name', { exact: true }).fill('Copies attached');
    await create.getByRole('button', { name: 'Create draft' }).click();
    await page.getByRole('heading', { level: 1, name: 'Copies attached' }).waitFor();

    await page.getByRole('button', { name: 'Add a step' }).click();
    const editor = page.getByTestId('step-editor');
    await editor.getByLabel('Name').fill('Copy of the invoice');
    await editor.getByLabel('Send time', { exact: false }).fill('00:00');
    await editor.getByLabel('Subject').fill('Invoice {{invoice_number}}: a copy');
    await editor.getByLabel('Body').fill('Hello {{contact_name}}, a copy of {{invoice_number}} is attached.');
    const invoiceBox = editor.getByTestId('attach-options').getByRole('checkbox', { name: /Attach the invoice PDF/ });
    await invoiceBox.focus();
    await page.keyboard.press('Space');
    expect(await invoiceBox.isChecked()).toBe(true);
    const livePreview = editor.getByTestId('live-preview');
    await livePreview.getByLabel('Preview for another customer').fill(target.name);
    await livePreview.getByRole('button', { name: `Preview ${target.name}`, exact: false }).first().click();
    await livePreview.getByRole('heading', { name: `Preview for ${target.name}` }).waitFor();
    await expect.poll(() => livePreview.getByTestId('attached-files').innerText(), { timeout: 10_000 }).toMatch(/^Attached: Invoice-\S+\.pdf \(\d+ KB\)$/);
    await lookAndCheck(page, 'attach-step-editor');
    await editor.getByRole('button', { name: 'Add step' }).click();
    await page.getByText('Step added').waitFor();
    const sequenceId = page.url().split('/sequences/')[1].split(/[/?]/)[0];
    const steps = await apiGet<{ data: Array<{ attach: string[] }> }>(page, `/api/companies/${companyId}/sequences/${sequenceId}/steps`);
    expect(steps.data.map((s) => s.attach)).toEqual([['invoice_pdf']]);

    await page.getByRole('button', { name: 'Activate' }).click();
    await expect.poll(() => page.getByTestId('sequence-status').innerText()).toBe('Active');
    await page.getByTestId('tab-enrollments').click();
    await page.getByLabel('Enroll a customer').fill(target.name);
    await page.getByRole('button', { name: `Enroll ${target.name}`, exact: false }).first().click();
    await page.getByText(/enrolled, starting/).waitFor();

    // The Queue's preview names the file; sending it delivers the invoice the email is about.
    type Row = { id: string; sequence: string; invoice_number: string | null; customer_name: string };
    const ready = await apiGet<{ data: Row[] }>(page, `/api/companies/${companyId}/sequences/queue?category=ready&sequence_id=${sequenceId}`);
    expect(ready.data).toHaveLength(1);
    const preview = await apiGet<{ invoice_number: string; attachments: Array<{ file_name: string }> }>(page, `/api/companies/${companyId}/sequences/queue/${ready.data[0].id}/preview`);
    const file = `Invoice-${preview.invoice_number}.pdf`;
    expect(preview.attachments.map((a) => a.file_name)).toEqual([file]);
    await page.getByRole('link', { name: 'Queue' }).click();
    await page.getByRole('heading', { level: 1, name: 'Queue' }).waitFor();
    await page.getByLabel('Search the queue').fill('Copies attached');
    const row = page.locator(`[data-queue-row="${ready.data[0].id}"]`);
    await row.locator('button.linkish').click();
    const emailPreview = page.getByTestId('email-preview');
    await expect.poll(() => emailPreview.getByTestId('attached-files').innerText(), { timeout: 10_000 }).toMatch(new RegExp(`^Attached: ${file.replace(/[.-]/g, '\\$&')} \\(\\d+ KB\\)$`));
    // This send also carries the statement: ticked by keyboard, previewed with its file, the step unchanged.
    const statementBox = emailPreview.getByTestId('attach-options').getByRole('checkbox', { name: /Attach a statement/ });
    expect(await emailPreview.getByTestId('attach-options').getByRole('checkbox', { name: /Attach the invoice PDF/ }).isChecked()).toBe(true);
    await statementBox.focus();
    await page.keyboard.press('Space');
    await expect.poll(() => emailPreview.getByTestId('attached-files').innerText(), { timeout: 10_000 }).toMatch(/, Statement-\S+\.pdf \(\d+ KB\)$/);
    await lookAndCheck(page, 'attach-queue-preview');
    const send = emailPreview.getByRole('button', { name: 'Send this email' });
    if (await send.isDisabled()) throw new Error(`the Queue held the send: ${await emailPreview.innerText()}`);
    await send.click();
    await expect.poll(() => smtp.messages.filter((m) => m.subject === `Invoice ${preview.invoice_number}: a copy`).length, { timeout: 20_000 }).toBe(1);
    const message = await simpleParser(smtp.messages.find((m) => m.subject === `Invoice ${preview.invoice_number}: a copy`)!.raw);
    expect(message.attachments.map((a) => a.filename)).toEqual([file, expect.stringMatching(/^Statement-.+\.pdf$/)]);
    expect(pdfText(message.attachments[0].content)).toContain(preview.invoice_number);
    expect(pdfText(message.attachments[1].content)).toContain(target.name);
    const after = await apiGet<{ data: Array<{ attach: string[] }> }>(page, `/api/companies/${companyId}/sequences/${sequenceId}/steps`);
    expect(after.data.map((s) => s.attach)).toEqual([['invoice_pdf']]);
  }, 120_000);
});
