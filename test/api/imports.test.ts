import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../core/http/app';
import { addCompany, addUser, type App, call, loginAs } from '../support/api';
import { type TestEngine, testEngine } from '../support/engine';
import { AR_HEADER, AR_MAPPING, csv, IBM_AR_CSV, rowCount, workbook } from '../support/import-fixtures';
import { oneCellRows, rawWorkbook } from '../support/raw-xlsx';


/** A multipart upload the way a browser or `curl -F` sends one. */
async function upload(app: App, path: string, token: string | undefined, fields: Record<string, string | Blob>) {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) {
    if (value instanceof Blob) form.append(name, value, name === 'file' ? 'upload' : undefined);
    else form.append(name, value);
  }
  const res = await app.request(path, { method: 'POST', body: form, headers: token ? { authorization: `Token ${token}` } : {} });
  return { status: res.status, type: res.headers.get('content-type'), body: (await res.json()) as any };
}

const fileOf = (content: string | Uint8Array) => new Blob([content as BlobPart]);

const ROWS = [
  AR_HEADER,
  ['C-1', 'Globex', 'US', '', 'INV-1', '1/5/2026', '', '100.00', 'No', '100.00', '1/20/2026', 'ACH'],
  ['C-2', 'Initech', 'US', '', 'INV-2', '2/5/2026', '', '40.00', 'Yes', '', '', ''],
];

