import { readFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lookAndCheck } from '../support/axe';
import { apiGet, type Browser, ensureRendererBuilt, openBrowser, screenshotPath, signIn } from '../support/browser';
import { keepPdf, pdfText } from '../support/pdf';
import { type DemoServer, startDemoServer } from '../support/server';

/** A 4x4 blue PNG: signature, IHDR, IDAT, IEND with their CRCs. */
function bluePng(): Buffer {
  const table = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf: Buffer) => {
    let c = 0xffffffff;
    for (const b of buf) c = table[(c ^ b) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc(body), 8 + data.length);
    return out;
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(4, 0);
  ihdr.writeUInt32BE(4, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  const row = Buffer.from([0, ...Array.from({ length: 4 }, () => [29, 78, 216]).flat()]);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(Buffer.concat([row, row, row, row]))), chunk('IEND', Buffer.alloc(0))]);
}

describe('Settings › Company and the PDF buttons in Chromium against ardesk serve --demo', () => {
  let server: DemoServer;
  let browser: Browser;
  let page: Page;
  let base: string;

  beforeAll(async () => {
    await ensureRendererBuilt();
    server = await startDemoServer();
    browser = await openBrowser();
    page = browser.page;
    await signIn(page, server.url);
    base = /^(.*\/companies\/[0-9a-f-]{36})\//.exec(new URL(page.url()).pathname)![1];
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('keeps the company details printed on documents, with a logo', async () => {
    await page.goto(`${server.url}${base}/settings/company`);
    const form = page.getByTestId('document-details-form');
    await form.getByLabel('Legal name').fill('Northwind Receivables Ltd');
    await form.getByLabel('Address').fill('12 Harbour Road\nBristol BS1 4RN');
    await form.getByLabel('Payment instructions').fill('Sort code 20-00-00, account 55779911');
    await form.getByLabel('Dates and amounts').selectOption('en-GB');
    const typedInto = await form.elementHandle();
    await form.getByRole('button', { name: 'Save company details' }).click();
    await expect.poll(() => apiGet<{ legal_name: string; locale: string }>(page, `/api${base}/document-details`)).toMatchObject({ legal_name: 'Northwind Receivables Ltd', locale: 'en-GB' });

    // The saved form is drawn again from the server's answer (a new element): upload into that one.
    await page.waitForFunction((old) => {
      const now = document.querySelector('[data-testid="document-details-form"]');
      return now !== null && now !== old;
    }, typedInto);
    await expect.poll(() => page.getByTestId('document-details-form').getByLabel('Legal name').inputValue()).toBe('Northwind Receivables Ltd');
    await page.getByLabel(/Add a logo/).setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: bluePng() });
    await expect.poll(() => page.locator('.logo-preview').innerText()).toContain('PNG image');
    await page.getByLabel(/Replace the logo/).setInputFiles({ name: 'notes.png', mimeType: 'image/png', buffer: Buffer.from('not an image') });
    await expect.poll(() => page.getByRole('alert').allInnerTexts()).toContain('The logo must be a PNG, JPEG or SVG image');
    await lookAndCheck(page, 'settings-company');
  });

  it('downloads a customer statement and an invoice PDF with the details just saved', async () => {
    const customers = await apiGet<{ data: Array<{ id: string; name: string }> }>(page, `/api${base}/customers?sort=balance&order=desc&limit=1`);
    const customer = customers.data[0];
    await page.goto(`${server.url}${base}/customers/${customer.id}`);
    await page.getByTestId('customer-name').waitFor();
    const [statement] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: `Statement of account of ${customer.name} (PDF)` }).click()]);
    expect(statement.suggestedFilename()).toMatch(/^Statement-.+\.pdf$/);
    const statementPdf = readFileSync((await statement.path())!);
    keepPdf('browser-statement', statementPdf, 1);
    const text = pdfText(statementPdf);
    expect(text).toContain('Statement of account');
    expect(text).toContain('Northwind Receivables Ltd');
    expect(text).toContain(customer.name);
    expect(text).toContain('Sort code 20-00-00, account 55779911');
    await page.locator('.customer-header').screenshot({ path: screenshotPath('customer-statement-buttons.png') });

    const invoices = await apiGet<{ items: Array<{ id: string; invoice_number: string }> }>(page, `/api${base}/invoices?status=overdue&limit=1`);
    const invoice = invoices.items[0];
    await page.goto(`${server.url}${base}/invoices/${invoice.id}?view=all&ar_owner=all`);
    await page.getByTestId('panel-invoice-number').waitFor();
    const [copy] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: `Download PDF of invoice ${invoice.invoice_number}` }).click()]);
    const copyText = pdfText(readFileSync((await copy.path())!));
    expect(copyText).toContain('Copy of invoice');
    expect(copyText).toContain(invoice.invoice_number);
    expect(copyText).toContain('Northwind Receivables Ltd');
  });

  it('offers the invoice PDF and a statement in the reminder preview, each with its file name and size', async () => {
    const invoices = await apiGet<{ items: Array<{ id: string; invoice_number: string; customer_name: string }> }>(page, `/api${base}/invoices?status=overdue&limit=1`);
    const invoice = invoices.items[0];
    await page.goto(`${server.url}${base}/invoices/${invoice.id}?view=all&ar_owner=all`);
    await page.getByTestId('panel-invoice-number').waitFor();
    await page.getByRole('button', { name: 'Send reminder…' }).click();
    const options = page.getByTestId('attach-options');
    await options.waitFor();
    const files = await options.getByTestId('attachment-file').allInnerTexts();
    expect(files).toHaveLength(2);
    expect(files[0]).toMatch(new RegExp(`Invoice-${invoice.invoice_number.replace(/[^\p{L}\p{N}]+/gu, '-')}\\.pdf, \\d+ KB$`, 'u'));
    expect(files[1]).toMatch(/Statement-.+-\d{4}-\d{2}-\d{2}\.pdf, \d+ KB$/);
    const invoicePdf = options.getByRole('checkbox', { name: /Attach the invoice PDF/ });
    expect(await invoicePdf.isChecked()).toBe(false);
    await invoicePdf.focus();
    await page.keyboard.press('Space');
    expect(await invoicePdf.isChecked()).toBe(true);
    await lookAndCheck(page, 'reminder-attachments');
    await page.getByRole('button', { name: 'Cancel' }).click();
    // The preview makes both documents (a demo customer's statement runs to pages) before it answers.
  }, 120_000);
});
