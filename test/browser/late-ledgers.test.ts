import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertCompany } from '../../core/companies/companies';
import { runCommand, systemActor } from '../../core/engine';
import { openEngine } from '../../core/runtime/engine';
import { DEFAULT_FILTERS, toSearch } from '../../renderer/src/desk/filters';
import { formatDate } from '../../renderer/src/desk/format';
import { lookAndCheck } from '../support/axe';
import { apiGet, type Browser, ensureRendererBuilt, openBrowser, screenshotPath, signIn } from '../support/browser';
import { BIN, type ServerProcess, startServe } from '../support/cli';
import { ibmCutCsv } from '../support/import-fixtures';
import { type DemoServer, startDemoServer } from '../support/server';

type Prediction = { predicted_date: string | null; basis: string; reason?: string; collectible_90d?: number };
type InvoiceRow = { id: string; invoice_number: string; predicted_pay_date: string | null };

/** The active pay-date prediction of each invoice, through the API the page uses. */
async function predictionsOf(page: Page, companyId: string, invoices: InvoiceRow[]): Promise<Map<string, Prediction>> {
  const out = new Map<string, Prediction>();
  for (const inv of invoices) {
    const res = await apiGet<{ results: Array<{ payload_json: Prediction }> }>(page, `/api/intelligence/insights?company_id=${companyId}&invoice_id=${inv.id}&insight_type=invoice_pay_date_prediction`);
    out.set(inv.id, res.results[0]?.payload_json);
  }
  return out;
}

/** The desk's grid cells: invoice number and "Expected payment", for the rows loaded. */
async function expectedCells(page: Page): Promise<Map<string, string>> {
  return page.evaluate(() => {
    const out = new Map<string, string>();
    const byIndex = new Map<string, { number?: string; expected?: string }>();
    for (const el of document.querySelectorAll<HTMLElement>('[data-testid="invoice-grid"] .ag-row[row-index]')) {
      const i = el.getAttribute('row-index')!;
      const row = byIndex.get(i) ?? {};
      const number = el.querySelector<HTMLElement>('.ag-cell[col-id="invoice_number"]');
      const expected = el.querySelector<HTMLElement>('.ag-cell[col-id="predicted_pay_date"]');
      if (number) row.number = number.innerText.trim();
      if (expected) row.expected = expected.innerText.trim();
      byIndex.set(i, row);
    }
    for (const r of byIndex.values()) if (r.number) out.set(r.number, r.expected ?? '');
    return Object.fromEntries(out);
  }).then((o) => new Map(Object.entries(o)));
}

const today = () => new Date().toISOString().slice(0, 10);

/** The figure under a label in the Collection metrics, e.g. "DSO" → "4,827.0 days". */
async function metric(page: Page, label: string): Promise<number> {
  const text = await page.getByTestId('metrics').locator('.figure', { has: page.locator('.label', { hasText: new RegExp(`^${label}$`) }) }).locator('.value').innerText();
  return Number(text.replace(/[^\d.]/g, ''));
}