describe('POST /api/companies/{company_id}/imports', () => {
  let engine: TestEngine;
  let app: App;
  let token: string;
  let viewerToken: string;
  let company: string;
  let other: string;
  let path: string;

  beforeAll(async () => {
    engine = await testEngine('2026-11-23T12:00:00.000Z');
    app = createApp(engine);
    company = await addCompany(engine, 'Home');
    other = await addCompany(engine, 'Elsewhere');
    await addUser(engine, 'demo', [[company, 'owner']]);
    await addUser(engine, 'watcher', [[company, 'viewer']]);
    token = await loginAs(app, 'demo');
    viewerToken = await loginAs(app, 'watcher');
    path = `/api/companies/${company}/imports`;
  });
  afterAll(async () => engine.dispose());

  it('a dry run reports counts and every row error, and writes nothing', async () => {
    const bad = [...ROWS, ['C-3', 'Hooli', '', '', 'INV-3', '2/30/2026', '', '5', '', '', '', '']];
    const res = await upload(app, path, token, { file: fileOf(csv(bad)), mapping: JSON.stringify(AR_MAPPING), dry_run: 'true' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      dry_run: true,
      entity: 'ar-rows',
      preset: null,
      rows: 3,
      counts: { customers: { created: 2, updated: 0, unchanged: 0 }, invoices: { created: 2, updated: 0, unchanged: 0 }, payments: { created: 1, updated: 0, unchanged: 0 } },
      labels_created: ['Disputed'],
      notes: [],
      errors: [{ row: 4, column: 'Date', message: 'Invoice date: "2/30/2026" is not a date in the format M/D/YYYY' }],
    });
    expect(rowCount(engine, 'invoices')).toBe(0);
  });

  it('a real run with a bad row is refused with problem+json listing every row error', async () => {
    const bad = [...ROWS, ['C-3', 'Hooli', '', '', 'INV-3', '2/30/2026', '', 'x', '', '', '', '']];
    const res = await upload(app, path, token, { file: fileOf(csv(bad)), mapping: JSON.stringify(AR_MAPPING) });
    expect(res.status).toBe(400);
    expect(res.type).toBe('application/problem+json');
    expect(res.body).toMatchObject({
      status: 400,
      code: 'import_rejected',
      detail: '2 row error(s): nothing was imported',
      dry_run: false,
      errors: { 'row 4': ['Date: Invoice date: "2/30/2026" is not a date in the format M/D/YYYY', 'Amount: Total amount: "x" is not an amount (decimal separator ".")'] },
      row_errors: [
        { row: 4, column: 'Date', message: 'Invoice date: "2/30/2026" is not a date in the format M/D/YYYY' },
        { row: 4, column: 'Amount', message: 'Total amount: "x" is not an amount (decimal separator ".")' },
      ],
    });
    expect(rowCount(engine, 'customers')).toBe(0);
  });

  it('a real run writes, and sending the same file again changes nothing', async () => {
    const first = await upload(app, path, token, { file: fileOf(csv(ROWS)), mapping: JSON.stringify(AR_MAPPING), dry_run: 'false' });
    expect(first.status).toBe(200);
    expect(first.body.counts.invoices).toEqual({ created: 2, updated: 0, unchanged: 0 });
    const again = await upload(app, path, token, { file: fileOf(csv(ROWS)), mapping: JSON.stringify(AR_MAPPING) });
    expect(again.body.counts).toEqual({
      customers: { created: 0, updated: 0, unchanged: 2 },
      invoices: { created: 0, updated: 0, unchanged: 2 },
      payments: { created: 0, updated: 0, unchanged: 1 },
    });
    const changes = engine.database.sqlite.prepare("SELECT DISTINCT user_id FROM changes WHERE command = 'import'").all() as Array<{ user_id: string }>;
    expect(changes).toHaveLength(1);
    expect(changes[0].user_id).not.toBeNull();
  });

  it('reads an XLSX upload, with the entity given in the request', async () => {
    const bytes = await workbook({ Sheet1: [['Name', 'Terms'], ['Umbrella Corp', 60]] });
    const res = await upload(app, path, token, { file: fileOf(bytes), mapping: JSON.stringify({ customers: { name: 'Name', payment_terms_days: 'Terms' } }), entity: 'customers' });
    expect(res.status).toBe(200);
    expect(res.body.counts.customers).toEqual({ created: 1, updated: 0, unchanged: 0 });
  });

  it('imports the IBM sample through the ibm-ar preset', async () => {
    const fresh = await addCompany(engine, 'IBM sample');
    await addUser(engine, 'ibm', [[fresh, 'collector']]);
    const ibmToken = await loginAs(app, 'ibm');
    const res = await upload(app, `/api/companies/${fresh}/imports`, ibmToken, { file: fileOf(readFileSync(IBM_AR_CSV)), preset: 'ibm-ar' });
    expect(res.status).toBe(200);
    expect(res.body.counts).toEqual({
      customers: { created: 100, updated: 0, unchanged: 0 },
      invoices: { created: 2466, updated: 0, unchanged: 0 },
      payments: { created: 2466, updated: 0, unchanged: 0 },
    });
    const open = engine.database.sqlite.prepare("SELECT count(*) AS n FROM invoice_due_totals WHERE company_id = ? AND state = 'open'").get(fresh) as { n: number };
    expect(open.n).toBe(0);
  });

  it('imports the IBM sample with a hand mapping whose value map keeps its 561 disputes', async () => {
    const fresh = await addCompany(engine, 'IBM by hand');
    await addUser(engine, 'hand', [[fresh, 'collector']]);
    const handToken = await loginAs(app, 'hand');
    // What the wizard builds from its guess: columns by name, and Disputed = Yes as a label.
    const mapping = {
      entity: 'ar-rows',
      formats: { date: 'M/D/YYYY', decimal: '.' },
      customers: { remote_id: 'customerID', name: 'customerID', country: 'countryCode' },
      invoices: {
        invoice_number: 'invoiceNumber',
        invoice_date: 'InvoiceDate',
        due_date: 'DueDate',
        total_amount: 'InvoiceAmount',
        bill_channel: 'PaperlessBill',
        labels: [{ label: 'Disputed', column: 'Disputed', equals: 'Yes' }],
      },
      payments: { amount: 'InvoiceAmount', payment_date: 'SettledDate' },
    };
    const file = () => fileOf(readFileSync(IBM_AR_CSV));
    const res = await upload(app, `/api/companies/${fresh}/imports`, handToken, { file: file(), mapping: JSON.stringify(mapping) });
    expect(res.status, JSON.stringify(res.body.errors?.slice?.(0, 3))).toBe(200);
    expect(res.body.errors).toEqual([]);
    expect(res.body.labels_created).toEqual(['Disputed']);
    const labels = await call(app, 'GET', `/api/companies/${fresh}/labels`, { token: handToken });
    const disputed = labels.body.data.find((l: { name: string }) => l.name === 'Disputed');
    const listed = await call(app, 'GET', `/api/companies/${fresh}/invoices?labels=${disputed.id}&page_size=1`, { token: handToken });
    expect(listed.status).toBe(200);
    expect(listed.body.count).toBe(561);
    // Without the value map the same columns import, and the disputes are gone: the map is what keeps them.
    const bare = await addCompany(engine, 'IBM without the map');
    await addUser(engine, 'bare', [[bare, 'collector']]);
    const bareToken = await loginAs(app, 'bare');
    const withoutMap = { ...mapping, invoices: { ...mapping.invoices, labels: undefined } };
    const plain = await upload(app, `/api/companies/${bare}/imports`, bareToken, { file: file(), mapping: JSON.stringify(withoutMap) });
    expect(plain.status).toBe(200);
    expect(plain.body.labels_created).toEqual([]);
  });

  it('answers 400 for a bad mapping, preset, entity, flag or file', async () => {
    const file = fileOf(csv(ROWS));
    const cases: Array<[Record<string, string | Blob>, string]> = [
      [{ file, mapping: '{not json' }, 'mapping'],
      [{ file, mapping: JSON.stringify({ invoices: { number: 'Invoice' } }), entity: 'invoices' }, 'mapping.invoices'],
      [{ file, mapping: JSON.stringify({ customers: { name: 'Nope' } }), entity: 'customers' }, 'mapping.customers.name'],
      [{ file, preset: 'sap' }, 'preset'],
      [{ file }, 'mapping'],
      [{ file, preset: 'ibm-ar', mapping: '{}' }, 'mapping'],
      [{ file, preset: 'ibm-ar', entity: 'orders' }, 'entity'],
      [{ file, preset: 'ibm-ar', dry_run: 'maybe' }, 'dry_run'],
      [{ preset: 'ibm-ar' }, 'file'],
      [{ file: 'just text', preset: 'ibm-ar' }, 'file'],
      [{ file: fileOf('a,"b\n1,2'), preset: 'ibm-ar' }, 'file'],
      [{ file: fileOf(new Uint8Array([0x50, 0x4b, 0x03, 0x04, 1, 2, 3])), preset: 'ibm-ar' }, 'file'],
      [{ file, preset: 'ibm-ar', sheet: 'One' }, 'sheet'],
    ];
    for (const [fields, key] of cases) {
      const res = await upload(app, path, token, fields);
      expect(res.status, JSON.stringify(Object.keys(fields))).toBe(400);
      expect(res.type).toBe('application/problem+json');
      expect(Object.keys(res.body.errors ?? {}), `${key}: ${JSON.stringify(res.body)}`).toContain(key);
    }
  });

  it('answers 415 for a JSON body', async () => {
    const res = await call(app, 'POST', path, { token, body: { preset: 'ibm-ar' } });
    expect(res.status).toBe(415);
    expect(res.body.detail).toMatch(/multipart\/form-data/);
  });

  it('accepts files over the ordinary body limit, and answers 413 over the import limit', async () => {
    // 40 rows of 30 kB notes: over the 1 MB JSON limit, under the 50 MB import limit.
    const big = csv([['Name', 'Notes'], ...Array.from({ length: 40 }, (_, i) => [`C${i}`, 'x'.repeat(30_000)])]);
    const res = await upload(app, path, token, { file: fileOf(big), mapping: JSON.stringify({ customers: { name: 'Name', notes: 'Notes' } }), entity: 'customers', dry_run: 'true' });
    expect(res.status).toBe(200);
    expect(res.body.errors.map((e: any) => e.message)).toEqual(Array(40).fill('Customer notes: is longer than 5000 characters'));
    const small = createApp(engine, { maxImportBytes: 1024 });
    const tooBig = await upload(small, path, token, { file: fileOf('x'.repeat(4096)), preset: 'ibm-ar' });
    expect(tooBig.status).toBe(413);
    expect(tooBig.body.code).toBe('payload_too_large');
  });

  it('is closed to viewers, to other companies and without a token', async () => {
    const fields = () => ({ file: fileOf(csv(ROWS)), preset: 'ibm-ar' });
    expect((await upload(app, path, viewerToken, fields())).status).toBe(403);
    expect((await upload(app, `/api/companies/${other}/imports`, token, fields())).status).toBe(403);
    expect((await upload(app, '/api/companies/not-a-uuid/imports', token, fields())).status).toBe(404);
    // A multipart post without a token is what a form on another site could send: refused before auth.
    const anonymous = await upload(app, path, undefined, fields());
    expect(anonymous.status).toBe(403);
    expect(anonymous.body.code).toBe('cross_site_request');
  });
});

