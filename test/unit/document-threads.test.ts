/**
 * Documents are drawn on worker threads (core/documents/render.ts): the thread that asks keeps
 * serving its event loop while a long statement is drawn, and gets back the same file it would
 * have drawn itself.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DocumentDetailsWithLogo } from '../../core/documents/details';
import { renderStatement, type StatementData } from '../../core/documents/draw-statement';
import { MAX_WAITING, renderDocument, renderOffThread } from '../../core/documents/render';
import { TooManyRequestsError } from '../../core/errors';
import { PACKAGE_DIR, TYPESCRIPT } from '../support/cli';
import { pdfPages } from '../support/pdf';

const RENDER = join(PACKAGE_DIR, 'core/documents/render.ts');

const details: DocumentDetailsWithLogo = {
  company_name: 'Thread Supply',
  legal_name: null,
  address: 'Harbour Road 1\nPort Town',
  tax_id: null,
  payment_instructions: 'Bank transfer to IBAN DE00 1234',
  portal_link: null,
  footer: 'Thread Supply · Harbour Road 1',
  brand_primary: null,
  brand_accent: null,
  brand_colours: { primary: null, accent: null },
  locale: 'en-US',
  paper: 'A4',
  logo: { type: 'image/png', bytes: 0 },
  updated_at: null,
  logoData: readFileSync(join(PACKAGE_DIR, 'test/fixtures/logos/logo.png')),
};

function statement(count: number): StatementData {
  const invoices = Array.from({ length: count }, (_, i) => {
    const due = new Date(Date.parse('2026-11-26T00:00:00Z') - (i % 200) * 86_400_000).toISOString().slice(0, 10);
    return { invoice_number: `TH-${String(i + 1).padStart(5, '0')}`, invoice_date: due, due_date: due, currency: 'EUR', total_amount: 10_000 + i, paid: 0, open: 10_000 + i };
  });
  return { customer: { id: 'c1', name: 'Ωμέγα Трейд', address: ['Main Street 5'] }, as_of: '2026-11-26', invoices, payments: [], activity: null, credits: { items: [], totals: [] } };
}

/** The longest the event loop went without running a 5 ms timer while `work` ran. */
async function longestStall(work: () => Promise<unknown>): Promise<number> {
  let last = performance.now();
  let longest = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 5);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return Math.max(longest, performance.now() - last);
}