describe('invoices 90+ days past due on the demo are not "expected today"', () => {
  let server: DemoServer;
  let browser: Browser;

  beforeAll(async () => {
    await ensureRendererBuilt();
    server = await startDemoServer();
    browser = await openBrowser();
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('the API and the desk give each a later date, or none with the reason, unless a promise says today', async () => {
    const page = browser.page;
    const companyId = await signIn(page, server.url, 'demo', 'demo');
    const list = await apiGet<{ items: InvoiceRow[] }>(page, `/api/companies/${companyId}/invoices?aging_bucket=91_over&limit=100`);
    const late = list.items.filter((i) => 'invoice_number' in i);
    expect(late.length, 'the demo has invoices 90+ days past due').toBeGreaterThan(0);
    const predictions = await predictionsOf(page, companyId, late);
    const now = today();
    for (const inv of late) {
      const p = predictions.get(inv.id)!;
      expect(p, inv.invoice_number).toBeDefined();
      if (p.basis === 'promise') continue;
      expect(p.predicted_date === null || p.predicted_date > now, `${inv.invoice_number}: ${p.predicted_date}`).toBe(true);
      if (p.predicted_date === null) expect(p.reason, inv.invoice_number).toMatch(/no reliable date/);
      expect(inv.predicted_pay_date).toBe(p.predicted_date);
    }
    // The desk, every owner's 90+ invoices: no "Expected payment" cell says today except a promise's.
    const search = toSearch({ ...DEFAULT_FILTERS, work: false, ar_owner: '', aging_bucket: ['91_over'] });
    await page.goto(`${server.url}/companies/${companyId}/invoices${search}`);
    await expect.poll(async () => (await expectedCells(page)).size, { timeout: 15_000 }).toBe(Math.min(late.length, 50));
    const cells = await expectedCells(page);
    const promised = new Set(late.filter((i) => predictions.get(i.id)!.basis === 'promise').map((i) => i.invoice_number));
    for (const [number, expected] of cells) if (!promised.has(number)) expect(expected, number).not.toBe(formatDate(now));
    await page.screenshot({ path: screenshotPath('late-90-plus-desk.png') });
    // One without a date says why in its panel.
    const undated = late.find((i) => predictions.get(i.id)!.predicted_date === null);
    if (undated) {
      await page.goto(`${server.url}/companies/${companyId}/invoices/${undated.id}${search}`);
      await expect.poll(() => page.getByText('No reliable pay date').count(), { timeout: 15_000 }).toBeGreaterThan(0);
      await expect.poll(() => page.getByText(/paid within 90 days \d+% of the time; no reliable date/).count()).toBeGreaterThan(0);
      await page.screenshot({ path: screenshotPath('late-90-plus-panel.png') });
    }
  }, 180_000);

  it("the Customers list's risk says why: Tri-County, thousands 90+ days late, is high risk, not \"None flagged\"", async () => {
    const page = browser.page;
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Customers', exact: true }).click();
    const row = page.getByRole('row', { name: /Tri-County Building Supply/ });
    await expect.poll(() => row.count(), { timeout: 15_000 }).toBeGreaterThan(0);
    const risk = await row.locator('td').last().innerText();
    expect(risk).toMatch(/^High risk \$[\d,]+\.\d\d past due, the oldest \d+ days late/);
    expect(await page.getByText('None flagged').count()).toBe(0);
    await lookAndCheck(page, 'customers-risk');
  }, 120_000);
});

describe('a stale ledger: the IBM file cut at 2013-09-30', () => {
  let dir: string;
  let serve: ServerProcess;
  let browser: Browser;
  const CUT = '2013-09-30';

  beforeAll(async () => {
    await ensureRendererBuilt();
    dir = mkdtempSync(join(tmpdir(), 'ardesk-stale-'));
    const db = join(dir, 'ardesk.sqlite');
    const engine = await openEngine({ file: db });
    await runCommand(engine, 'test_company', { actor: systemActor, companyId: null }, (tx) => insertCompany(tx, 'IBM cut'));
    await engine.close();
    writeFileSync(join(dir, 'cut.csv'), ibmCutCsv(CUT));
    const run = (...args: string[]) => spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 120_000 });
    expect(run('import', '--db', db, '--company', 'IBM cut', '--file', join(dir, 'cut.csv'), '--preset', 'ibm-ar').status).toBe(0);
    expect(run('user', 'add', '--db', db, '--username', 'cut', '--password', 'cut-password-1', '--company', 'IBM cut', '--role', 'collector').status).toBe(0);
    expect(run('insights', 'refresh', '--db', db, '--company', 'IBM cut').status).toBe(0);
    serve = await startServe(['--port', '0', '--db', db]);
    browser = await openBrowser();
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('says the newest invoice is from Sep 2013 on the desk, Analytics and Insights, and dates no years-old invoice today', async () => {
    const page = browser.page;
    const companyId = await signIn(page, serve.url, 'cut', 'cut-password-1');
    const banner = page.getByTestId('stale-ledger');
    await expect.poll(() => banner.count(), { timeout: 15_000 }).toBe(1);
    expect(await banner.innerText()).toMatch(/^The newest invoice in this ledger is from Sep 2013, the newest payment from Sep \d+, 2013\./);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Analytics', exact: true }).click();
    await expect.poll(() => page.getByTestId('stale-ledger').count(), { timeout: 15_000 }).toBe(1);
    await page.screenshot({ path: screenshotPath('stale-ledger-analytics.png') });
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Insights', exact: true }).click();
    await expect.poll(() => page.getByTestId('stale-ledger').count(), { timeout: 15_000 }).toBe(1);
    // The history's lessons are in the feed; nothing-to-report insights are not.
    await expect.poll(() => page.getByText('What the payment history says').count(), { timeout: 15_000 }).toBeGreaterThan(0);
    await page.screenshot({ path: screenshotPath('stale-ledger-insights.png') });
    // Every open invoice is years past due: none is "expected today", each says why it has no date.
    const open = (await apiGet<{ items: InvoiceRow[] }>(page, `/api/companies/${companyId}/invoices?status=past_due_90p&limit=200`)).items;
    expect(open.length).toBeGreaterThan(50);
    const predictions = await predictionsOf(page, companyId, open.slice(0, 20));
    for (const p of predictions.values()) {
      expect(p.predicted_date).toBeNull();
      expect(p.reason).toMatch(/^(Invoices this late were paid within 90 days 0% of the time|No invoice of this company was ever paid this late); no reliable date$/);
      expect(p.collectible_90d).toBe(0);
    }
  }, 180_000);

  it('works as of the ledger\'s last activity from the banner: DSO and aging read as of 2013 until cleared in Settings', async () => {
    const page = browser.page;
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Analytics', exact: true }).click();
    const banner = page.getByTestId('stale-ledger');
    const offer = banner.getByRole('button', { name: 'Work as of Sep 30, 2013' });
    await expect.poll(() => offer.count(), { timeout: 15_000 }).toBe(1);
    await expect.poll(() => page.getByTestId('metrics').count(), { timeout: 30_000 }).toBe(1);
    // As of today the 2013 invoices are thousands of days late.
    expect(await metric(page, 'DSO')).toBeGreaterThan(1000);
    expect(await page.getByRole('heading', { name: `Aging on ${formatDate(today())}` }).count()).toBe(1);
    await lookAndCheck(page, 'stale-ledger-offer');

    await offer.click();
    await expect.poll(() => banner.innerText(), { timeout: 15_000 }).toMatch(/^Working as of Sep 30, 2013: the invoice list, analytics, predictions, signals and proposals count from that date/);
    await expect.poll(() => page.getByRole('heading', { name: 'Aging on Sep 30, 2013' }).count(), { timeout: 15_000 }).toBe(1);
    await expect.poll(() => page.getByRole('heading', { name: 'Collection metrics on Sep 30, 2013' }).count(), { timeout: 15_000 }).toBe(1);
    await expect.poll(() => metric(page, 'DSO'), { timeout: 15_000 }).toBeLessThan(120);
    expect(await metric(page, 'Average days delinquent')).toBeLessThan(30);
    // Nothing 90+ days late as of the cut, and the API's own default is that date too.
    const companyId = /\/companies\/([0-9a-f-]{36})\//.exec(page.url())![1];
    const summary = await apiGet<{ as_of: string; buckets: Array<{ key: string; invoice_count: number }> }>(page, `/api/companies/${companyId}/ar-aging/summary`);
    expect(summary.as_of).toBe(CUT);
    expect(summary.buckets.find((b) => b.key === '91_over')?.invoice_count ?? 0).toBe(0);
    // The desk ages from the same date: its list and header find nothing 90+ days late either.
    expect((await apiGet<{ count: number }>(page, `/api/companies/${companyId}/invoices?status=past_due_90p&limit=1`)).count).toBe(0);
    expect((await apiGet<{ as_of: string; aging: Record<string, { invoice_count: number }> }>(page, `/api/companies/${companyId}/invoices/summary`)).aging['91_over'].invoice_count).toBe(0);
    await lookAndCheck(page, 'stale-ledger-as-of');

    // Settings › Company shows it and clears it; the banner offers it again.
    await banner.getByRole('link', { name: 'Change it in Settings' }).click();
    const card = page.getByTestId('working-date');
    await expect.poll(() => card.innerText(), { timeout: 15_000 }).toMatch(/count from Sep 30, 2013, not from today/);
    await lookAndCheck(page, 'settings-working-date');
    await card.getByRole('button', { name: 'Clear: count from today' }).click();
    await expect.poll(() => card.innerText(), { timeout: 15_000 }).toMatch(/count from today\./);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Analytics', exact: true }).click();
    await expect.poll(() => page.getByTestId('stale-ledger').getByRole('button', { name: 'Work as of Sep 30, 2013' }).count(), { timeout: 15_000 }).toBe(1);
    await expect.poll(() => page.getByRole('heading', { name: `Aging on ${formatDate(today())}` }).count(), { timeout: 15_000 }).toBe(1);
  }, 240_000);
});