describe('GET /api/companies/{company_id}/imports/presets', () => {
  let engine: TestEngine;
  let app: App;

  beforeAll(async () => {
    engine = await testEngine('2026-11-23T12:00:00.000Z');
    app = createApp(engine);
  });
  afterAll(async () => engine.dispose());

  it('lists the built-in mappings, readable by a viewer', async () => {
    const company = await addCompany(engine, 'Home');
    await addUser(engine, 'watcher', [[company, 'viewer']]);
    const token = await loginAs(app, 'watcher');
    const res = await call(app, 'GET', `/api/companies/${company}/imports/presets`, { token });
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(11);
    expect(res.body.data[0]).toMatchObject({ name: 'ibm-ar', entity: 'ar-rows', mapping: { customers: { remote_id: 'customerID' } } });
    expect(res.body.data.map((p: { name: string }) => p.name)).toContain('qbo-ar-aging-detail');
  });

  it('documents the operations under Imports, marked as extensions', async () => {
    const doc = (await call(app, 'GET', '/api/openapi.json')).body;
    for (const op of [doc.paths['/api/companies/{company_id}/imports'].post, doc.paths['/api/companies/{company_id}/imports/presets'].get, doc.paths['/api/companies/{company_id}/import-watch'].put]) {
      expect(op.tags).toEqual(['Imports']);
      expect(op['x-extension']).toBe(true);
    }
    expect(doc.paths['/api/companies/{company_id}/imports'].post.requestBody.content['multipart/form-data']).toBeDefined();
    expect(doc.components.schemas.ImportMapping).toBeDefined();
  });
});

