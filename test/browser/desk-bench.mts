/**
 * Benchmark of the invoice desk in a real browser at scale (issue 4's performance figures; a
 * benchmark, never a timed test): `npx tsx test/browser/desk-bench.mts [--invoices N]
 * [--customers N] [--db FILE] [--runs N]`. It seeds a database with `ardesk seed --demo` (or reuses
 * --db), starts `ardesk serve` on it, opens the desk in Debian's Chromium and reports, over
 * several runs, the time from navigation to the first rows on screen, and from a filter click to
 * the repainted rows; then the time to the first data of every other page (Customers, Actions,
 * Queue, Sequences, Analytics, Insights, Settings). Targets at 1,000,000 invoices: first rows (and
 * each page's first data) within 1 s, a filter within 300 ms.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ensureRendererBuilt, openBrowser } from '../support/browser';
import { BIN, startServe } from '../support/cli';

const { values } = parseArgs({
  options: { invoices: { type: 'string', default: '1000000' }, customers: { type: 'string', default: '50000' }, db: { type: 'string' }, runs: { type: 'string', default: '7' } },
});
const runs = Math.max(1, Number(values.runs));

function stats(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
  return { median: at(0.5), p95: at(0.95), max: sorted[sorted.length - 1] };
}

const dir = mkdtempSync(join(tmpdir(), 'ardesk-desk-bench-'));
const db = values.db ?? join(dir, 'bench.sqlite');
try {
  if (!existsSync(db)) {
    const started = Date.now();
    console.log(`seeding ${values.invoices} invoices over ${values.customers} customers…`);
    execFileSync(process.execPath, [BIN, 'seed', '--db', db, '--demo', '--invoices', values.invoices!, '--customers', values.customers!], { stdio: 'inherit' });
    console.log(`seeded in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  await ensureRendererBuilt();
  const server = await startServe(['--port', '0', '--db', db]);
  const browser = await openBrowser();
  const { page } = browser;
  try {
    await page.goto(server.url);
    await page.getByLabel('Username').fill('demo');
    await page.getByLabel('Password').fill('demo');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('[data-testid="invoice-grid"] .ag-row[row-index="0"] .ag-cell[col-id="invoice_number"]').waitFor({ timeout: 60_000 });
    const deskPath = page.url().split('?')[0];
    // Every invoice of the company: the desk opens on My work, which the status filters would empty.
    const deskUrl = `${deskPath}?view=all&ar_owner=all`;
    const count = await page.locator('.grid-footer').innerText();
    console.log(`desk: ${count}`);

    const firstRows: number[] = [];
    for (let i = 0; i < runs; i++) {
      const t0 = Date.now();
      await page.goto(deskUrl);
      await page.waitForFunction(() => document.querySelector('[data-testid="invoice-grid"] .ag-row[row-index="0"] .ag-cell[col-id="invoice_number"]')?.textContent?.trim(), undefined, {
        polling: 'raf',
        timeout: 60_000,
      });
      firstRows.push(Date.now() - t0);
    }

    const statuses = ['past_due_31_60', 'current', 'past_due_90p', 'closed_paid'];
    const filterRepaint: number[] = [];
    for (let i = 0; i < runs; i++) {
      for (const status of statuses) {
        const t0 = Date.now();
        await page.locator(`.status-chip[data-status="${status}"]`).click();
        await page.waitForFunction(
          (s) => {
            const badges = [...document.querySelectorAll('[data-testid="invoice-grid"] .ag-row .ag-cell[col-id="status"] [data-status]')];
            return badges.length > 0 && badges.every((b) => b.getAttribute('data-status') === s);
          },
          status,
          { polling: 'raf', timeout: 60_000 },
        );
        filterRepaint.push(Date.now() - t0);
        await page.locator(`.status-chip[data-status="${status}"]`).click();
      }
    }

    // The other pages: from navigation to the first row of each page's list (or its "nothing here"
    // sentence), the whole page load including sign-in state and the frame.
    const companyBase = deskPath.replace(/\/invoices$/, '');
    const pages = [
      { name: 'customers', ready: '[data-testid="customer-list"] tbody tr' },
      { name: 'actions', ready: '[data-testid="actions-list"] tbody tr, .outreach-main > p.muted' },
      { name: 'queue', ready: '.outreach-main .item-list tbody tr, .outreach-main > p.muted' },
      { name: 'sequences', ready: '[data-testid="sequences-list"] tbody tr, .outreach-main > p.muted' },
      { name: 'analytics', ready: '[data-testid="aging-total"]' },
      { name: 'insights', ready: '[data-testid="insight-card"]' },
      { name: 'settings', ready: '[data-testid="email-connections"] tbody tr' },
    ];
    // A customer page (the largest open balance): its header, then its communications timeline.
    await page.goto(`${companyBase}/customers`);
    const customerHref = await page.locator('[data-testid="customer-list"] tbody tr a').first().getAttribute('href');
    const targets: Array<{ name: string; path: string; ready: string }> = [
      ...pages.map((p) => ({ ...p, path: `${companyBase}/${p.name}` })),
      { name: 'customer page history', path: new URL(customerHref!, page.url()).toString(), ready: '[data-testid="timeline-entry"], [aria-labelledby="customer-communications"] > p.muted' },
    ];
    const pageFirstData = new Map<string, number[]>();
    for (const target of targets) {
      const samples: number[] = [];
      for (let i = 0; i < runs; i++) {
        const t0 = Date.now();
        // The clock stops at the first data, not at the load event (a slow page must not end the run).
        await page.goto(target.path, { waitUntil: 'commit', timeout: 60_000 });
        await page.waitForFunction((selector) => document.querySelector(selector)?.textContent?.trim(), target.ready, { polling: 'raf', timeout: 60_000 });
        samples.push(Date.now() - t0);
      }
      pageFirstData.set(target.name, samples);
    }

    const show = (name: string, samples: number[], target: number) => {
      const s = stats(samples);
      console.log(`${name.padEnd(36)} median ${String(s.median).padStart(5)} ms   p95 ${String(s.p95).padStart(5)} ms   max ${String(s.max).padStart(5)} ms   target ${target} ms   ${s.median <= target ? 'ok' : 'MISSED'}`);
    };
    show('first rows after opening the desk', firstRows, 1000);
    show('repaint after a status filter', filterRepaint, 300);
    for (const [name, samples] of pageFirstData) show(`first data on ${name}`, samples, 1000);
    if (browser.offHost.length) console.log(`requests off 127.0.0.1: ${browser.offHost.join(', ')}`);
  } finally {
    await browser.close();
    await server.stop();
  }
} finally {
  if (!values.db) rmSync(dir, { recursive: true, force: true });
}
