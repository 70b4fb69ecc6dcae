/**
 * Documents in bounded memory (issue 37, N2/N7/N10), against the real server on a real port: logo
 * bombs refused at upload and harmless when already stored, the statement's cap with its CSV
 * alternative, and uploads capped in number at once. The heavy figures are in `npm run bench:documents`.
 */
import { request as httpRequest } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isBoundedPng, pngSize, svgProblem } from '../../core/documents/logo';
import { HEAVY_LINES } from '../../core/documents/render';
import { MAX_STATEMENT_LINES, StatementTooLongError, statementData } from '../../core/documents/statement';
import { runCommand, systemActor } from '../../core/engine';
import { UPLOAD_SLOTS } from '../../core/http/middleware/upload-slots';
import type { Runtime } from '../../core/runtime/server';
import { addCompany, addUser } from '../support/api';
import { PACKAGE_DIR } from '../support/cli';
import { type TestEngine, testEngine } from '../support/engine';
import { listen, loginOverHttp } from '../support/http';
import { ledger } from '../support/ledger-fixtures';
import { pdfText } from '../support/pdf';

const fixture = (name: string) => readFileSync(join(PACKAGE_DIR, 'test/fixtures/logos', name));

let engine: TestEngine;
let runtime: Runtime;
let token: string;
let base: string;
let companyId: string;

beforeAll(async () => {
  engine = await testEngine();
  companyId = await addCompany(engine, 'Bounded Supply');
  await addUser(engine, 'owner', [[companyId, 'owner']]);
  runtime = await listen(engine);
  token = JSON.parse((await loginOverHttp(runtime.url, 'owner', 'owner-pw')).body).token;
  base = `${runtime.url}/api/companies/${companyId}`;
});

afterAll(async () => {
  await runtime?.stop();
  await engine?.dispose();
});

const auth = () => ({ authorization: `Token ${token}` });

function uploadLogo(data: Buffer, name: string): Promise<Response> {
  const form = new FormData();
  form.set('file', new File([new Uint8Array(data)], name));
  return fetch(`${base}/document-details/logo`, { method: 'PUT', headers: auth(), body: form });
}

async function storedLogo(): Promise<{ logo_type: string | null; logo_base64: string | null }> {
  return engine.db.selectFrom('company_document_details').select(['logo_type', 'logo_base64']).where('company_id', '=', companyId).executeTakeFirstOrThrow();
}

/** `count` open invoices of one customer, written in one statement (the API would take minutes). */
async function bulkInvoices(customerId: string, count: number, prefix = 'BIG'): Promise<void> {
  await runCommand(engine, 'test_bulk_invoices', { actor: systemActor, companyId }, (tx) =>
    sql`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${count})
        INSERT INTO invoices (id, company_id, customer_id, customer_name, invoice_number, invoice_date, due_date, currency, total_amount, paid_amount, balance, transaction_type, created_at, updated_at)
        SELECT printf('00000000-0000-4000-8000-%012d', i + ${prefix === 'BIG' ? 0 : 500_000}), ${companyId}, ${customerId}, 'Big Account', ${prefix} || printf('-%06d', i), '2026-09-01', '2026-10-01', 'USD', 10000 + i, 0, 10000 + i, 'invoice', ${tx.now}, ${tx.now} FROM n`.execute(tx.db),
  );
}

