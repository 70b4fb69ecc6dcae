/**
 * The Cash page in Chromium against `ardesk serve` on the demo: a cut-off statement dropped on the
 * page and refused, a camt.053 statement chosen through the file input, its credits reviewed with
 * the keyboard (j, a, s): one applied and undone, one split over two invoices, one paid short with
 * a dispute opened; a CSV export mapped in the dialog (the mapping kept: the same file again asks
 * nothing), its overpayment applied and shown among the customer's credits. Screenshots light and
 * dark at 1024x700 and 1440x900, axe clean.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lookAndCheck } from '../support/axe';
import { apiGet, type Browser, ensureRendererBuilt, openBrowser, screenshotPath, signIn } from '../support/browser';
import { type DemoServer, startDemoServer } from '../support/server';
import { confidenceWords, importSummary, typedCents } from '../../renderer/src/cash/words';

interface Invoice {
  id: string;
  invoice_number: string;
  customer: string;
  customer_name: string;
  balance: number;
  currency: string;
}

const cents = (amount: number) => Math.round(amount * 100);
const money = (c: number) => (c / 100).toFixed(2);
const half = (i: Invoice) => Math.floor(cents(i.balance) / 2);

/** A camt.053.001.08 statement of today's credits, as a bank would send it. */
function camt(currency: string, credits: Array<{ ref: string; cents: number; payer: string; text: string }>): Buffer {
  const today = new Date().toISOString().slice(0, 10);
  const entries = credits
    .map(
      (c) => `<Ntry><Amt Ccy="${currency}">${money(c.cents)}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts><BookgDt><Dt>${today}</Dt></BookgDt><AcctSvcrRef>${c.ref}</AcctSvcrRef>
<NtryDtls><TxDtls><RltdPties><Dbtr><Pty><Nm>${c.payer.replace(/&/g, '&amp;')}</Nm></Pty></Dbtr></RltdPties><RmtInf><Ustrd>${c.text}</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>`,
    )
    .join('\n');
  return Buffer.from(`<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt><GrpHdr><MsgId>CASH-TEST</MsgId><CreDtTm>${today}T06:00:00</CreDtTm></GrpHdr>
<Stmt><Id>CASH-TEST-1</Id><Acct><Id><IBAN>DE02120300000000202051</IBAN></Id><Ccy>${currency}</Ccy></Acct>
${entries}
</Stmt></BkToCstmrStmt></Document>`);
}

describe("the Cash page's words", () => {
  it('reads typed amounts to cents exactly, and words a confidence and an import', () => {
    expect(['1,234.50', '99', '0.1', '12.345', 'abc', ''].map(typedCents)).toEqual([123_450, 9900, 10, null, null, null]);
    expect([0.95, 0.6, 0.25].map(confidenceWords)).toEqual(['High (95%)', 'Medium (60%)', 'Low (25%)']);
    const imported = { id: null, dry_run: false, format: 'mt940', account: 'NL69INGB0123456789', currency: 'EUR', period_start: '2014-02-20', period_end: '2014-02-20', entries: 8, credits: 4, debits: 4, applied: 1, suggested: 2, unmatched: 1, duplicates: 3, warnings: [] };
    expect(importSummary(imported)).toBe(
      'mt940 statement of NL69INGB0123456789 (Feb 20, 2014 to Feb 20, 2014): 8 entries, 4 credits and 4 debits. Credits: 1 applied, 2 to review, 1 unmatched, 3 already imported.',
    );
  });
});

