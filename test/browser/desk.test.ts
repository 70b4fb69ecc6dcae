import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall, apiGet, type Browser, ensureRendererBuilt, openBrowser, screenshotPath, sendThrough } from '../support/browser';
import { type DemoServer, startDemoServer } from '../support/server';
import { type SmtpServer, startSmtp } from '../support/smtp';

interface GridRow {
  index: number;
  id: string | null;
  number: string;
  customer: string;
  balance: number;
  status: string | null;
  labels: string[];
}

/** The rows the grid shows, in display order (pinned and scrolling parts of each row joined). */
async function gridRows(page: Page): Promise<GridRow[]> {
  return page.evaluate(() => {
    const money = (text: string) => Number(text.replace(/[^0-9.-]/g, ''));
    const rows = new Map<number, Partial<GridRow>>();
    for (const el of document.querySelectorAll<HTMLElement>('[data-testid="invoice-grid"] .ag-row[row-index]')) {
      const index = Number(el.getAttribute('row-index'));
      const row = rows.get(index) ?? { index, labels: [] };
      const cell = (col: string) => el.querySelector<HTMLElement>(`.ag-cell[col-id="${col}"]`);
      if (el.getAttribute('row-id')) row.id = el.getAttribute('row-id');
      if (cell('invoice_number')) row.number = cell('invoice_number')!.innerText.trim();
      if (cell('customer_name')) row.customer = cell('customer_name')!.innerText.trim();
      if (cell('balance')) row.balance = money(cell('balance')!.innerText);
      if (cell('status')) row.status = cell('status')!.querySelector('[data-status]')?.getAttribute('data-status') ?? null;
      if (cell('labels')) row.labels = [...cell('labels')!.querySelectorAll('[data-label]')].map((c) => c.getAttribute('data-label')!);
      rows.set(index, row);
    }
    return [...rows.values()].filter((r) => r.number).sort((a, b) => a.index! - b.index!) as GridRow[];
  });
}

/** Waits until the grid's loaded rows satisfy `check` (the grid loads blocks asynchronously). */
async function rowsWhere(page: Page, check: (rows: GridRow[]) => boolean, what: string): Promise<GridRow[]> {
  let rows: GridRow[] = [];
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    rows = await gridRows(page);
    if (rows.length > 0 && check(rows)) return rows;
    await page.waitForTimeout(100);
  }
  throw new Error(`grid never showed ${what}; last rows: ${JSON.stringify(rows.slice(0, 5))}`);
}

/** The desk's query for every invoice of the whole company (the default is My work, mine). */
const ALL = '?view=all&ar_owner=all';

async function waitForUrl(page: Page, check: (url: URL) => boolean): Promise<URL> {
  await page.waitForURL((url) => check(url), { timeout: 10_000 });
  return new URL(page.url());
}

