import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeFindings, seriousA11yFindings } from '../support/axe';
import { type Browser, ensureRendererBuilt, openBrowser, screenshotPath } from '../support/browser';
import { type DemoServer, startDemoServer } from '../support/server';
import { layoutSettled } from '../support/settle';

/** Where the focus is, in the terms the test asks about. */
function focusInfo(page: Page) {
  return page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    return {
      inGrid: !!el?.closest('[data-testid="invoice-grid"]'),
      inHeader: !!el?.closest('.ag-header'),
      rowId: el?.closest('.ag-row')?.getAttribute('row-id') ?? null,
      inPanel: !!el?.closest('[data-testid="invoice-panel"]'),
      shortcut: el?.getAttribute('data-shortcut') ?? null,
      tag: el?.tagName ?? null,
    };
  });
}

/**
 * Focus went into the panel and stayed there while the desk redrew around it (the grid narrowing,
 * the panel's sections loading): the grid once took it back about 100 ms later. Every focus move
 * after the panel got it is counted, so a theft and a return in between cannot pass unseen.
 */
async function focusStaysInPanel(page: Page) {
  await expect.poll(async () => (await focusInfo(page)).inPanel).toBe(true);
  await page.evaluate(() => {
    const w = window as unknown as { focusLeftPanel?: number; watchingFocus?: boolean };
    w.focusLeftPanel = 0;
    if (w.watchingFocus) return;
    w.watchingFocus = true;
    document.addEventListener('focusin', (e) => {
      if (!(e.target as HTMLElement).closest('[data-testid="invoice-panel"]')) w.focusLeftPanel! += 1;
    });
  });
  await page.getByTestId('panel-activity').waitFor();
  await layoutSettled(page, '[data-testid="invoice-grid"] .ag-row, [data-testid="invoice-panel"] section');
  expect(await page.evaluate(() => (window as unknown as { focusLeftPanel: number }).focusLeftPanel)).toBe(0);
  expect((await focusInfo(page)).inPanel).toBe(true);
}

async function noSeriousFindings(page: Page, what: string) {
  const findings = await seriousA11yFindings(page);
  expect(findings, `${what}:\n${describeFindings(findings)}`).toEqual([]);
}