describe('logos within bounds', () => {
  it('measures an SVG before drawing it: the 2.6 KB bomb of nested <use> is refused, a plain logo passes', () => {
    const bomb = fixture('use-bomb.svg').toString('utf8');
    expect(bomb.length).toBeLessThan(3000);
    expect(svgProblem(bomb)).toMatch(/more than 20000 shapes once its <use> references are followed/);
    expect(svgProblem('<svg xmlns="http://www.w3.org/2000/svg"><defs><g id="a"><use href="#b"/></g><g id="b"><use href="#a"/></g></defs><use href="#a"/></svg>')).toMatch(/in a loop/);
    expect(svgProblem('<!DOCTYPE svg [<!ENTITY a "aaaa">]><svg>&a;</svg>')).toMatch(/entities/);
    expect(svgProblem('<svg xmlns="http://www.w3.org/2000/svg"><defs><rect id="r" width="1" height="1"/></defs><use href="#r"/><use href="#r" x="2"/></svg>')).toBeNull();
  });

  it('reads the size of a PNG from its header alone: the 12000 x 12000 bomb is not drawn as it is, a 600 x 200 logo is', () => {
    expect(pngSize(fixture('pixel-bomb.png'))).toEqual({ width: 12000, height: 12000 });
    expect(isBoundedPng(fixture('pixel-bomb.png'))).toBe(false);
    expect(isBoundedPng(fixture('logo.png'))).toBe(true);
    expect(pngSize(fixture('wide.jpg'))).toBeNull();
  });

  it('refuses the SVG and PNG bombs at upload with words, keeping the logo there was; stores a JPEG as a PNG of at most 1200 x 400', async () => {
    const wide = await uploadLogo(fixture('wide.jpg'), 'wide.jpg');
    expect(wide.status).toBe(200);
    expect((await wide.json()).logo.type).toBe('image/png');
    const kept = await storedLogo();
    const png = Buffer.from(kept.logo_base64 as string, 'base64');
    // 3000 x 1000 scaled to fit 1200 x 400.
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1200, 400]);

    const svgBomb = await uploadLogo(fixture('use-bomb.svg'), 'logo.svg');
    expect(svgBomb.status).toBe(400);
    expect(svgBomb.headers.get('content-type')).toContain('application/problem+json');
    expect(await svgBomb.json()).toMatchObject({ code: 'invalid_logo', detail: expect.stringMatching(/SVG logo would draw more than 20000 shapes.*save it as a PNG/) });
    const pixelBomb = await uploadLogo(fixture('pixel-bomb.png'), 'logo.png');
    expect(pixelBomb.status).toBe(400);
    expect((await pixelBomb.json()).detail).toBe('The logo is 12000 x 12000 pixels; use an image of at most 25 million pixels (a logo needs no more than 1200 x 400)');
    expect(await storedLogo()).toEqual(kept);
  });

  it('a bomb already stored (by an older version, or synced in) is left out of every PDF, which is still made, in bounded memory', async () => {
    const l = ledger(engine, companyId);
    const customer = await l.customer({ name: 'Logo Bomb Victim Ltd' });
    const invoice = await l.invoice({ customer, number: 'LB-1', total: 120.5, dueDate: '2026-10-31' });
    const rssBefore = process.memoryUsage().rss;
    for (const [file, type] of [
      ['use-bomb.svg', 'image/svg+xml'],
      ['pixel-bomb.png', 'image/png'],
    ] as const) {
      await engine.db.updateTable('company_document_details').set({ logo_base64: fixture(file).toString('base64'), logo_type: type }).where('company_id', '=', companyId).execute();
      const [invoicePdf, statementPdf] = await Promise.all([fetch(`${base}/invoices/${invoice}/document.pdf`, { headers: auth() }), fetch(`${base}/customers/${customer}/statement.pdf`, { headers: auth() })]);
      expect([invoicePdf.status, statementPdf.status]).toEqual([200, 200]);
      expect(pdfText(Buffer.from(await invoicePdf.arrayBuffer()))).toContain('LB-1');
      expect(pdfText(Buffer.from(await statementPdf.arrayBuffer()))).toContain('Logo Bomb Victim Ltd');
      const logo = await fetch(`${base}/document-details/logo`, { headers: auth() });
      expect(logo.status).toBe(404);
      expect((await logo.json()).detail).toBe('The stored logo cannot be read within bounds; upload it again');
    }
    // The server runs in this process, whose worker also holds every earlier file's modules: what
    // drawing both bombs added is measured (before: 4.4 GB with the SVG, 2.5 GB with the PNG; the
    // server's own peak is in npm run bench:documents).
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(200 * 1024 * 1024);
  });
});

