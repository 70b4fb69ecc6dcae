/**
 * Issue 36 in Chromium against ardesk serve --demo: the customer's timeline shows how each reply
 * was read and the sentence it came from, and one click corrects it; the demo user, owner of Acme
 * and collector of Bluebird, sees the email and document settings as an owner in one and
 * read-only in the other.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lookAndCheck } from '../support/axe';
import { apiCall, apiGet, type Browser, ensureRendererBuilt, openBrowser, signIn } from '../support/browser';
import { type DemoServer, startDemoServer } from '../support/server';

interface Company {
  id: string;
  name: string;
  role: 'owner' | 'collector' | 'viewer';
}

interface Reply {
  id: string;
  customer: string;
  invoice: string | null;
  customer_name: string;
  reading: { kind: string; sentence: string | null; automatic: boolean } | null;
}

describe('reply readings and owner-only settings in the app', () => {
  let server: DemoServer;
  let browser: Browser;
  let page: Page;
  let companies: Company[];

  beforeAll(async () => {
    await ensureRendererBuilt();
    server = await startDemoServer();
    browser = await openBrowser();
    page = browser.page;
    await signIn(page, server.url);
    companies = (await apiGet<{ companies: Company[] }>(page, '/api/v1/auth/me/')).companies;
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  const companyWith = (role: Company['role']) => {
    const found = companies.find((c) => c.role === role);
    if (!found) throw new Error(`the demo user is no ${role} of any company`);
    return found;
  };

  it('a collector sees email connections and document details without any control that changes them', async () => {
    const bluebird = companyWith('collector');
    await page.goto(`${server.url}/companies/${bluebird.id}/settings/email`);
    await expect.poll(() => page.getByTestId('email-owner-only').isVisible()).toBe(true);
    await expect.poll(() => page.getByTestId('email-connections').isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: /^Edit / }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Make default' }).count()).toBe(0);
    expect(await page.getByRole('heading', { name: 'Add a connection' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Add connection' }).count()).toBe(0);
    await lookAndCheck(page, 'settings-email-collector');

    await page.goto(`${server.url}/companies/${bluebird.id}/settings/company`);
    await expect.poll(() => page.getByTestId('documents-owner-only').isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: 'Save company details' }).count()).toBe(0);
    expect(await page.getByLabel(/logo/i).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Remove logo' }).count()).toBe(0);
    expect(await page.getByTestId('document-details-form').getByLabel('Legal name').isDisabled()).toBe(true);
    await lookAndCheck(page, 'settings-company-collector');
    // What the page does not offer, the API refuses as well.
    const refused = await apiCall(page, 'PATCH', `/api/companies/${bluebird.id}/document-details`, { legal_name: 'Changed by a collector' });
    expect(refused).toMatchObject({ status: 403, body: { code: 'owner_only' } });
  });

  it('an owner has the controls', async () => {
    const acme = companyWith('owner');
    await page.goto(`${server.url}/companies/${acme.id}/settings/email`);
    await expect.poll(() => page.getByRole('heading', { name: 'Add a connection' }).isVisible()).toBe(true);
    expect(await page.getByTestId('email-owner-only').count()).toBe(0);
    await page.goto(`${server.url}/companies/${acme.id}/settings/company`);
    await expect.poll(() => page.getByRole('button', { name: 'Save company details' }).isVisible()).toBe(true);
    expect(await page.getByTestId('documents-owner-only').count()).toBe(0);
  });

  it('the timeline shows each reply’s reading with its sentence, and one click corrects it', async () => {
    const acme = companyWith('owner');
    const replies = (await apiGet<{ data: Reply[] }>(page, `/api/companies/${acme.id}/communications?kind=email&direction=inbound&limit=200`)).data;
    const promised = replies.find((r) => r.reading?.kind === 'promise' && r.reading.sentence);
    expect(promised, 'a seeded reply read as a promise').toBeDefined();
    const reply = promised!;

    await page.goto(`${server.url}/companies/${acme.id}/customers/${reply.customer}`);
    const entry = page.getByTestId('timeline-entry').filter({ has: page.getByTestId('reply-reading') }).filter({ hasText: reply.reading!.sentence! });
    await expect.poll(() => entry.count()).toBeGreaterThan(0);
    const reading = entry.first().getByTestId('reply-reading');
    await expect.poll(() => reading.innerText()).toContain('Promise to pay');
    expect(await reading.innerText()).toContain('Read by ardesk');
    expect(await reading.getByTestId('reading-sentence').innerText()).toBe(`“${reply.reading!.sentence}”`);
    // The page's later sections (insights, actions) load after the timeline: scroll once they are in.
    await expect.poll(() => page.getByRole('heading', { name: 'Insights', exact: true }).count()).toBeGreaterThan(0);
    await expect.poll(() => page.getByRole('heading', { name: 'Actions', exact: true }).count()).toBeGreaterThan(0);
    await reading.scrollIntoViewIfNeeded();
    await lookAndCheck(page, 'timeline-reply-reading');

    await reading.getByRole('button', { name: 'Not a promise' }).click();
    await expect.poll(async () => (await apiGet<{ data: Reply[] }>(page, `/api/companies/${acme.id}/communications?customer_id=${reply.customer}&direction=inbound`)).data.find((r) => r.id === reply.id)?.reading).toMatchObject({
      kind: 'none',
      automatic: false,
    });
    const corrected = page.getByTestId('reply-reading').filter({ hasText: reply.reading!.sentence! }).first();
    await expect.poll(() => corrected.innerText()).toContain('Nothing to act on');
    expect(await corrected.innerText()).toContain('Corrected by');

    // Keyboard: the date correction opens, takes a date and saves without the mouse.
    await corrected.getByRole('button', { name: 'It is a promise…' }).focus();
    await page.keyboard.press('Enter');
    const date = corrected.getByLabel('Promised for');
    await date.fill('2026-12-18');
    await corrected.getByRole('button', { name: 'Save the promise' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await apiGet<{ data: Reply[] }>(page, `/api/companies/${acme.id}/communications?customer_id=${reply.customer}&direction=inbound`)).data.find((r) => r.id === reply.id)?.reading).toMatchObject({
      kind: 'promise',
      promise_date: '2026-12-18',
      automatic: false,
    });
    await expect.poll(() => page.getByTestId('reply-reading').filter({ hasText: reply.reading!.sentence! }).first().innerText()).toContain('Promise to pay by');

    // The invoice's panel on the desk shows the same reading, as corrected.
    expect(reply.invoice).not.toBeNull();
    await page.goto(`${server.url}/companies/${acme.id}/invoices/${reply.invoice}`);
    const inPanel = page.getByTestId('panel-activity').getByTestId('reply-reading').filter({ hasText: reply.reading!.sentence! });
    await expect.poll(() => inPanel.count()).toBe(1);
    expect(await inPanel.innerText()).toContain('Corrected by');
    expect(await inPanel.getByRole('button', { name: 'It is a dispute' }).isVisible()).toBe(true);
    // The panel's sections above load one by one: scroll until the reading stays in view.
    await expect
      .poll(async () => {
        await inPanel.scrollIntoViewIfNeeded();
        return inPanel.evaluate((el) => {
          const r = el.getBoundingClientRect();
          return r.top >= 0 && r.bottom <= window.innerHeight;
        });
      })
      .toBe(true);
    await lookAndCheck(page, 'panel-reply-reading');
  });
});