describe('the invoice desk in Chromium against ardesk serve --demo', () => {
  let server: DemoServer;
  let browser: Browser;
  let page: Page;
  let smtp: SmtpServer;

  beforeAll(async () => {
    await ensureRendererBuilt();
    server = await startDemoServer();
    smtp = await startSmtp({ auth: { user: 'ar-test', pass: 'test-secret' } });
    browser = await openBrowser();
    page = browser.page;
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await smtp?.close();
  });

  it('signs in and shows invoice rows, the user and the connection state', async () => {
    await page.goto(server.url);
    await page.getByLabel('Username').fill('demo');
    await page.getByLabel('Password').fill('demo');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const rows = await rowsWhere(page, (r) => r.length >= 1, 'the rows of My work');
    expect(rows[0].number).toMatch(/\S/);
    expect(await page.getByTestId('signed-in-user').innerText()).not.toBe('');
    expect(await page.getByTestId('connection').innerText()).toBe('Online');
    expect(page.url()).toMatch(/\/companies\/[0-9a-f-]{36}\/invoices$/);
    await page.getByTestId('kpi-open').filter({ hasText: '$' }).waitFor();
    // From My work (the default) to every invoice of the whole company, one click each.
    await page.getByRole('button', { name: 'All invoices' }).click();
    await page.getByRole('button', { name: 'Everyone' }).click();
    await waitForUrl(page, (u) => u.search === ALL);
    await rowsWhere(page, (r) => r.length >= 10, 'ten rows of every invoice');
    await page.screenshot({ path: screenshotPath('desk-grid.png') });
  });

  it('filters by a status chip, and every row has that status', async () => {
    const chip = page.locator('.status-chip[data-status="past_due_1_30"]');
    const expected = Number((await chip.locator('.facet').innerText()).replace(/\D/g, ''));
    expect(expected).toBeGreaterThan(0);
    await chip.click();
    await waitForUrl(page, (u) => u.searchParams.get('status') === 'past_due_1_30');
    const rows = await rowsWhere(page, (r) => r.length === expected && r.every((row) => row.status === 'past_due_1_30'), `${expected} past_due_1_30 rows`);
    expect(rows).toHaveLength(expected);
    expect(await chip.getAttribute('aria-pressed')).toBe('true');
  });

  it('sorts by balance from the header, largest first then smallest first', async () => {
    await page.locator('.status-chip', { hasText: 'All' }).click();
    await page.locator('.ag-header-cell[col-id="balance"]').click();
    await waitForUrl(page, (u) => u.searchParams.get('sort') === 'balance' && !u.searchParams.has('status'));
    const desc = await rowsWhere(page, (r) => r.length >= 10 && r.every((row, i) => i === 0 || r[i - 1].balance >= row.balance), 'balances in descending order');
    expect(desc[0].balance).toBeGreaterThan(desc[desc.length - 1].balance);
    await page.locator('.ag-header-cell[col-id="balance"]').click();
    await waitForUrl(page, (u) => u.searchParams.get('order') === 'asc');
    await rowsWhere(page, (r) => r.length >= 10 && r.every((row, i) => i === 0 || r[i - 1].balance <= row.balance) && r[0].balance < desc[0].balance, 'balances in ascending order');
    // The detail panel narrows the grid and gives it back: the sort stays, and no rows are fetched again.
    const lists: string[] = [];
    const onRequest = (r: { url(): string }) => {
      if (/\/invoices\?/.test(r.url())) lists.push(r.url());
    };
    page.on('request', onRequest);
    await page.locator('[data-testid="invoice-grid"] .ag-row[row-index="0"] .ag-cell[col-id="due_date"]').click();
    await page.getByTestId('panel-invoice-number').waitFor();
    await page.keyboard.press('Escape');
    await page.getByTestId('invoice-panel').waitFor({ state: 'detached' });
    await page.waitForTimeout(300);
    page.off('request', onRequest);
    expect(await page.locator('.ag-header-cell[col-id="balance"]').getAttribute('aria-sort')).toBe('ascending');
    expect(lists).toEqual([]);
  });

  it('searches a customer by part of its name (debounced)', async () => {
    await expect.poll(() => page.getByTestId('grid-footer').innerText()).toMatch(/^[\d,]+ invoices?$/);
    const everyInvoice = await page.getByTestId('grid-footer').innerText();
    const name = (await gridRows(page))[0].customer;
    const part = name.split(/\s+/)[0];
    await page.getByLabel('Search invoices').fill(part.toLowerCase());
    await waitForUrl(page, (u) => u.searchParams.get('search') === part.toLowerCase());
    const rows = await rowsWhere(page, (r) => r.every((row) => row.customer.toLowerCase().includes(part.toLowerCase()) || row.number.toLowerCase().includes(part.toLowerCase())), `rows matching ${part}`);
    expect(rows.some((r) => r.customer === name)).toBe(true);
    await page.getByLabel('Search invoices').fill('');
    await waitForUrl(page, (u) => !u.searchParams.has('search'));
    // The grid reloads after the URL changes: the next test starts from every invoice, not the found ones.
    await expect.poll(() => page.getByTestId('grid-footer').innerText()).toBe(everyInvoice);
  });

  it('focuses search with /, moves with the arrow keys and opens a row with Enter; Esc closes the panel', async () => {
    await page.locator('body').click({ position: { x: 5, y: 400 } });
    await page.keyboard.press('/');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Search invoices');
    await page.keyboard.press('Escape');
    await rowsWhere(page, (r) => r.length >= 3, 'three rows');
    await page.locator('[data-testid="invoice-grid"] .ag-row[row-index="0"] .ag-cell[col-id="due_date"]').click();
    await page.getByTestId('invoice-panel').waitFor();
    await page.keyboard.press('Escape');
    await page.getByTestId('invoice-panel').waitFor({ state: 'detached' });
    await page.locator('[data-testid="invoice-grid"] .ag-row[row-index="0"] .ag-cell[col-id="due_date"]').focus();
    await page.keyboard.press('ArrowDown');
    // The row the keyboard is on now (the grid may have redrawn its rows since they were read).
    const focused = await page.evaluate(() => {
      const row = document.activeElement?.closest<HTMLElement>('.ag-row');
      return { index: row?.getAttribute('row-index'), id: row?.getAttribute('row-id') };
    });
    expect(focused.index).toBe('1');
    const number = (await gridRows(page)).find((r) => r.id === focused.id)!.number;
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('panel-invoice-number').innerText()).toBe(number);
    await waitForUrl(page, (u) => u.pathname.endsWith(`/invoices/${focused.id}`));
    await page.keyboard.press('Escape');
    await page.getByTestId('invoice-panel').waitFor({ state: 'detached' });
  });

  it('opens the detail panel from a row, with its own URL and every section', async () => {
    const [first] = await rowsWhere(page, (r) => r.length > 0, 'a row');
    await page.locator(`[data-testid="invoice-grid"] .ag-row[row-index="${first.index}"] .ag-cell[col-id="invoice_date"]`).click();
    const url = await waitForUrl(page, (u) => /\/invoices\/[0-9a-f-]{36}$/.test(u.pathname));
    expect(url.pathname.endsWith(`/invoices/${first.id}`)).toBe(true);
    await expect.poll(() => page.getByTestId('panel-invoice-number').innerText()).toBe(first.number);
    for (const section of ['panel-labels', 'panel-payments', 'panel-reminders', 'panel-dunning', 'panel-insights', 'panel-activity']) await page.getByTestId(section).waitFor();
    await page.getByTestId('panel-payments').locator('table, p').first().waitFor();
    await page.screenshot({ path: screenshotPath('desk-detail-panel.png') });
    // The panel's URL opens the same panel on its own.
    await page.goto(page.url());
    await expect.poll(() => page.getByTestId('panel-invoice-number').innerText(), { timeout: 8000 }).toBe(first.number);
    await page.getByRole('button', { name: 'Close detail' }).click();
    await page.getByTestId('invoice-panel').waitFor({ state: 'detached' });
  });

  it("says an invoice's signals in words in its panel", async () => {
    const base = /^(.*\/companies\/[0-9a-f-]{36})\//.exec(new URL(page.url()).pathname)![1];
    const overdue = await apiGet<{ items: Array<{ id?: string; signals?: Array<{ signal: { title?: string } }> }> }>(page, `/api${base}/invoices?status=overdue&limit=50`);
    const flagged = overdue.items.find((i) => i.id && i.signals?.some((s) => s.signal.title));
    expect(flagged, 'an overdue invoice with a signal in the demo').toBeDefined();
    await page.goto(`${page.url().split('/companies/')[0]}${base}/invoices/${flagged!.id}${ALL}`);
    const list = page.getByTestId('panel-insights').locator('.signal-list');
    await expect.poll(() => list.innerText(), { timeout: 8000 }).toContain(flagged!.signals!.find((s) => s.signal.title)!.signal.title!);
    expect(await list.innerText()).not.toMatch(/[{}"]/);
    await page.getByTestId('panel-insights').screenshot({ path: screenshotPath('desk-panel-signals.png') });
    await page.getByRole('button', { name: 'Close detail' }).click();
  });

  it('adds a label to two selected invoices in bulk and shows it on both', async () => {
    await page.locator('.status-chip[data-status="past_due_90p"]').click();
    const rows = await rowsWhere(page, (r) => r.length >= 2 && r.every((row) => row.status === 'past_due_90p'), '90+ rows');
    const labelNames = await page.getByLabel('Label for selected').locator('option').allInnerTexts().catch(() => [] as string[]);
    void labelNames;
    for (const index of [0, 1]) await page.locator(`[data-testid="invoice-grid"] .ag-row[row-index="${index}"] .ag-cell[col-id="ag-Grid-SelectionColumn"] input[type="checkbox"]`).check();
    const bar = page.getByRole('toolbar', { name: 'Bulk actions' });
    await expect.poll(() => bar.locator('strong').innerText()).toBe('2 invoices selected');
    const options = (await bar.getByLabel('Label for selected').locator('option').allInnerTexts()).filter((o) => o !== 'Label…');
    const label = options.find((name) => !rows[0].labels.includes(name) || !rows[1].labels.includes(name));
    expect(label).toBeDefined();
    await bar.getByLabel('Label for selected').selectOption({ label: label! });
    await bar.getByRole('button', { name: 'Add label' }).click();
    await page.locator('.toast-success', { hasText: `Added “${label}” to 2 invoices` }).waitFor();
    const after = await rowsWhere(page, (r) => r[0].labels.includes(label!) && r[1].labels.includes(label!), `the label ${label} on both rows`);
    expect(after.slice(0, 2).map((r) => r.id)).toEqual([rows[0].id, rows[1].id]);
  });

  it('sends reminders for the selection after a confirmation that says how many and to whom', async () => {
    // The demo's connections send through a real SMTP server on loopback.
    const companyId = new URL(page.url()).pathname.split('/')[2];
    await sendThrough(page, companyId, smtp.port);
    // Two invoices nothing holds (a dispute or a promise is never chased, whatever the dialog says).
    const shown = await rowsWhere(page, (r) => r.length >= 2, 'two rows');
    const preview = await apiCall<{ data: Array<{ invoice_id: string; held: boolean; blockers: string[]; warnings: unknown[] }> }>(page, 'POST', `/api/companies/${companyId}/invoices/bulk/reminder-preview`, {
      invoice_ids: shown.slice(0, 50).map((r) => r.id),
    });
    expect(preview.status).toBe(200);
    const free = new Set(preview.body.data.filter((d) => !d.held && d.blockers.length === 0 && d.warnings.length === 0).map((d) => d.invoice_id));
    const rows = shown.filter((r) => free.has(r.id!)).slice(0, 2);
    expect(rows, 'two invoices the demo lets a reminder go out for').toHaveLength(2);
    const bar = page.getByRole('toolbar', { name: 'Bulk actions' });
    if (await bar.count()) {
      await bar.getByRole('button', { name: 'Clear selection' }).click();
      await bar.waitFor({ state: 'detached' });
    }
    for (const row of rows) await page.locator(`[data-testid="invoice-grid"] .ag-row[row-id="${row.id}"] .ag-cell[col-id="ag-Grid-SelectionColumn"] input[type="checkbox"]`).check();
    await expect.poll(() => bar.locator('strong').innerText()).toBe('2 invoices selected');
    await bar.getByRole('button', { name: 'Send reminders…' }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Send payment reminders?' });
    expect(await dialog.innerText()).toContain('2 invoices in all');
    const recipients = dialog.getByTestId('reminder-recipients').locator('li');
    await expect.poll(() => recipients.count()).toBe(new Set([rows[0].customer, rows[1].customer]).size);
    const named = await recipients.allInnerTexts();
    for (const text of named) expect(text).toMatch(/: .+ <.+@.+>$/);
    const addresses = named.map((text) => text.match(/<(.+@.+)>$/)![1].toLowerCase());
    // Nothing holds these two, so nothing is left out.
    expect(await dialog.getByLabel(/^Leave out the \d+ invoices? below/).count()).toBe(0);
    await dialog.getByRole('button', { name: 'Send 2 reminders' }).click();
    await page.locator('.toast-success', { hasText: 'Reminders queued for 2 invoices' }).waitFor();
    await dialog.waitFor({ state: 'detached' });
    await bar.getByRole('button', { name: 'Clear selection' }).click();
    await bar.waitFor({ state: 'detached' });
    // Both emails reach the mail server, each about its invoice and to a recipient the dialog named.
    const mails = await smtp.waitFor(2, 20_000);
    const about = (number: string) => mails.filter((m) => m.subject.includes(number) || m.text.includes(number));
    for (const row of rows.slice(0, 2)) {
      expect(about(row.number), row.number).toHaveLength(1);
      expect(addresses).toContain(about(row.number)[0].to[0].toLowerCase());
    }
    // The server records the outcome once the mail server has answered; then the panel shows it.
    await expect
      .poll(async () => (await apiGet<{ data: Array<{ status: string }> }>(page, `/api/companies/${companyId}/invoices/${rows[0].id}/reminders`)).data.map((r) => r.status))
      .toEqual(['sent']);
    // The invoice's panel lists the reminder as sent, with its recipient.
    await page.locator(`[data-testid="invoice-grid"] .ag-row[row-id="${rows[0].id}"] .ag-cell[col-id="due_date"]`).click();
    await expect.poll(() => page.getByTestId('panel-invoice-number').innerText()).toBe(rows[0].number);
    const reminder = page.getByTestId('panel-reminders').getByTestId('reminder');
    await reminder.first().waitFor();
    expect(await reminder.count()).toBe(1);
    expect(await reminder.innerText()).toMatch(/sent\s+To .+@.+/);
    await page.keyboard.press('Escape');
    await page.getByTestId('invoice-panel').waitFor({ state: 'detached' });
  });

  it('records a payment from the detail panel; the balance changes in the panel and the grid', async () => {
    const [row] = await rowsWhere(page, (r) => r.length > 0 && r[0].balance > 30, 'a row owing more than 30');
    await page.locator(`[data-testid="invoice-grid"] .ag-row[row-index="${row.index}"] .ag-cell[col-id="due_date"]`).click();
    await expect.poll(() => page.getByTestId('panel-invoice-number').innerText()).toBe(row.number);
    const balance = () => page.getByTestId('panel-balance').innerText().then((t) => Number(t.replace(/[^0-9.-]/g, '')));
    expect(await balance()).toBeCloseTo(row.balance, 2);
    await page.getByRole('button', { name: 'Record a payment' }).click();
    const form = page.getByRole('form', { name: 'Record a payment' });
    await form.getByLabel('Amount').fill('25.00');
    await form.getByLabel('Method').selectOption('CHECK');
    await form.getByRole('button', { name: 'Record payment' }).click();
    await page.locator('.toast-success', { hasText: `Recorded $25.00 on ${row.number}` }).waitFor();
    await expect.poll(balance).toBeCloseTo(row.balance - 25, 2);
    await page.getByTestId('panel-payments').locator('td', { hasText: 'CHECK' }).first().waitFor();
    await rowsWhere(page, (r) => r.some((x) => x.id === row.id && Math.abs(x.balance - (row.balance - 25)) < 0.005), 'the new balance in the grid');
    await page.keyboard.press('Escape');
  });

  it('groups by customer: parent rows with totals expand into their invoices', async () => {
    await page.getByLabel('Group by customer').check();
    await waitForUrl(page, (u) => u.searchParams.get('group_by') === 'customer');
    const group = page.locator('[data-testid="grouped-grid"] .ag-row.group-row').first();
    await group.waitFor();
    const count = Number((await group.getByTestId('group-count').innerText()).replace(/\D/g, ''));
    await group.locator('.expander').click();
    await expect.poll(() => page.locator('[data-testid="grouped-grid"] .ag-row.child-row').count()).toBe(count);
    await expect.poll(() => group.locator('.expander').getAttribute('aria-expanded')).toBe('true');
    await group.locator('.expander').click();
    await expect.poll(() => page.locator('[data-testid="grouped-grid"] .ag-row.child-row').count()).toBe(0);
    await expect.poll(() => group.locator('.expander').getAttribute('aria-expanded')).toBe('false');
    await page.getByLabel('Group by customer').uncheck();
    await waitForUrl(page, (u) => !u.searchParams.has('group_by'));
  });

  it('finds the same view after a reload, and a saved view after a restart of the page', async () => {
    await page.locator('.status-chip[data-status="past_due_90p"]').click();
    await page.locator('.status-chip[data-status="past_due_61_90"]').click();
    await waitForUrl(page, (u) => u.searchParams.get('status') === 'past_due_61_90' || u.searchParams.get('status') === 'past_due_61_90,past_due_90p');
    const url = page.url();
    const before = await rowsWhere(page, (r) => r.length > 0 && r.every((x) => x.status === 'past_due_61_90' || x.status === 'past_due_90p'), 'the filtered rows');
    await page.getByRole('button', { name: /Views/ }).click();
    await page.getByLabel('View name').fill('Late and large');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.locator('.toast-success', { hasText: 'Saved view “Late and large”' }).waitFor();

    await page.reload();
    expect(page.url()).toBe(url);
    const after = await rowsWhere(page, (r) => r.length === before.length, 'the same rows');
    expect(after.map((r) => r.number)).toEqual(before.map((r) => r.number));
    for (const status of new URL(url).searchParams.get('status')!.split(',')) {
      expect(await page.locator(`.status-chip[data-status="${status}"]`).getAttribute('aria-pressed')).toBe('true');
    }

    // A fresh page on the bare desk, then the saved view from the server.
    await page.goto(`${server.url}${new URL(url).pathname}${ALL}`);
    await rowsWhere(page, (r) => r.length >= 10, 'the unfiltered desk');
    await page.getByRole('button', { name: /Views/ }).click();
    await page.getByRole('button', { name: 'Late and large', exact: true }).click();
    await waitForUrl(page, (u) => u.search === new URL(url).search);
    await rowsWhere(page, (r) => r.map((x) => x.number).join() === before.map((x) => x.number).join(), 'the saved view rows');
  });

  it('clicking a bar of the aging chart filters the grid by that bucket', async () => {
    await page.goto(`${server.url}${new URL(page.url()).pathname}${ALL}`);
    const chart = page.getByTestId('aging-chart');
    // ECharts draws it as SVG (every bucket's label kept at 1024 px, issue 41).
    await chart.locator('svg').first().waitFor();
    await rowsWhere(page, (r) => r.length >= 10, 'the unfiltered desk');
    const box = (await chart.boundingBox())!;
    // Five bars across the plot; the last one is 91+.
    await page.mouse.click(box.x + box.width * 0.9, box.y + box.height * 0.55);
    const url = await waitForUrl(page, (u) => u.searchParams.has('aging_bucket'));
    expect(url.searchParams.get('aging_bucket')).toBe('91_over');
    await rowsWhere(page, (r) => r.every((x) => x.status === 'past_due_90p'), 'only 91+ rows');
  });

  it('says what failed and offers a retry when the server does not answer, never a blank screen', async () => {
    const path = new URL(page.url()).pathname;
    // The company's API stops answering: every request of the desk, in whatever order the page makes them.
    await page.route('**/api/companies/**', (route) => route.abort('connectionrefused'));
    await page.goto(`${server.url}${path}${ALL}&status=current`);
    const box = page.locator('.grid-area .error-box');
    await box.waitFor();
    expect(await box.innerText()).toContain('Could not load invoices.');
    expect(await box.innerText()).toContain('The local ardesk server is not answering.');
    await expect.poll(() => page.getByTestId('connection').innerText()).toBe('Server unreachable');
    await page.unroute('**/api/companies/**');
    await box.getByRole('button', { name: 'Retry' }).click();
    await rowsWhere(page, (r) => r.length > 0 && r.every((x) => x.status === 'current'), 'rows after the retry');
    await box.waitFor({ state: 'detached' });
    await expect.poll(() => page.getByTestId('connection').innerText()).toBe('Online');
    // The failed loads above were provoked; they are not errors of the app.
    browser.errors.splice(0, browser.errors.length, ...browser.errors.filter((e) => !e.includes('ERR_CONNECTION_REFUSED')));
  });

  it("opens a customer's page from the customer link of a row: its name and its invoices", async () => {
    await page.goto(`${server.url}${new URL(page.url()).pathname}${ALL}`);
    const [first] = await rowsWhere(page, (r) => r.length > 0, 'a row');
    const link = page.locator(`[data-testid="invoice-grid"] .ag-row[row-index="${first.index}"] .ag-cell[col-id="customer_name"] a`);
    const href = (await link.getAttribute('href'))!;
    expect(href).toMatch(/\/customers\/[0-9a-f-]{36}$/);
    await link.click();
    await waitForUrl(page, (u) => u.pathname === href);
    await expect.poll(() => page.getByTestId('customer-name').innerText()).toBe(first.customer);
    await rowsWhere(page, (r) => r.some((x) => x.number === first.number), "the customer's invoices");
    await page.goBack();
    await waitForUrl(page, (u) => !u.pathname.includes('/customers/'));
  });

  it('says when the saved views cannot be loaded, and loads them on retry', async () => {
    const path = new URL(page.url()).pathname;
    await page.route('**/api/companies/*/saved-views', (route) => route.abort('connectionrefused'));
    await page.goto(`${server.url}${path}${ALL}`);
    await rowsWhere(page, (r) => r.length >= 10, 'the unfiltered desk');
    await page.getByRole('button', { name: /Views/ }).click();
    const box = page.getByRole('dialog', { name: 'Saved views' }).locator('.error-box');
    await box.waitFor();
    expect(await box.innerText()).toContain('Could not load the saved views.');
    await page.unroute('**/api/companies/*/saved-views');
    await box.getByRole('button', { name: 'Retry' }).click();
    await page.getByRole('button', { name: 'Late and large', exact: true }).waitFor();
    await box.waitFor({ state: 'detached' });
    browser.errors.splice(0, browser.errors.length, ...browser.errors.filter((e) => !e.includes('ERR_CONNECTION_REFUSED')));
  });

  it('says why the workspace could not be opened, and opens it on retry', async () => {
    const path = new URL(page.url()).pathname;
    await page.route('**/api/v1/setup/', (route) => route.abort('connectionrefused'));
    await page.goto(`${server.url}${path}${ALL}`);
    const box = page.locator('.auth-card .error-box');
    await box.waitFor();
    expect(await box.innerText()).toContain('Could not load the workspace.');
    expect(await box.innerText()).toContain('The local ardesk server is not answering.');
    await page.unroute('**/api/v1/setup/');
    await box.getByRole('button', { name: 'Retry' }).click();
    await rowsWhere(page, (r) => r.length >= 10, 'the desk after the retry');
    browser.errors.splice(0, browser.errors.length, ...browser.errors.filter((e) => !e.includes('ERR_CONNECTION_REFUSED')));
  });

  it('sent nothing anywhere but 127.0.0.1 and logged no errors', () => {
    expect(browser.offHost).toEqual([]);
    expect(browser.errors).toEqual([]);
  });
});