describe('statements within bounds', () => {
  it('stops reading a statement past its cap (150,000 lines for a PDF; here 100) and says what to ask for instead', async () => {
    const customer = await ledger(engine, companyId).customer({ name: 'Long Account' });
    await bulkInvoices(customer, 120);
    for (const asOf of ['2026-11-23', '2026-10-15']) {
      // Today's balances and a past date's (settled by then) are read by two queries, both capped.
      const refused = await statementData(engine.db, companyId, customer, { asOf }, '2026-11-23', 100).then(() => null, (err: unknown) => err);
      expect(refused).toBeInstanceOf(StatementTooLongError);
      expect(refused).toMatchObject({ status: 422, code: 'statement_too_long', message: expect.stringMatching(/more than 100 invoices and payments .* Download it as CSV \(statement\.csv\), or ask for a shorter activity period/) });
      expect((await statementData(engine.db, companyId, customer, { asOf }, '2026-11-23', 120)).invoices).toHaveLength(120);
    }
    expect(MAX_STATEMENT_LINES).toBe(150_000);
  });

  it(`draws long statements (over ${HEAVY_LINES} lines) one at a time, read on the thread, while other documents are made`, async () => {
    const l = ledger(engine, companyId);
    const long = await l.customer({ name: 'Long Statement Ltd' });
    await bulkInvoices(long, HEAVY_LINES + 1, 'LONG');
    const short = await l.customer({ name: 'Short Statement Ltd' });
    await l.invoice({ customer: short, number: 'SH-1', total: 10 });
    const ask = async (customer: string) => {
      const res = await fetch(`${base}/customers/${customer}/statement.pdf`, { headers: auth() });
      return { status: res.status, disposition: res.headers.get('content-disposition'), text: pdfText(Buffer.from(await res.arrayBuffer())) };
    };
    const [first, second, small] = await Promise.all([ask(long), ask(long), ask(short)]);
    for (const big of [first, second]) {
      expect(big.status).toBe(200);
      expect(big.disposition).toContain('Statement-Long-Statement-Ltd-2026-11-23.pdf');
      expect(big.text).toContain(`LONG-${String(HEAVY_LINES + 1).padStart(6, '0')}`);
    }
    expect(small.status).toBe(200);
    expect(small.text).toContain('SH-1');
  }, 60_000);

  it('gives the statement as CSV: the same lines, one table, amounts in major units', async () => {
    const l = ledger(engine, companyId);
    const customer = await l.customer({ name: 'Csv Account' });
    await l.invoice({ customer, number: '=HYPERLINK("x")', total: 1250.5, dueDate: '2026-11-01' });
    await l.invoice({ customer, number: 'CSV-2', total: 80, dueDate: '2026-12-20' });
    const csv = await fetch(`${base}/customers/${customer}/statement.csv`, { headers: auth() });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(csv.headers.get('content-disposition')).toContain('attachment; filename="Statement-Csv-Account-2026-11-23.csv"');
    expect((await csv.text()).split('\r\n')).toEqual([
      'Line,Date,Reference,Due date,Days past due,Currency,Amount,Paid,Open',
      // A formula-looking reference is quoted so a spreadsheet does not run it.
      `Open invoice,2026-10-02,"'=HYPERLINK(""x"")",2026-11-01,22,USD,1250.5,0,1250.5`,
      'Open invoice,2026-11-20,CSV-2,2026-12-20,,USD,80,0,80',
      '',
    ]);
    const bad = await fetch(`${base}/customers/${customer}/statement.csv?from=2026-11-01`, { headers: auth() });
    expect(bad.status).toBe(400);
  });
});

describe('uploads within bounds', () => {
  it(`reads at most ${UPLOAD_SLOTS} uploads at once: the next is told to retry (429, Retry-After), and is taken once one ends`, async () => {
    const logo = fixture('logo.png');
    const boundary = 'bounded-upload';
    const body = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="logo.png"\r\nContent-Type: image/png\r\n\r\n`),
      logo,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const url = new URL(`${base}/document-details/logo`);
    // Uploads whose bodies are still arriving: each holds a slot until its last byte.
    const held = Array.from({ length: UPLOAD_SLOTS }, () => {
      const req = httpRequest(url, { method: 'PUT', headers: { ...auth(), 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(body.length) } });
      const status = new Promise<number>((resolve, reject) => {
        req.on('response', (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
      });
      req.write(body.subarray(0, 100));
      return { req, status };
    });
    // The server has taken every held request once a probe past them is refused. A probe let in is
    // answered at once (415: not multipart), so it holds no slot a held request could need.
    let refused: Response | null = null;
    for (let tries = 0; tries < 200 && !refused; tries++) {
      const probe = await fetch(url, { method: 'PUT', headers: { ...auth(), 'content-type': 'application/octet-stream' }, body: 'x' });
      if (probe.status === 429) refused = probe;
      else expect(probe.status).toBe(415);
    }
    expect(refused?.status).toBe(429);
    expect(refused?.headers.get('retry-after')).toBe('5');
    expect(await refused?.json()).toMatchObject({ code: 'too_many_uploads', detail: `${UPLOAD_SLOTS} uploads are being read right now; send this one again in a few seconds` });
    for (const { req } of held) req.end(body.subarray(100));
    expect(await Promise.all(held.map((h) => h.status))).toEqual(Array(UPLOAD_SLOTS).fill(200));
    expect((await uploadLogo(logo, 'logo.png')).status).toBe(200);
  });
});