describe('document threads', () => {
  it('draws a long statement without holding the event loop, to the same pages as drawing it here', async () => {
    const data = statement(2000);
    // Warm: the thread's start and the fonts on both sides are not what is measured.
    await renderOffThread({ kind: 'statement', data: statement(5), details });
    await renderStatement(statement(5), details);

    let here: Buffer = Buffer.alloc(0);
    const stallHere = await longestStall(async () => (here = (await renderStatement(data, details)).pdf));
    let there: Buffer = Buffer.alloc(0);
    const stallThere = await longestStall(async () => (there = (await renderOffThread({ kind: 'statement', data, details })).pdf));

    // Drawing here is one long synchronous stretch; on a thread the loop keeps turning.
    expect(stallThere).toBeLessThan(stallHere / 3);
    const pages = pdfPages(there);
    expect(pages.length).toBeGreaterThan(30);
    expect(pages).toEqual(pdfPages(here));
    expect(pages[0]).toContain('Ωμέγα Трейд');
    expect(pages.join('\n')).toContain('TH-02000');
    expect(pages.at(-1)).toContain('Total due');
  });

  it('draws documents asked for at once, each its own', async () => {
    const sizes = [3, 40, 7, 120];
    const files = await Promise.all(sizes.map((n) => renderOffThread({ kind: 'statement', data: statement(n), details })));
    files.forEach(({ pdf }, i) => {
      const text = pdfPages(pdf).join('\n');
      expect(text).toContain(`TH-${String(sizes[i]).padStart(5, '0')}`);
      expect(text).not.toContain(`TH-${String(sizes[i] + 1).padStart(5, '0')}`);
    });
  });

  it('keeps no process alive: a script that drew a document ends with its own work, not when the idle thread stops', async () => {
    const request = JSON.stringify({ kind: 'statement', data: statement(3), details: { ...details, logo: null, logoData: null } });
    const code = `require(${JSON.stringify(TYPESCRIPT)}); require(${JSON.stringify(RENDER)}).renderOffThread(${request}).then(() => console.log('drawn'));`;
    const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const drawnAt = new Promise<number>((resolve) => child.stdout.on('data', () => out.includes('drawn') && resolve(Date.now())));
    const exitedAt = new Promise<number>((resolve) => child.once('exit', () => resolve(Date.now())));
    try {
      const [drawn, exited] = await Promise.all([drawnAt, exitedAt]);
      // A thread stops after 30 s without work (IDLE_MS); the process must not wait for that.
      expect(exited - drawn).toBeLessThan(10_000);
    } finally {
      child.kill('SIGKILL');
    }
  }, 40_000);

  it('fails the document, not the caller, when drawing throws', async () => {
    const broken = { ...statement(3), invoices: null } as unknown as StatementData;
    await expect(renderOffThread({ kind: 'statement', data: broken, details })).rejects.toThrow(/Drawing the document failed/);
    // The thread still draws the next one.
    const { pdf } = await renderOffThread({ kind: 'statement', data: statement(2), details });
    expect(pdfPages(pdf).join('\n')).toContain('TH-00002');
  });

  it('reads and draws at most two documents at once, the rest waiting their turn; past the queue a 429 with Retry-After', async () => {
    let holding = 0;
    let most = 0;
    const ask = (n: number) =>
      renderDocument(async () => {
        holding++;
        most = Math.max(most, holding);
        return { kind: 'statement' as const, data: statement(n), details };
      }).finally(() => holding--);
    // Two drawing, MAX_WAITING waiting: the next one is refused at once, the others are all made.
    const asked = Array.from({ length: 2 + MAX_WAITING }, (_, i) => ask(1 + (i % 5)));
    const refused = await ask(1).then(
      () => null,
      (err: unknown) => err,
    );
    expect(refused).toBeInstanceOf(TooManyRequestsError);
    expect((refused as TooManyRequestsError).retryAfterSeconds).toBeGreaterThan(0);
    const made = await Promise.all(asked);
    expect(made.every(({ pdf }) => pdf.subarray(0, 5).toString() === '%PDF-')).toBe(true);
    // The figures of a waiting document are not read before its turn.
    expect(most).toBe(2);
  });

  it('a thread out of memory fails that document alone, with words saying so; the next document is drawn', async () => {
    // A 32 MB heap (the operator's ARDESK_DOCUMENT_THREAD_MB) cannot hold a 60,000-line statement.
    const code = `require(${JSON.stringify(TYPESCRIPT)});
      const { renderOffThread } = require(${JSON.stringify(RENDER)});
      const details = ${JSON.stringify({ ...details, logo: null, logoData: null })};
      const statement = (n) => ({ customer: { id: 'c', name: 'Big', address: [] }, as_of: '2026-11-26', payments: [], activity: null, credits: { items: [], totals: [] },
        invoices: Array.from({ length: n }, (_, i) => ({ invoice_number: 'TH-' + String(i + 1).padStart(5, '0'), invoice_date: '2026-01-01', due_date: '2026-02-01', currency: 'EUR', total_amount: 100 + i, paid: 0, open: 100 + i })) });
      renderOffThread({ kind: 'statement', data: statement(60000), details }).then(
        () => console.log(JSON.stringify({ big: 'drawn' })),
        (err) => renderOffThread({ kind: 'statement', data: statement(2), details }).then(
          ({ pdf }) => console.log(JSON.stringify({ big: err.code, status: err.status, message: err.message, small: pdf.subarray(0, 5).toString() })),
          (next) => console.log(JSON.stringify({ big: err.code, small: String(next) }))));`;
    const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ARDESK_DOCUMENT_THREAD_MB: '32' } });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    await new Promise((resolve) => child.once('exit', resolve));
    const result = JSON.parse(out.trim().split('\n').at(-1) ?? '{}');
    expect(result).toMatchObject({ big: 'document_too_large', status: 422, small: '%PDF-' });
    expect(result.message).toMatch(/needs more than the 32 MB one document may use.*CSV/);
  }, 60_000);
});
