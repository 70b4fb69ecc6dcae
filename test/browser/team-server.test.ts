/**
 * Settings > Team server in Debian's Chromium: a desktop (`ardesk serve` on its own database, a
 * local account) connects to a real team server process through a TCP proxy of the test's own,
 * downloads a company, syncs an edit made in the app, is told of a refused change in words, and
 * disconnects keeping the local copy. Screenshots and axe in light and dark, wide and 1024x700.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lookAndCheck } from '../support/axe';
import { type Browser, ensureRendererBuilt, openBrowser, screenshotPath, signIn } from '../support/browser';
import { Api, ardeskOk, query, type ServerProcess, startServe, waitFor } from '../support/sync';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy';

const PASSWORD = 'correct horse 9';
const LOCAL_PASSWORD = 'local pass 7';

describe('Settings > Team server in Chromium against a team server and a desktop', () => {
  let dir: string;
  let serverDb: string;
  let deskDb: string;
  let server: ServerProcess;
  let desktop: ServerProcess;
  let proxy: TcpProxy;
  let serverApi: Api;
  let browser: Browser;
  let page: Page;
  let acme: string;
  let initech: string;

  beforeAll(async () => {
    await ensureRendererBuilt();
    dir = mkdtempSync(join(tmpdir(), 'ardesk-team-ui-'));
    serverDb = join(dir, 'team.sqlite');
    deskDb = join(dir, 'desk.sqlite');
    await ardeskOk(['user', 'add', '--db', serverDb, '--username', 'ann', '--password', PASSWORD, '--company', 'Acme', '--role', 'owner', '--create-company']);
    await ardeskOk(['user', 'add', '--db', deskDb, '--username', 'maria', '--password', LOCAL_PASSWORD, '--company', 'Maria desk', '--role', 'owner', '--create-company']);
    acme = query<{ id: string }>(serverDb, "SELECT id FROM companies WHERE name = 'Acme'")[0].id;
    server = await startServe(['--db', serverDb, '--team', '--port', '0']);
    proxy = await startTcpProxy(Number(new URL(server.url).port));
    serverApi = await Api.login(server.url, 'ann', PASSWORD);
    initech = (await serverApi.ok('POST', `/api/companies/${acme}/customers`, { name: 'Initech' })).id;
    await serverApi.ok('POST', `/api/companies/${acme}/invoices`, { customer: initech, total_amount: 500, number: 'INV-1' });
    // Where Acme's email goes from: the approve panel offers "Approve and send" only with a sender.
    await serverApi.ok('POST', `/api/companies/${acme}/email-connections`, { name: 'AR', from_email: 'ar@acme.example', smtp_host: 'smtp.acme.example', smtp_port: 587, is_default: true });
    desktop = await startServe(['--db', deskDb, '--port', '0', '--sync-interval', '1']);
    browser = await openBrowser();
    page = browser.page;
    await signIn(page, desktop.url, 'maria', LOCAL_PASSWORD);
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await desktop?.stop();
    await proxy?.close();
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('connects from Settings, refusing a wrong password in words, and shows the download finish', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings', exact: true }).click();
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Team server' }).click();
    await page.waitForURL(/\/settings\/sync$/);
    await page.getByRole('heading', { name: 'Connect to a team server' }).waitFor();
    await page.getByLabel('Server address').fill(proxy.url);
    await page.getByLabel('Username on the server').fill('ann');
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Show my companies' }).click();
    await page.getByRole('alert').getByText(/refused this username and password/).waitFor();
    await lookAndCheck(page, 'team-server-connect-refused');

    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Show my companies' }).click();
    const acmeBox = page.getByRole('checkbox', { name: /Acme/ });
    await acmeBox.waitFor();
    expect(await acmeBox.isChecked()).toBe(true);
    await lookAndCheck(page, 'team-server-choose');
    await page.getByRole('button', { name: 'Connect and download' }).click();
    await page.getByTestId('transfer-done').waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('sync-transfer').innerText()).toMatch(/Acme: \d+ rows downloaded/);
    await expect.poll(() => page.getByTestId('team-server-summary').innerText(), { timeout: 20_000 }).toBe('Synced');
    expect(await page.getByTestId('team-server-companies').innerText()).toBe('Acme');
    expect(await page.getByTestId('team-server-who').innerText()).toMatch(/The companies kept here are ann’s: sign in as ann/);
    expect(await page.getByTestId('team-server-last-sync').innerText()).not.toBe('Not yet');
    await lookAndCheck(page, 'team-server-connected');
    expect(query(deskDb, 'SELECT name FROM customers WHERE company_id = ?', acme)).toEqual([{ name: 'Initech' }]);
  }, 120_000);

  it('opens the company as the server user, syncs an edit made in the app, and tells of a refused change in words', async () => {
    await page.getByRole('button', { name: 'Open Acme as ann' }).click();
    await page.waitForURL(new RegExp(`/companies/${acme}/invoices$`));
    await page.getByTestId('sync-indicator').getByText('Synced').waitFor({ timeout: 20_000 });

    const first = await serverApi.ok('POST', `/api/companies/${acme}/actions`, { customer: initech, action_type: 'email', description: 'Remind Initech' });
    await waitFor('the action to reach the desktop', () => query(deskDb, 'SELECT id FROM actions WHERE id = ?', first.id).length === 1);
    await page.goto(`${desktop.url}/companies/${acme}/actions/${first.id}`);
    const panel = page.getByTestId('action-panel');
    await panel.getByRole('button', { name: 'Approve and send', exact: true }).click();
    await expect.poll(() => panel.getByTestId('action-status').innerText()).toBe('Approved, sending');
    await waitFor('the approval to reach the team server', () => query<{ status: string }>(serverDb, 'SELECT status FROM actions WHERE id = ?', first.id)[0].status !== 'needs_action');

    const second = await serverApi.ok('POST', `/api/companies/${acme}/actions`, { customer: initech, action_type: 'email', description: 'Call Initech' });
    await waitFor('the second action to reach the desktop', () => query(deskDb, 'SELECT id FROM actions WHERE id = ?', second.id).length === 1);
    proxy.set({ offline: true });
    await page.goto(`${desktop.url}/companies/${acme}/actions/${second.id}`);
    await panel.getByRole('button', { name: 'Approve and send', exact: true }).click();
    await expect.poll(() => panel.getByTestId('action-status').innerText()).toBe('Approved, sending');
    const indicator = page.getByTestId('sync-indicator');
    await indicator.getByText('Team server unreachable: 1 change waiting').waitFor({ timeout: 20_000 });
    await serverApi.ok('POST', `/api/companies/${acme}/actions/${second.id}/reject`, { reason: 'Customer paid by phone' });
    proxy.set({ offline: false });
    await indicator.getByText('1 change refused').waitFor({ timeout: 30_000 });
    await indicator.locator('summary').click();
    await indicator.getByText(/Approve action/).waitFor();
    await page.screenshot({ path: screenshotPath('team-server-indicator-1024x700.png') });
    await indicator.getByRole('link', { name: 'Team server settings' }).click();
    await page.waitForURL(/\/settings\/sync$/);
    const rejections = page.getByTestId('sync-rejections');
    await rejections.getByRole('cell', { name: 'Approve action' }).waitFor();
    expect(await rejections.innerText()).toMatch(/cancel|cannot|not/i);
    await lookAndCheck(page, 'team-server-rejected');
    expect(query<{ status: string }>(deskDb, 'SELECT status FROM actions WHERE id = ?', second.id)[0].status).toBe('cancelled');
    await page.getByRole('button', { name: 'I have read these: clear the list' }).click();
    await expect.poll(() => rejections.count()).toBe(0);
    await indicator.getByText('Synced').waitFor({ timeout: 10_000 });
  }, 120_000);

  it('downloads everything again from the tab', async () => {
    await page.getByRole('button', { name: 'Download everything again' }).click();
    const card = page.getByTestId('sync-transfer');
    await card.getByRole('heading', { name: 'Full resync' }).waitFor();
    await card.getByTestId('transfer-done').waitFor({ timeout: 30_000 });
    expect(await card.innerText()).toMatch(/Acme: \d+ rows downloaded/);
  }, 60_000);

  it('disconnects, asking, and keeps the local copy as a local-only company', async () => {
    await page.getByRole('button', { name: 'Disconnect…' }).click();
    const dialog = page.getByRole('alertdialog');
    await dialog.getByRole('radio', { name: /Keep a local copy/ }).waitFor();
    expect(await dialog.getByRole('radio', { name: /Keep a local copy/ }).isChecked()).toBe(true);
    await lookAndCheck(page, 'team-server-disconnect-dialog');
    await dialog.getByRole('button', { name: 'Disconnect' }).click();
    await page.getByRole('heading', { name: 'Connect to a team server' }).waitFor({ timeout: 15_000 });
    await expect.poll(() => page.getByTestId('sync-indicator').count(), { timeout: 10_000 }).toBe(0);
    expect(query(deskDb, 'SELECT role, server_url, token_enc FROM sync_state')).toEqual([{ role: null, server_url: null, token_enc: null }]);
    expect(query(deskDb, 'SELECT name FROM customers WHERE company_id = ?', acme)).toEqual([{ name: 'Initech' }]);
    expect(browser.errors.filter((e) => !/Failed to load resource/.test(e))).toEqual([]);
  }, 60_000);

  it('connects an empty workspace from the first-launch page', async () => {
    const fresh = await startServe(['--db', join(dir, 'fresh.sqlite'), '--port', '0', '--sync-interval', '1']);
    const other = await browser.context.newPage();
    try {
      await other.goto(fresh.url);
      const form = other.getByRole('form', { name: 'Connect to a team server' });
      await form.getByLabel('Server address').fill(proxy.url);
      await form.getByLabel('Username on the server').fill('ann');
      await form.getByLabel('Password').fill(PASSWORD);
      await lookAndCheck(other, 'first-launch');
      await form.getByRole('button', { name: 'Connect and download' }).click();
      await other.waitForURL(new RegExp(`/companies/${acme}/invoices$`), { timeout: 30_000 });
      await other.getByTestId('sync-indicator').getByText('Synced').waitFor({ timeout: 20_000 });
    } finally {
      await other.close();
      await fresh.stop();
    }
  }, 90_000);
});
