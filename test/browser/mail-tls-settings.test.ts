/**
 * Settings › Email in Chromium: a self-hosted SMTP server with its own (self-signed) certificate.
 * The connection test shows the certificate's subject and SHA-256 fingerprint; the owner trusts
 * exactly it, sees it on the connection, tests again (works), and stops trusting it.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lookAndCheck } from '../support/axe';
import { apiCall, type Browser, ensureRendererBuilt, openBrowser, signIn } from '../support/browser';
import { type DemoServer, startDemoServer } from '../support/server';
import { type SmtpServer, startSmtp } from '../support/smtp';

const TLS = resolve(__dirname, '../fixtures/tls');

describe("Settings › Email: trusting a self-hosted mail server's certificate", () => {
  let server: DemoServer;
  let smtp: SmtpServer;
  let browser: Browser;
  let page: Page;
  let companyId: string;

  beforeAll(async () => {
    await ensureRendererBuilt();
    [server, smtp, browser] = await Promise.all([
      startDemoServer(),
      startSmtp({ tls: { cert: readFileSync(resolve(TLS, 'self-signed-1.pem')), key: readFileSync(resolve(TLS, 'self-signed-1.key')) } }),
      openBrowser(),
    ]);
    page = browser.page;
    companyId = await signIn(page, server.url);
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await smtp?.close();
  });

  it('shows the fingerprint and subject, trusts exactly that certificate, and revokes it', async () => {
    const made = await apiCall(page, 'POST', `/api/companies/${companyId}/email-connections`, { name: 'Self-hosted', from_email: 'ar@acme.example', smtp_host: '127.0.0.1', smtp_port: smtp.port, is_default: false });
    expect(made.status).toBe(201);
    const fingerprint = (await apiCall(page, 'POST', `/api/companies/${companyId}/email-connections/${made.body.id}/test`)).body.smtp.certificate.sha256 as string;

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings', exact: true }).click();
    const table = page.getByTestId('email-connections');
    await table.getByRole('button', { name: 'Test connection Self-hosted' }).click();
    const outcomes = table.getByTestId('connection-outcomes');
    await expect.poll(() => outcomes.innerText(), { timeout: 30_000 }).toMatch(/Sending \(SMTP\): failed\./);
    const shown = await outcomes.innerText();
    expect(shown).toContain(`shows a certificate no known authority signed`);
    expect(shown).toContain('Certificate: CN=mail.self-hosted.test, O=Self-hosted 1, issued by CN=mail.self-hosted.test, O=Self-hosted 1');
    expect(shown).toContain(fingerprint);
    await outcomes.getByRole('button', { name: 'Trust this certificate' }).focus();
    await lookAndCheck(page, 'settings-email-certificate');

    await page.keyboard.press('Enter');
    const trusted = table.getByTestId('trusted-smtp');
    await expect.poll(() => trusted.innerText()).toContain(`Trusted certificate: CN=mail.self-hosted.test, O=Self-hosted 1, SHA-256 ${fingerprint}`);
    await expect.poll(() => outcomes.innerText()).toContain('only this certificate is accepted from now on');

    await table.getByRole('button', { name: 'Test connection Self-hosted' }).click();
    await expect.poll(() => outcomes.innerText(), { timeout: 30_000 }).toMatch(/Sending \(SMTP\): works\./);
    expect(await outcomes.innerText()).toContain('Secure: the certificate is the one an owner trusted.');

    await table.getByRole('button', { name: 'Stop trusting the sending (SMTP) certificate of Self-hosted' }).click();
    await expect.poll(() => trusted.count()).toBe(0);
    const stored = await apiCall(page, 'GET', `/api/companies/${companyId}/email-connections/${made.body.id}`);
    expect(stored.body.smtp_trusted_certificate).toBeNull();
  }, 120_000);

  it('tells a collector that a company owner can trust the certificate, without offering it', async () => {
    // The demo user is a collector of the other demo company, whose owner is "outsider".
    const login = await fetch(`${server.url}/api/v1/auth/login/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'outsider', password: 'outsider' }) });
    const owner = (await login.json()) as { token: string; companies: Array<{ id: string }> };
    const other = owner.companies[0].id;
    expect(other).not.toBe(companyId);
    const made = await fetch(`${server.url}/api/companies/${other}/email-connections`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Token ${owner.token}` },
      body: JSON.stringify({ name: 'Kitchen relay', from_email: 'ar@catering.example', smtp_host: '127.0.0.1', smtp_port: smtp.port, is_default: false }),
    });
    expect(made.status).toBe(201);

    await page.getByRole('combobox', { name: 'Company', exact: true }).selectOption(other);
    const table = page.getByTestId('email-connections');
    await table.getByRole('button', { name: 'Test connection Kitchen relay' }).click();
    const outcomes = table.getByTestId('connection-outcomes');
    await expect.poll(() => outcomes.innerText(), { timeout: 30_000 }).toContain('A company owner can trust this certificate here.');
    expect(await outcomes.innerText()).toContain('Certificate: CN=mail.self-hosted.test');
    expect(await outcomes.getByRole('button', { name: 'Trust this certificate' }).count()).toBe(0);
  }, 60_000);
});