describe('POST /api/companies/{company_id}/imports/preview', () => {
  let engine: TestEngine;
  let app: App;
  let token: string;
  let path: string;

  beforeAll(async () => {
    engine = await testEngine('2026-11-23T12:00:00.000Z');
    app = createApp(engine);
    const company = await addCompany(engine, 'Home');
    await addUser(engine, 'demo', [[company, 'owner']]);
    token = await loginAs(app, 'demo');
    path = `/api/companies/${company}/imports/preview`;
  });
  afterAll(async () => engine.dispose());

  it('reads the header and the first five rows of a CSV as text, with the row count, and writes nothing', async () => {
    const rows = [AR_HEADER, ...Array.from({ length: 7 }, (_, i) => [`C-${i}`, `Customer ${i}`, 'US', '', `INV-${i}`, '1/5/2026', '', '10.00', 'No', '', '', ''])];
    const res = await upload(app, path, token, { file: fileOf(csv(rows)) });
    expect(res.status).toBe(200);
    expect(res.body.format).toBe('csv');
    expect(res.body.headers).toEqual(AR_HEADER);
    expect(res.body.row_count).toBe(7);
    expect(res.body.rows).toHaveLength(5);
    expect(res.body.rows[4].slice(0, 2)).toEqual(['C-4', 'Customer 4']);
    expect(rowCount(engine, 'customers')).toBe(0);
  });

  it('reads a sheet of a workbook (dates as YYYY-MM-DD) and a semicolon CSV', async () => {
    const xlsx = await workbook({ First: [['a']], Ledger: [['Invoice', 'Due', 'Amount'], ['INV-9', new Date(Date.UTC(2026, 0, 31)), 12.5]] });
    const res = await upload(app, path, token, { file: fileOf(xlsx), sheet: 'Ledger' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ format: 'xlsx', headers: ['Invoice', 'Due', 'Amount'], rows: [['INV-9', '2026-01-31', '12.5']], row_count: 1 });
    expect(res.body.columns.map((c: any) => [c.header, c.id, c.date, c.date_formats, c.amount])).toEqual([
      ['Invoice', true, false, [], false],
      ['Due', false, true, ['YYYY-MM-DD'], false],
      ['Amount', false, false, [], true],
    ]);
    const semi = await upload(app, path, token, { file: fileOf('Invoice;Amount\nINV-1;3,50\n'), delimiter: ';' });
    expect(semi.body.rows).toEqual([['INV-1', '3,50']]);
  });

  it('answers 400 for an empty file or a missing sheet, 415 without multipart', async () => {
    expect((await upload(app, path, token, { file: fileOf('') })).status).toBe(400);
    const xlsx = await workbook({ Only: [['a'], ['1']] });
    const missing = await upload(app, path, token, { file: fileOf(xlsx), sheet: 'Nope' });
    expect(missing.status).toBe(400);
    expect(missing.body.errors.sheet[0]).toMatch(/Only/);
    expect((await call(app, 'POST', path, { token, body: {} })).status).toBe(415);
  });
});

