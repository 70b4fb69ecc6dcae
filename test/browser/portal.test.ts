/**
 * The customer's payment portal in Chromium, against a team server (`ardesk serve --team` on a copy
 * of the demo, loopback) with a desktop replica connected to it: a collector makes a customer's
 * link over the API; the customer opens it in the company's brand colours, sees the invoices,
 * downloads one (pdftotext reads its amount), promises a date for one (a second browser, signed in
 * to the desktop, sees the promise and the paused step after the next sync), disputes another with
 * a photo attached, reports a payment of a third (held, and a remittance advice for cash
 * application), proposes a billing contact, and a revoked link shows the page in words; on the
 * collector's desk the customer page offers the proposed contact, accepted. Every portal page is axe
 * clean in light and dark (the device's setting) at a phone's 390x844 and at 1440x900, with
 * screenshots in test-output/portal-*.png.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contrastRatio } from '../../core/documents/colours';
import { addDays, longDate } from '../../core/dates';
import { shortDate } from '../../core/holds/holds';
import { describeFindings, lookAndCheck, seriousA11yFindings } from '../support/axe';
import { type Browser, ensureRendererBuilt, openBrowser, screenshotPath, signIn } from '../support/browser';
import { pdfText } from '../support/pdf';
import { type DemoServer, startDemoServer } from '../support/server';
import { Api, ardeskOk, query, type ServerProcess, startServe, waitFor } from '../support/sync';

const SIZES = [
  { width: 390, height: 844 },
  { width: 1440, height: 900 },
] as const;
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a5b7e9a80000000049454e44ae426082', 'hex');

/** The page in the device's light and dark: no serious or critical axe finding, a screenshot of each at both sizes. */
async function lookAtPortal(page: Page, name: string): Promise<void> {
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    const findings = await seriousA11yFindings(page, colorScheme === 'light' ? 'all' : 'colours');
    expect(findings, `${name} (${colorScheme}):\n${describeFindings(findings)}`).toEqual([]);
    for (const size of SIZES) {
      await page.setViewportSize(size);
      await page.evaluate(() => new Promise((painted) => requestAnimationFrame(painted)));
      await page.screenshot({ path: screenshotPath(`portal-${name}-${size.width}x${size.height}-${colorScheme}.png`), fullPage: true });
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize(SIZES[0]);
}

describe('customer payment portal', () => {
  let server: DemoServer;
  let browser: Browser;
  let api: Api;
  let deskDir: string;
  let deskDb: string;
  let desktop: ServerProcess;

  beforeAll(async () => {
    await ensureRendererBuilt();
    server = await startDemoServer(['--team']);
    deskDir = mkdtempSync(join(tmpdir(), 'ardesk-portal-desk-'));
    deskDb = join(deskDir, 'desk.sqlite');
    // The collector's desktop: a replica of the team server's company, syncing every second.
    const connected = ardeskOk(['connect', '--db', deskDb, '--server', server.url, '--username', 'demo', '--password', 'demo']).then(async () => {
      desktop = await startServe(['--db', deskDb, '--port', '0', '--sync-interval', '1']);
    });
    [browser] = await Promise.all([openBrowser(), connected]);
    api = await Api.login(server.url, 'demo', 'demo');
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await desktop?.stop();
    await server?.stop();
    if (deskDir) rmSync(deskDir, { recursive: true, force: true });
  }, 120_000);

  it('opens the link, downloads an invoice, promises a date for one, disputes another, reports paying a third; a revoked link shows the page in words', async () => {
    const { page } = browser;
    const [company] = ((await api.ok('GET', '/api/v1/companies/')) as { companies: Array<{ id: string }> }).companies;
    // A customer with three to six open invoices, in a sequence, and no open dispute or promise yet.
    const [customer] = query<{ id: string; name: string }>(
      server.file,
      `SELECT c.id, c.name FROM customers c WHERE c.company_id = ? AND (SELECT count(*) FROM invoices i WHERE i.customer_id = c.id AND i.closing_reason IS NULL AND i.balance > 0) BETWEEN 3 AND 6
         AND EXISTS (SELECT 1 FROM sequence_enrollments e WHERE e.customer_id = c.id AND e.status = 'active')
         AND NOT EXISTS (SELECT 1 FROM disputes d WHERE d.customer_id = c.id AND d.status = 'open')
         AND NOT EXISTS (SELECT 1 FROM communications m WHERE m.customer_id = c.id AND m.promise_date IS NOT NULL)
       ORDER BY c.name LIMIT 1`,
      company.id,
    );
    // The company's colours: a yellow too light for text on white (a darker shade of it is drawn in light mode), and a violet.
    const details = (await api.ok('PATCH', `/api/companies/${company.id}/document-details`, { brand_primary: '#FFCC00', brand_accent: '#7C3AED' })) as {
      brand_colours: { primary: { light: { colour: string; adjusted: boolean }; dark: { colour: string } }; accent: { light: { colour: string }; dark: { colour: string } } };
    };
    expect(details.brand_colours.primary.light.adjusted).toBe(true);
    const invoices = query<{ id: string; invoice_number: string; balance: number }>(server.file, 'SELECT id, invoice_number, balance FROM invoices WHERE customer_id = ? AND closing_reason IS NULL AND balance > 0 ORDER BY due_date, invoice_number', customer.id);
    const link = (await api.ok('POST', `/api/companies/${company.id}/customers/${customer.id}/portal-link`)) as { url: string };
    expect(link.url.startsWith(`${server.url}/portal/`)).toBe(true);

    await page.setViewportSize(SIZES[0]);
    await page.goto(link.url);
    await page.getByRole('heading', { level: 1, name: `Invoices for ${customer.name}` }).waitFor();
    for (const i of invoices) await page.getByText(`Invoice ${i.invoice_number}`, { exact: true }).waitFor();
    // The buttons in the primary colour's readable shade, links in the accent's, in light and dark.
    const rgb = (hex: string) => `rgb(${[1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16)).join(', ')})`;
    const drawn = () =>
      page.evaluate(() => ({
        button: getComputedStyle(document.querySelector('button[value="promise"]')!).backgroundColor,
        text: getComputedStyle(document.querySelector('button[value="promise"]')!).color,
        link: getComputedStyle(document.querySelector('a[download]')!).color,
      }));
    expect(await drawn()).toEqual({ button: rgb(details.brand_colours.primary.light.colour), text: 'rgb(255, 255, 255)', link: rgb(details.brand_colours.accent.light.colour) });
    expect(contrastRatio(details.brand_colours.primary.light.colour, '#ffffff')).toBeGreaterThanOrEqual(4.5);
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await drawn()).toMatchObject({ button: rgb(details.brand_colours.primary.dark.colour), link: rgb(details.brand_colours.accent.dark.colour) });
    await lookAtPortal(page, 'home');

    const [first, second] = invoices;
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: `Download invoice ${first.invoice_number} (PDF)` }).click()]);
    const text = pdfText(readFileSync((await download.path()) as string));
    expect(text).toContain(first.invoice_number);
    expect(text).toContain((first.balance / 100).toLocaleString('en-US', { minimumFractionDigits: 2 }));

    // Promise: tick the first invoice, say the day.
    const promised = addDays(new Date().toISOString().slice(0, 10), 10);
    await page.getByLabel(`Invoice ${first.invoice_number}`).check();
    await page.getByRole('button', { name: "I'll pay on a date" }).click();
    await page.getByRole('heading', { level: 1, name: "I'll pay on a date" }).waitFor();
    await lookAtPortal(page, 'promise');
    await page.getByLabel('I will pay on').fill(promised);
    await page.getByRole('button', { name: 'Send my promise' }).click();
    await page.getByRole('status').filter({ hasText: 'We have your promise' }).waitFor();

    // The collector's desk on the desktop replica, in a second browser: the promise arrives with the
    // next sync; the customer's page shows the paused sequence step and the customer's words.
    await waitFor('the promise to reach the desktop', () => query(deskDb, 'SELECT 1 FROM communications WHERE invoice_id = ? AND promise_date = ?', first.id, promised).length === 1);
    const desk = await openBrowser();
    try {
      await signIn(desk.page, desktop.url);
      await desk.page.goto(`${desktop.url}/companies/${company.id}/customers/${customer.id}`);
      const paused = `Paused: ${customer.name} promised payment for ${first.invoice_number} by ${shortDate(promised, new Date().toISOString().slice(0, 10))}`;
      await desk.page.getByTestId('chase-enrollment').filter({ hasText: paused }).first().waitFor();
      await desk.page.getByText(`Wrote via the portal: I'll pay on ${longDate(promised)}`).first().waitFor();
      await lookAndCheck(desk.page, 'portal-desktop-promise');
      // Settings on the desktop: the synced colours, and which shade stands in for the yellow, in words.
      await desk.page.goto(`${desktop.url}/companies/${company.id}/settings/company`);
      await desk.page.getByTestId('brand-primary-shade').filter({ hasText: `Primary colour #FFCC00 is too light for text on white: the portal in light mode and the PDFs use the darker ${details.brand_colours.primary.light.colour.toUpperCase()}` }).waitFor();
      const brand = desk.page.getByTestId('brand-primary');
      await brand.evaluate((el) => el.scrollIntoView({ block: 'center' }));
      await lookAndCheck(desk.page, 'portal-desktop-brand-settings');
      // The app scrolls inside its frame: the narrow window's picture needs the field brought back into view.
      await desk.page.setViewportSize({ width: 1024, height: 700 });
      await brand.evaluate((el) => el.scrollIntoView({ block: 'center' }));
      await desk.page.screenshot({ path: screenshotPath('portal-desktop-brand-settings-1024x700-fields.png') });
      expect(desk.errors).toEqual([]);
    } finally {
      await desk.close();
    }

    // Dispute: the second invoice, with a photo.
    await page.getByLabel(`Invoice ${second.invoice_number}`).check();
    await page.getByRole('button', { name: 'I have a question or I dispute this' }).click();
    await page.getByLabel('What is it about?').selectOption('damaged');
    await page.getByLabel('Your message').fill('Two crates arrived broken; photo attached.');
    await page.getByLabel('Attach a document (optional)').setInputFiles({ name: 'crates.png', mimeType: 'image/png', buffer: PNG });
    await lookAtPortal(page, 'dispute');
    await page.getByRole('button', { name: 'Send my question' }).click();
    await page.getByRole('status').filter({ hasText: 'Your question is with our team' }).waitFor();
    await page.getByText('Question open').waitFor();

    // "I've paid" for the third: a form with a problem says so in words first.
    const third = invoices[2];
    await page.getByLabel(`Invoice ${third.invoice_number}`).check();
    await page.getByRole('button', { name: "I've paid" }).click();
    await page.getByLabel('I paid on').fill(new Date().toISOString().slice(0, 10));
    await page.getByRole('button', { name: 'Send my payment details' }).click();
    await page.getByRole('alert').filter({ hasText: 'Say how much was paid.' }).waitFor();
    await lookAtPortal(page, 'paid-problem');
    await page.getByLabel('Amount paid').fill((third.balance / 100).toFixed(2));
    await page.getByRole('button', { name: 'Send my payment details' }).click();
    await page.getByRole('status').filter({ hasText: 'We will look for your payment' }).waitFor();

    await page.getByRole('link', { name: 'Update my billing contact' }).click();
    await lookAtPortal(page, 'contact');
    await page.getByLabel('Name').fill('Ann Lee');
    await page.getByLabel('Email address').fill('ann.lee@example.com');
    await page.getByRole('button', { name: 'Send the new contact' }).click();
    await page.getByRole('status').filter({ hasText: 'Our team will update your billing contact' }).waitFor();

    // The collector's side: the promise holds the first invoice, the dispute only the second.
    const chase = (await api.ok('GET', `/api/companies/${company.id}/customers/${customer.id}/chase`)) as { holds: Array<{ kind: string; invoice: string | null }> };
    const held = chase.holds.filter((h) => h.invoice !== null).map((h) => [h.kind, h.invoice]);
    expect(held).toContainEqual(['dispute', second.id]);
    expect(held).toContainEqual(['promise', first.id]);
    expect(held).not.toContainEqual(['dispute', first.id]);
    expect(held).not.toContainEqual(['dispute', third.id]);
    const disputes = query<{ invoice_id: string }>(server.file, "SELECT invoice_id FROM disputes WHERE customer_id = ? AND status = 'open'", customer.id);
    expect(disputes.map((d) => d.invoice_id)).toEqual([second.id]);
    // The report of payment holds the third and is offered to cash application as a hint.
    const hold = query<{ promise_date: string; subject: string }>(server.file, "SELECT promise_date, subject FROM communications WHERE invoice_id = ? AND direction = 'inbound'", third.id);
    expect(hold).toEqual([{ promise_date: addDays(new Date().toISOString().slice(0, 10), 5), subject: expect.stringMatching(/^Wrote via the portal: I've paid /) }]);
    const advices = query<{ invoice_ids: string; amount: number }>(server.file, 'SELECT invoice_ids, amount FROM bank_remittance_advices WHERE customer_id = ?', customer.id);
    expect(advices).toEqual([{ invoice_ids: JSON.stringify([third.id]), amount: third.balance }]);
    const files = query<{ media_type: string; size: number }>(server.file, 'SELECT media_type, size FROM portal_files WHERE customer_id = ?', customer.id);
    expect(files).toEqual([{ media_type: 'image/png', size: PNG.byteLength }]);

    // No script error: the one failed load is the form answered again with its problem (400).
    expect(browser.errors).toEqual(['Failed to load resource: the server responded with a status of 400 (Bad Request)']);
    expect((await api.ok('DELETE', `/api/companies/${company.id}/customers/${customer.id}/portal-link`)).revoked).toBe(1);
    const revoked = await page.goto(link.url);
    expect(revoked?.status()).toBe(404);
    await page.getByRole('heading', { level: 1, name: 'This link does not open a page' }).waitFor();
    await lookAtPortal(page, 'revoked');
    expect(browser.offHost).toEqual([]);

    // The collector's desk: the customer page's portal card offers the proposed contact to accept.
    await signIn(page, server.url);
    await page.goto(`${server.url}/companies/${company.id}/customers/${customer.id}`);
    const card = page.getByTestId('customer-portal');
    await card.getByText('Proposed billing contact: Ann Lee, ann.lee@example.com').waitFor();
    await card.scrollIntoViewIfNeeded();
    await lookAndCheck(page, 'portal-collector');
    await card.getByRole('button', { name: 'Make it the billing contact' }).click();
    await card.getByTestId('portal-contact-proposal').waitFor({ state: 'detached' });
    const billing = query<{ name: string; email: string }>(server.file, 'SELECT name, email FROM customer_contacts WHERE customer_id = ? AND is_billing = 1', customer.id);
    expect(billing).toEqual([{ name: 'Ann Lee', email: 'ann.lee@example.com' }]);
  }, 120_000);
});