describe("A collector's day by keyboard only, in Chromium against ardesk serve --demo", () => {
  let server: DemoServer;
  let browser: Browser;
  let page: Page;
  let listUrl: string;

  beforeAll(async () => {
    await ensureRendererBuilt();
    server = await startDemoServer();
    browser = await openBrowser();
    page = browser.page;
    await page.goto(server.url);
    await page.getByLabel('Username').focus();
    await page.keyboard.type('demo');
    await page.keyboard.press('Tab');
    await page.keyboard.type('demo');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/invoices$/);
    // Every overdue invoice of the company: a day's list with rows to work.
    listUrl = `${page.url()}?view=all&ar_owner=all&status=overdue`;
    await page.goto(listUrl);
    await page.locator('[data-testid="invoice-grid"] .ag-row[row-index="2"]').waitFor();
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('wraps column headers between words only, at 1440 and 1024 wide', async () => {
    for (const size of [{ width: 1440, height: 900 }, { width: 1024, height: 700 }]) {
      await page.setViewportSize(size);
      await layoutSettled(page, '[data-testid="invoice-grid"] .ag-header-cell-text');
      // A word split over two lines has two boxes.
      const split = await page.evaluate(() =>
        [...document.querySelectorAll('[data-testid="invoice-grid"] .ag-header-cell-text')].flatMap((el) => {
          // Only the wrapping headers shown (the selection column's is for screen readers; one-line headers end in "…").
          if (el.getBoundingClientRect().width < 16 || getComputedStyle(el).whiteSpace === 'nowrap') return [];
          const node = el.firstChild;
          if (!node || node.nodeType !== Node.TEXT_NODE) return [];
          const text = node.textContent ?? '';
          const words: string[] = [];
          for (const m of text.matchAll(/\S+/g)) {
            const range = document.createRange();
            range.setStart(node, m.index);
            range.setEnd(node, m.index + m[0].length);
            if (range.getClientRects().length > 1) words.push(`${text}: ${m[0]}`);
          }
          return words;
        }),
      );
      expect(split, `${size.width}x${size.height}`).toEqual([]);
    }
    await page.setViewportSize({ width: 1440, height: 900 });
  });

  it('reaches the list with Tab, where headers and cells are one stop and arrows move', async () => {
    await page.keyboard.press('Escape');
    let presses = 0;
    while (!(await focusInfo(page)).inGrid) {
      await page.keyboard.press('Tab');
      presses++;
      expect(presses, 'Tab presses to reach the invoice list').toBeLessThanOrEqual(40);
    }
    // Into the grid on a header: arrows go down to the rows.
    if ((await focusInfo(page)).inHeader) await page.keyboard.press('ArrowDown');
    expect((await focusInfo(page)).rowId).not.toBeNull();
    await page.keyboard.press('ArrowDown');
    const row = (await focusInfo(page)).rowId;
    // One more Tab leaves the grid: cells and headers are not Tab stops.
    await page.keyboard.press('Tab');
    expect((await focusInfo(page)).inGrid).toBe(false);
    // Back with Shift+Tab: on the same row, not the grid's last.
    await page.keyboard.press('Shift+Tab');
    expect((await focusInfo(page)).rowId).toBe(row);
  });

  it('Enter moves focus into the panel and keeps it; Esc goes back to the row; Enter on another row with the panel open moves focus again', async () => {
    const row = (await focusInfo(page)).rowId!;
    await page.keyboard.press('Enter');
    await page.getByTestId('panel-glance').waitFor();
    await focusStaysInPanel(page);
    await page.keyboard.press('Escape');
    await page.getByTestId('invoice-panel').waitFor({ state: 'detached' });
    await expect.poll(async () => (await focusInfo(page)).rowId).toBe(row);

    await page.keyboard.press('Enter');
    await page.getByTestId('panel-glance').waitFor();
    // Back on the list with the panel open (Shift+Tab from the panel's first control), another row opens and takes the focus.
    await focusStaysInPanel(page);
    await page.keyboard.press('Shift+Tab');
    expect((await focusInfo(page)).rowId).toBe(row);
    await page.keyboard.press('ArrowDown');
    const next = (await focusInfo(page)).rowId!;
    expect(next).not.toBe(row);
    await page.keyboard.press('Enter');
    await page.waitForURL(new RegExp(`/invoices/${next}`));
    await focusStaysInPanel(page);
    // The open row is marked, the previous one no longer.
    expect(await page.locator(`[data-testid="invoice-grid"] .ag-row.open-row`).evaluateAll((rows) => rows.map((r) => r.getAttribute('row-id')))).toEqual([next]);
    expect(browser.errors).toEqual([]);
  });

  it('every action of the panel is within 10 Tabs, and one key away', async () => {
    const reached = new Map<string, number>();
    for (let n = 1; n <= 10; n++) {
      await page.keyboard.press('Tab');
      const { shortcut } = await focusInfo(page);
      if (shortcut && !reached.has(shortcut)) reached.set(shortcut, n);
    }
    expect([...reached.keys()].sort(), JSON.stringify(Object.fromEntries(reached))).toEqual(['call', 'follow-up', 'label', 'payment', 'reminder']);
    await page.keyboard.press('Escape');
    await page.getByTestId('invoice-panel').waitFor({ state: 'detached' });
    // Focus goes back to the row once the panel has gone; Enter opens it again from there.
    await expect.poll(() => page.evaluate(() => Boolean(document.activeElement?.closest('[data-testid="invoice-grid"] .ag-row')))).toBe(true);
    await page.keyboard.press('Enter');
    await page.getByTestId('panel-glance').waitFor();
    const number = await page.getByTestId('panel-invoice-number').innerText();

    // P: record a payment, typed and sent with Enter.
    await page.keyboard.press('p');
    const form = page.getByRole('form', { name: 'Record a payment' });
    await form.waitFor();
    await noSeriousFindings(page, 'payment form in the panel');
    await page.keyboard.type('10');
    await page.keyboard.press('Enter');
    await page.locator('.toast-success', { hasText: `Recorded $10.00 on ${number}` }).waitFor();

    // F: the follow-up date, typed as the field shows it, saved with Enter.
    await page.getByTestId('invoice-panel').focus();
    await page.keyboard.press('f');
    expect((await focusInfo(page)).shortcut).toBe('follow-up');
    await page.keyboard.type('12042026');
    await page.keyboard.press('Enter');
    await page.locator('.toast-success', { hasText: 'Follow-up and payment link saved' }).waitFor();

    // L: add a label with the arrow key.
    await page.getByTestId('invoice-panel').focus();
    await page.keyboard.press('l');
    expect((await focusInfo(page)).shortcut).toBe('label');
    await page.keyboard.press('ArrowDown');
    await page.locator('.toast-success', { hasText: /^Added “/ }).waitFor();

    // C and R open their dialogs; Esc closes the dialog, not the panel.
    await page.getByTestId('invoice-panel').focus();
    await page.keyboard.press('c');
    await page.getByRole('dialog').waitFor();
    await noSeriousFindings(page, 'log call dialog');
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await page.getByTestId('invoice-panel').focus();
    await page.keyboard.press('r');
    await page.locator('.modal').waitFor();
    await page.keyboard.press('Escape');
    await page.locator('.modal').waitFor({ state: 'detached' });
    expect(await page.getByTestId('invoice-panel').count()).toBe(1);

    // ?: the list of keys.
    await page.keyboard.press('?');
    const help = page.getByTestId('keyboard-help');
    await help.waitFor();
    for (const text of ['Record a payment', 'Add a label', 'Set the next follow-up date', 'Send a reminder', 'Log a call or note']) await help.getByText(text, { exact: false }).first().waitFor();
    await noSeriousFindings(page, 'keyboard shortcuts');
    for (const theme of ['light', 'dark'] as const) {
      await page.evaluate((t) => (document.documentElement.dataset.theme = t), theme);
      for (const size of [{ width: 1440, height: 900 }, { width: 1024, height: 700 }]) {
        await page.setViewportSize(size);
        await page.screenshot({ path: screenshotPath(`keyboard-help-${size.width}x${size.height}-${theme}.png`) });
      }
    }
    await page.keyboard.press('Escape');
    await help.waitFor({ state: 'detached' });
    for (const theme of ['light', 'dark'] as const) {
      await page.evaluate((t) => (document.documentElement.dataset.theme = t), theme);
      await page.setViewportSize({ width: 1440, height: 900 });
      await noSeriousFindings(page, `panel (${theme})`);
      for (const size of [{ width: 1440, height: 900 }, { width: 1024, height: 700 }]) {
        await page.setViewportSize(size);
        await page.screenshot({ path: screenshotPath(`panel-glance-${size.width}x${size.height}-${theme}.png`) });
      }
    }
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.evaluate(() => (document.documentElement.dataset.theme = 'light'));
    await page.keyboard.press('Escape');
    await page.getByTestId('invoice-panel').waitFor({ state: 'detached' });
    expect((await focusInfo(page)).inGrid).toBe(true);
    expect(browser.errors).toEqual([]);
  }, 240_000);
});