describe('files over the read limits (the probe: a file of blank lines, an XLSX row bomb)', () => {
  let engine: TestEngine;
  let app: App;
  let token: string;
  let base: string;

  beforeAll(async () => {
    engine = await testEngine('2026-11-23T12:00:00.000Z');
    app = createApp(engine);
    const company = await addCompany(engine, 'Home');
    await addUser(engine, 'demo', [[company, 'owner']]);
    token = await loginAs(app, 'demo');
    base = `/api/companies/${company}/imports`;
  });
  afterAll(async () => engine.dispose());

  const refused = (res: { status: number; type: string | null; body: any }, detail: RegExp) => {
    expect(res.status).toBe(413);
    expect(res.type).toBe('application/problem+json');
    expect(res.body).toMatchObject({ status: 413, code: 'file_too_large' });
    expect(res.body.detail).toMatch(detail);
    expect(res.body.errors.file[0]).toBe(res.body.detail);
  };

  it('refuses a header and 5,000,000 newlines at preview, dry run and import, writing nothing', async () => {
    const blank = fileOf('name' + '\n'.repeat(5_000_000));
    const mapping = JSON.stringify({ customers: { name: 'name' } });
    refused(await upload(app, `${base}/preview`, token, { file: blank }), /more than 200,000 rows/);
    refused(await upload(app, base, token, { file: blank, mapping, entity: 'customers', dry_run: 'true' }), /more than 200,000 rows/);
    refused(await upload(app, base, token, { file: blank, mapping, entity: 'customers' }), /more than 200,000 rows/);
    expect(rowCount(engine, 'customers')).toBe(0);
  });

  it('refuses a row of 201 columns and a cell of 40,000 characters', async () => {
    refused(await upload(app, `${base}/preview`, token, { file: fileOf('a\n' + ','.repeat(200)) }), /Row 2 has more than 200 columns/);
    refused(await upload(app, `${base}/preview`, token, { file: fileOf('a\n' + 'x'.repeat(40_000)) }), /A cell on row 2 has more than 32,767 characters/);
  });

  it('refuses a workbook of 250,000 one-cell rows before loading it, and one whose dimension says 3,000,000', async () => {
    refused(await upload(app, `${base}/preview`, token, { file: fileOf(rawWorkbook(oneCellRows(250_000))) }), /more than 200,000 rows/);
    refused(await upload(app, base, token, { file: fileOf(rawWorkbook(oneCellRows(2), 'A1:A3000000')), preset: 'ibm-ar', dry_run: 'true' }), /more than 200,000 rows/);
    const ok = await upload(app, `${base}/preview`, token, { file: fileOf(rawWorkbook(oneCellRows(3), 'A1:A3')) });
    expect(ok.body).toMatchObject({ format: 'xlsx', headers: ['x'], rows: [['x'], ['x']], row_count: 2 });
  });
});
