/**
 * The set-up of the browser files that send email: a copy of the demo served by `ardesk serve`,
 * its connections sending through a real SMTP server on loopback, and Chromium signed in.
 */
import type { Page } from 'playwright-core';
import { type Browser, ensureRendererBuilt, openBrowser, sendThrough, signIn } from './browser';
import { type DemoServer, startDemoServer } from './server';
import { type SmtpServer, startSmtp } from './smtp';

export interface SendingDesk {
  server: DemoServer;
  smtp: SmtpServer;
  browser: Browser;
  page: Page;
  companyId: string;
  close(): Promise<void>;
}

export async function openSendingDesk(serverArgs: string[] = []): Promise<SendingDesk> {
  await ensureRendererBuilt();
  const started: Array<() => Promise<unknown>> = [];
  const close = async () => {
    for (const stop of started.reverse()) await stop();
  };
  try {
    const server = await startDemoServer(serverArgs);
    started.push(() => server.stop());
    const smtp = await startSmtp({ auth: { user: 'ar-test', pass: 'test-secret' } });
    started.push(() => smtp.close());
    const browser = await openBrowser();
    started.push(() => browser.close());
    const page = browser.page;
    const companyId = await signIn(page, server.url);
    await sendThrough(page, companyId, smtp.port);
    return { server, smtp, browser, page, companyId, close };
  } catch (err) {
    // A half-made desk stops what it started, so a failed set-up leaves no server or browser behind.
    await close();
    throw err;
  }
}
