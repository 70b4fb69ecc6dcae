/**
 * Documents are drawn on worker threads (core/documents/render.ts): the thread that asks keeps
 * serving its event loop while a long statement is drawn, and gets back the same file it would
 * have drawn itself.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DocumentDetailsWithLogo } from '../../core/documents/details';
import { renderStatement, type StatementData } from '../../core/documents/draw-statement';
import { renderOffThread } from '../../core/documents/render';
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
  locale: 'en-US',
  paper: 'A4',
  logo: { type: 'image/svg+xml', bytes: 0 },
  updated_at: null,
  logoData: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="120" height="40"><rect width="120" height="40" fill="#1d4ed8"/></svg>'),
};

function statement(count: number): StatementData {
  const invoices = Array.from({ length: count }, (_, i) => {
    const due = new Date(Date.parse('2026-11-26T00:00:00Z') - (i % 200) * 86_400_000).toISOString().slice(0, 10);
    return { invoice_number: `TH-${String(i + 1).padStart(5, '0')}`, invoice_date: due, due_date: due, currency: 'EUR', total_amount: 10_000 + i, paid: 0, open: 10_000 + i };
  });
  return { customer: { id: 'c1', name: 'Ωμέγα Трейд', address: ['Main Street 5'] }, as_of: '2026-11-26', invoices, payments: [], activity: null };
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
    const stallHere = await longestStall(async () => (here = await renderStatement(data, details)));
    let there: Buffer = Buffer.alloc(0);
    const stallThere = await longestStall(async () => (there = await renderOffThread({ kind: 'statement', data, details })));

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
    files.forEach((pdf, i) => {
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
    const pdf = await renderOffThread({ kind: 'statement', data: statement(2), details });
    expect(pdfPages(pdf).join('\n')).toContain('TH-00002');
  });
});