describe('the Cash page', () => {
  let server: DemoServer;
  let browser: Browser;
  let page: Page;
  let companyId: string;
  let whole: Invoice;
  let split: [Invoice, Invoice];
  let short: Invoice;
  let over: Invoice;

  const invoice = (id: string) => apiGet<{ balance: number }>(page, `/api/companies/${companyId}/invoices/${id}`);
  const pill = () => page.getByTestId('credit-state');
  const shown = (c: number) => new Intl.NumberFormat('en-US', { style: 'currency', currency: whole.currency }).format(c / 100);
  const openRow = async (tab: string, amountCents: number) => {
    await page.getByTestId(`tab-${tab}`).click();
    await page.getByTestId('credits-list').getByRole('row').filter({ hasText: shown(amountCents) }).click();
    await page.getByTestId('credit-panel').waitFor();
  };

  beforeAll(async () => {
    await ensureRendererBuilt();
    server = await startDemoServer();
    browser = await openBrowser();
    page = browser.page;
    companyId = await signIn(page, server.url);
    const open = await apiGet<{ items: Invoice[] }>(page, `/api/companies/${companyId}/invoices?hide_zero_balance=true&sort=balance&order=desc&limit=200`);
    const invoices = open.items.filter((i) => i.balance >= 100);
    const byCustomer = new Map<string, Invoice[]>();
    for (const i of invoices) byCustomer.set(i.customer, [...(byCustomer.get(i.customer) ?? []), i]);
    const pair = [...byCustomer.values()].find((list) => list.length >= 2)!;
    split = [pair[0], pair[1]];
    const others = invoices.filter((i) => i.customer !== pair[0].customer);
    whole = others[0];
    short = others.find((i) => i.customer !== whole.customer)!;
    over = others.find((i) => i.customer !== whole.customer && i.customer !== short.customer)!;
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  }, 60_000);

  it('imports a dropped statement and says what became of its credits', async () => {
    const file = camt(whole.currency, [
      { ref: 'CASH-1', cents: cents(whole.balance), payer: whole.customer_name, text: `Invoice ${whole.invoice_number}` },
      { ref: 'CASH-2', cents: cents(split[0].balance) + half(split[1]), payer: split[0].customer_name, text: 'Thank you' },
      { ref: 'CASH-3', cents: cents(short.balance) - 2500, payer: short.customer_name, text: short.invoice_number },
    ]);
    await page.goto(`${server.url}/companies/${companyId}/cash`);
    // A cut-off file dropped on the page is refused with the server's words, naming where it ends.
    const cut = await page.evaluateHandle((text) => {
      const dt = new DataTransfer();
      dt.items.add(new File([text], 'cut.xml', { type: 'application/xml' }));
      return dt;
    }, file.subarray(0, file.indexOf('</Ntry>')).toString('utf8'));
    await page.getByTestId('statement-drop').dispatchEvent('drop', { dataTransfer: cut });
    await expect.poll(() => page.getByTestId('import-error').innerText()).toBe('cut.xml: The XML ends inside <Ntry> (Document > BkToCstmrStmt > Stmt > Ntry) on line 5: the file looks cut off');
    // The refused upload is the one failed request the browser reports.
    expect(browser.errors.splice(0)).toEqual(['Failed to load resource: the server responded with a status of 400 (Bad Request)']);
    await page.getByTestId('statement-file').setInputFiles({ name: 'statement.xml', mimeType: 'application/xml', buffer: file });
    // The exact reference with the exact amount is applied at once; a name alone, or a reference with less than the balance, waits for review.
    await expect.poll(() => page.getByTestId('import-result').innerText()).toMatch(/^camt\.053 statement of DE02120300000000202051 .*: 3 entries, 3 credits and 0 debits\. Credits: 1 applied, 2 to review, 0 unmatched\.$/);
    await expect.poll(() => page.getByTestId('tab-suggested').innerText()).toMatch(/^To review\s*2$/);
    expect(browser.errors).toEqual([]);
  });

  it('pays an invoice short and opens a dispute on the rest, from the keyboard (j, s)', async () => {
    await page.getByTestId('tab-suggested').click();
    await page.getByTestId('credits-list').waitFor();
    // j walks the list to the short payment; s opens its split with the suggestion filled in.
    const rows = page.getByTestId('credits-list').locator('tbody tr');
    const target = shown(cents(short.balance) - 2500);
    for (let i = 0; i < (await rows.count()); i++) {
      await page.keyboard.press('j');
      if ((await page.locator('tbody tr.current').innerText()).includes(target)) break;
    }
    await expect.poll(() => page.locator('tbody tr.current').innerText()).toContain(target);
    await page.getByTestId('candidates').waitFor();
    expect(await page.getByTestId('candidate').first().innerText()).toContain(short.invoice_number);
    await lookAndCheck(page, 'cash-review');
    await page.keyboard.press('s');
    await page.getByTestId('short-payment').waitFor();
    expect(await page.getByTestId('short-payment').innerText()).toContain(`${short.invoice_number} keeps $25.00 open`);
    await page.getByLabel('Open a dispute on it').check();
    await page.getByTestId('short-reason').fill('Customer says one item was not delivered');
    await page.getByTestId('split-form').getByRole('button', { name: 'Apply', exact: true }).click();
    await expect.poll(() => pill().innerText()).toBe('Applied');
    expect(cents((await invoice(short.id)).balance)).toBe(2500);
    const disputes = await apiGet<{ data: Array<{ reason?: string; description?: string; status: string }> }>(page, `/api/companies/${companyId}/disputes?invoice_id=${short.id}&status=open`);
    expect(JSON.stringify(disputes.data)).toContain('Customer says one item was not delivered');
  });

  it('splits a credit over two invoices of one customer', async () => {
    const amount = cents(split[0].balance) + half(split[1]);
    await openRow('suggested', amount);
    await page.getByRole('button', { name: 'Split or choose invoices' }).click();
    const form = page.getByTestId('split-form');
    // The payer's name made the customer the suggestion: the form lists their open invoices.
    expect(await form.innerText()).toContain(`Payment of ${split[0].customer_name}.`);
    await form.getByTestId(`split-amount-${split[0].invoice_number}`).fill(money(cents(split[0].balance)));
    await form.getByTestId(`split-amount-${split[1].invoice_number}`).fill(money(half(split[1])));
    for (const input of await form.locator('input.amount-input').all()) {
      const label = await input.getAttribute('aria-label');
      if (!label?.endsWith(split[0].invoice_number) && !label?.endsWith(split[1].invoice_number)) await input.fill('');
    }
    await expect.poll(() => page.getByTestId('split-rest').innerText()).toMatch(/^Applied \$[\d,.]+ of \$[\d,.]+\.$/);
    await lookAndCheck(page, 'cash-split');
    await form.getByRole('button', { name: 'Apply', exact: true }).click();
    await expect.poll(() => pill().innerText()).toBe('Applied');
    expect(cents((await invoice(split[0].id)).balance)).toBe(0);
    expect(cents((await invoice(split[1].id)).balance)).toBe(cents(split[1].balance) - half(split[1]));
  });

  it('undoes an application (the invoice reopens) and applies the top suggestion again with a', async () => {
    const amount = cents(whole.balance);
    await openRow('applied', amount);
    expect(await page.getByTestId('applications').innerText()).toContain(`${shown(amount)} to ${whole.invoice_number} · automatically`);
    expect(cents((await invoice(whole.id)).balance)).toBe(0);
    await lookAndCheck(page, 'cash-applied');
    await page.getByRole('button', { name: 'Undo application' }).click();
    await expect.poll(() => pill().innerText()).toBe('Suggested');
    expect(cents((await invoice(whole.id)).balance)).toBe(amount);
    await page.keyboard.press('a');
    await expect.poll(() => pill().innerText()).toBe('Applied');
    expect(cents((await invoice(whole.id)).balance)).toBe(0);
    expect(browser.errors).toEqual([]);
  });

  it('maps a CSV export in the dialog and keeps the mapping; its overpayment applied shows among the customer page’s credits', async () => {
    const now = new Date();
    const us = `${String(now.getMonth() + 1).padStart(2, '0')}/${String(now.getDate()).padStart(2, '0')}/${now.getFullYear()}`;
    const amount = cents(over.balance) + 1000;
    const csv = Buffer.from(`Date,Details,Payer,Amount,Transaction ID\r\n${us},Invoice ${over.invoice_number},"${over.customer_name.replace(/"/g, '""')}",${money(amount)},CSV-1\r\n`);
    await page.goto(`${server.url}/companies/${companyId}/cash`);
    await page.getByTestId('statement-file').setInputFiles({ name: 'export.csv', mimeType: 'text/csv', buffer: csv });
    const dialog = page.getByTestId('bank-mapping');
    await dialog.waitFor();
    // Guessed from the column names: the person adds the account.
    expect(await Promise.all(['date', 'amount', 'payer', 'bank_reference'].map((f) => page.getByTestId(`mapping-${f}`).inputValue()))).toEqual(['Date', 'Amount', 'Payer', 'Transaction ID']);
    expect(await dialog.getByRole('checkbox', { name: 'Details', exact: true }).isChecked()).toBe(true);
    await page.getByTestId('mapping-account').fill('US-CHECKING-0001');
    await lookAndCheck(page, 'cash-mapping');
    await dialog.getByRole('button', { name: 'Import', exact: true }).click();
    await expect.poll(() => page.getByTestId('import-result').innerText()).toMatch(/^csv statement of US-CHECKING-0001 .*: 1 entries, 1 credits and 0 debits\. Credits: 0 applied, 1 to review, 0 unmatched\.$/);
    expect(await dialog.count()).toBe(0);
    // More than the invoice's balance: a, the top suggestion, pays it and keeps $10.00 on the customer.
    await openRow('suggested', amount);
    await page.keyboard.press('a');
    await expect.poll(() => pill().innerText()).toBe('Applied');
    // The same file again: the kept mapping fits, no dialog, nothing added.
    await page.getByTestId('statement-file').setInputFiles({ name: 'export.csv', mimeType: 'text/csv', buffer: csv });
    await expect.poll(() => page.getByTestId('import-result').innerText()).toMatch(/1 already imported\.$/);
    expect(await dialog.count()).toBe(0);
    await page.goto(`${server.url}/companies/${companyId}/customers/${over.customer}`);
    const credits = page.getByTestId('customer-credits');
    await expect.poll(() => credits.innerText()).toContain(`${shown(1000)} Unapplied payment (ref. CSV-1) from ${over.customer_name}`);
    expect(await page.getByTestId('customer-net-balance').innerText()).toContain('Net balance');
    await lookAndCheck(page, 'customer-credits');
    // The section itself at the small size (the page's own shots show its top).
    await credits.screenshot({ path: screenshotPath('customer-credits-section-1024x700.png') });
    expect(browser.errors).toEqual([]);
  });
});
