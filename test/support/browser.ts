import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { newestMtime } from '../../core/cli/build';

export const ROOT = resolve(__dirname, '../..');
export const CHROMIUM = '/usr/bin/chromium';
export const OUTPUT_DIR = join(ROOT, 'test-output');

/**
 * Builds the renderer when out/renderer is missing or older than its sources (CI builds first
 * anyway). Test files run in parallel processes: a lock folder makes one build and the rest wait.
 */
export async function ensureRendererBuilt(): Promise<void> {
  const built = join(ROOT, 'out', 'renderer', 'index.html');
  const sources = Math.max(newestMtime(join(ROOT, 'renderer')), newestMtime(join(ROOT, 'electron.vite.config.ts')));
  if (existsSync(built) && statSync(built).mtimeMs >= sources) return;
  const lock = join(ROOT, 'out', '.renderer-build.lock');
  mkdirSync(join(ROOT, 'out'), { recursive: true });
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      // Another process builds: wait for it, then use its output.
      if (existsSync(lock) && Date.now() - statSync(lock).mtimeMs > 180_000) rmSync(lock, { recursive: true, force: true });
      await new Promise((r) => setTimeout(r, 250));
      if (existsSync(built) && statSync(built).mtimeMs >= sources && !existsSync(lock)) return;
    }
  }
  try {
    if (existsSync(built) && statSync(built).mtimeMs >= sources) return;
    execFileSync(process.execPath, [join(ROOT, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js'), 'build'], { cwd: ROOT, stdio: 'pipe' });
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

export interface Browser {
  context: BrowserContext;
  page: Page;
  /** Every request URL the page made that did not go to 127.0.0.1. */
  offHost: string[];
  /** Console errors and uncaught page errors. */
  errors: string[];
  close(): Promise<void>;
}

/** Debian's Chromium through playwright-core, with STACK.md's launch recipe. */
export async function openBrowser(): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'ardesk-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1440, height: 900 },
    // The app's CSP (script-src 'self') would refuse the axe-core script that a11y checks inject.
    bypassCSP: true,
    locale: 'en-US',
    timezoneId: 'UTC',
  });
  const page = context.pages()[0] ?? (await context.newPage());
  // Fail a step within the test's own time limit, naming the step.
  page.setDefaultTimeout(15_000);
  const offHost: string[] = [];
  const errors: string[] = [];
  context.on('request', (req) => {
    const url = req.url();
    if (/^(data|blob|about):/.test(url)) return;
    if (new URL(url).hostname !== '127.0.0.1') offHost.push(url);
  });
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(msg.text());
  });
  page.on('pageerror', (err) => errors.push(err.message));
  return {
    context,
    page,
    offHost,
    errors,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export function screenshotPath(name: string): string {
  mkdirSync(OUTPUT_DIR, { recursive: true });
  return join(OUTPUT_DIR, name);
}

/** The API as the signed-in page sees it (same token), to check what the screens show or did. */
export async function apiGet<T>(page: Page, path: string): Promise<T> {
  return page.evaluate(async (p) => {
    const res = await fetch(p, { headers: { authorization: `Token ${localStorage.getItem('ardesk.token')}` } });
    return res.json();
  }, path);
}

/** A call to the API as the signed-in page (same token): the status and the JSON body (null when empty), of the shape the test asked for. */
export async function apiCall<T = any>(page: Page, method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  return page.evaluate(
    async ({ method, path, body }) => {
      const res = await fetch(path, {
        method,
        headers: { authorization: `Token ${localStorage.getItem('ardesk.token')}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null };
    },
    { method, path, body },
  );
}

/** Signs in on the server's sign-in page (the demo's user unless told), waits for the desk and returns its company's id. */
export async function signIn(page: Page, url: string, username = 'demo', password = username): Promise<string> {
  await page.goto(url);
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/companies\/[0-9a-f-]{36}\/invoices/);
  return /\/companies\/([0-9a-f-]{36})\//.exec(page.url())![1];
}

/**
 * The demo's email connections point at 127.0.0.1:2525: sends go to this test's SMTP server
 * instead (`port`, with the user and password that server was started with).
 */
export async function sendThrough(page: Page, companyId: string, port: number, auth = { user: 'ar-test', pass: 'test-secret' }): Promise<void> {
  const connections = await apiGet<{ data: Array<{ id: string }> }>(page, `/api/companies/${companyId}/email-connections`);
  for (const c of connections.data) {
    const answer = await apiCall(page, 'PATCH', `/api/companies/${companyId}/email-connections/${c.id}`, { smtp_port: port, smtp_username: auth.user, smtp_password: auth.pass });
    if (answer.status !== 200) throw new Error(`could not point connection ${c.id} at port ${port}: ${answer.status} ${JSON.stringify(answer.body)}`);
  }
}
