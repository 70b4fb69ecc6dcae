/**
 * Every operation of the app's own OpenAPI document gets hostile bodies and parameters. Routes
 * added later are swept without editing this file: a new route passes when it answers bad input
 * with a 4xx and changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../core/http/app';
import { seedDemo } from '../../core/seed';
import { setSyncRole } from '../../core/sync/triggers';
import { addCompany, addUser, type App, call, loginAs } from '../support/api';
import { oneCellRows, rawWorkbook } from '../support/raw-xlsx';
import { type TestEngine, testEngine } from '../support/engine';

interface Operation {
  method: string;
  path: string;
  hasJsonBody: boolean;
  /** The JSON body schema, $refs resolved at the top level. */
  bodySchema: Schema | null;
  queryParams: string[];
}

interface Schema {
  $ref?: string;
  type?: string | string[];
  format?: string;
  enum?: unknown[];
  example?: unknown;
  default?: unknown;
  minLength?: number;
  minimum?: number;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
}

const NUL = 'a\u0000b';
const LONE = 'x\ud800y';
const FAR_DATE = '9999-12-31';

/** Hostile JSON bodies: none of them is a valid request for any operation. */
const HOSTILE_BODIES: Array<[string, unknown]> = [
  ['unknown field', { __sweep_unknown_field__: 1 }],
  ['NUL in a field', { name: NUL, username: NUL, description: NUL, comment: NUL, reason: NUL, note: NUL, label: NUL, subject: NUL }],
  ['lone surrogate in a field', { name: LONE, username: LONE, description: LONE, comment: LONE, reason: LONE, note: LONE, label: LONE }],
  ['wrong types', { name: 12, amount: 'lots', total_amount: 'x', is_active: 'yes', customer_ids: 'all', invoice_ids: {}, status: 7 }],
  ['huge numbers', { amount: 1e308, total_amount: 1e308, offset_days: 1e300, page: 1e20, limit: -1e20 }],
  ['far dates', { start_date: FAR_DATE, due_date: FAR_DATE, payment_date: FAR_DATE, snapshot_date: FAR_DATE, as_of: FAR_DATE, invoice_date: '0000-00-00' }],
  ['malformed ids', { customer: 'garbage', customer_id: 'garbage', invoice: '../x', sequence_id: "'; drop table x", customer_ids: ['nope'], invoice_ids: ['nope'] }],
  ['empty strings with an unknown field', { name: '', username: '', password: '', __sweep_unknown_field__: '' }],
  ['oversized string with an unknown field', { name: 'x'.repeat(300_000), __sweep_unknown_field__: true }],
  ['an array', [1, 2, 3]],
  ['a bare string', 'just text'],
  ['null', null],
];

const HOSTILE_QUERY_VALUES = [NUL, '%ZZ', FAR_DATE, 'garbage', '-1', '1e400', 'x'.repeat(5000)];
/** The table holding the resource each path parameter names (the demo has a row of each, or a made-up id is used). */
const PARAM_TABLES: Record<string, string> = {
  invoice_id: 'invoices',
  action_id: 'actions',
  pk: 'insights',
  view_id: 'saved_views',
  payment_id: 'payments',
  customer_id: 'customers',
  label_id: 'labels',
  member_id: 'team_members',
  connection_id: 'email_connections',
  scheduled_step_id: 'scheduled_steps',
  sequence_id: 'sequences',
  step_id: 'sequence_steps',
  enrollment_id: 'sequence_enrollments',
};
const MADE_UP_ID = '0192f0c4-5f3e-7c4a-9a51-1f2e3d4c5b6a';

const HOSTILE_PATH_IDS = ['garbage', '..%2F..%2Fetc', '%00', 'FFFFFFFF-FFFF-7FFF-BFFF-FFFFFFFFFFFF', '1'.repeat(300)];

type Doc = { paths: Record<string, Record<string, any>>; components: { schemas: Record<string, Schema> } };

function resolve(doc: Doc, schema: Schema): Schema {
  return schema.$ref ? resolve(doc, doc.components.schemas[schema.$ref.replace('#/components/schemas/', '')]) : schema;
}

/**
 * A plausible body for a schema (required fields only, examples and enums used, ids of real
 * resources where the name says which), so that poisoning one field tests that field rather than
 * failing on a missing one.
 */
function sample(doc: Doc, raw: Schema, name: string, ids: Record<string, string>): unknown {
  const schema = resolve(doc, raw);
  if (schema.anyOf) return sample(doc, schema.anyOf[0], name, ids);
  if (schema.example !== undefined) return schema.example;
  if (schema.enum) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  if (type === 'object') {
    return Object.fromEntries((schema.required ?? []).map((k) => [k, sample(doc, schema.properties?.[k] ?? {}, k, ids)]));
  }
  if (type === 'array') return [];
  if (type === 'integer' || type === 'number') return Math.max(schema.minimum ?? 1, 1);
  if (type === 'boolean') return false;
  if (schema.format === 'uuid') return ids[name.endsWith('_id') ? name : `${name}_id`] ?? MADE_UP_ID;
  if (schema.format === 'date') return '2026-11-20';
  if (schema.format === 'date-time') return '2026-12-01T17:00:00Z';
  return 'sweep '.repeat(Math.ceil((schema.minLength ?? 1) / 6)).trim();
}

function operationsOf(doc: Doc): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of ['get', 'post', 'put', 'patch', 'delete']) {
      const op = item[method];
      if (!op) continue;
      const params = [...(item.parameters ?? []), ...(op.parameters ?? [])];
      ops.push({
        method: method.toUpperCase(),
        path,
        hasJsonBody: Boolean(op.requestBody?.content?.['application/json']),
        bodySchema: op.requestBody?.content?.['application/json']?.schema ? resolve(doc, op.requestBody.content['application/json'].schema) : null,
        queryParams: params.filter((p: any) => p.in === 'query').map((p: any) => p.name),
      });
    }
  }
  return ops;
}

describe('hostile sweep over every operation in the OpenAPI document', () => {
  let engine: TestEngine;
  let app: App;
  let token: string;
  let company: string;
  let ops: Operation[];
  const realIds: Record<string, string> = {};

  /** Rows changed through the engine's connection, and the audit trail: an invalid input must move neither. */
  const fingerprint = () => {
    const sqlite = engine.database.sqlite;
    const { n } = sqlite.prepare('SELECT total_changes() AS n').get() as { n: number };
    const { s } = sqlite.prepare('SELECT coalesce(max(seq), 0) AS s FROM changes').get() as { s: number };
    return `${n}/${s}`;
  };

  /** The path with the demo company and, for each other parameter, a real id of it (or `id` when given). */
  const fill = (path: string, id?: string) =>
    path.replace('{company_id}', company).replace(/\{([a-z_]+)\}/g, (_, name: string) => id ?? realIds[name] ?? MADE_UP_ID);

  beforeAll(async () => {
    engine = await testEngine();
    await seedDemo(engine);
    app = createApp(engine);
    const login = await call(app, 'POST', '/api/v1/auth/login/', { body: { username: 'demo', password: 'demo' } });
    token = login.body.token;
    company = login.body.companies.find((c: { name: string }) => c.name === 'Acme Industrial Supply').id;
    for (const [param, table] of Object.entries(PARAM_TABLES)) {
      const columns = engine.database.sqlite.prepare(`SELECT name FROM pragma_table_info('${table}')`).all() as Array<{ name: string }>;
      const scoped = columns.some((c) => c.name === 'company_id');
      const row = engine.database.sqlite.prepare(`SELECT id FROM "${table}"${scoped ? ' WHERE company_id = ?' : ''} LIMIT 1`).get(...(scoped ? [company] : [])) as
        | { id: string }
        | undefined;
      if (row) realIds[param] = row.id;
    }
    ops = operationsOf((await call(app, 'GET', '/api/openapi.json')).body as Doc);
  });
  afterAll(() => engine.dispose());

  it('finds the operations in the document and real resources for their paths', () => {
    expect(ops.length).toBeGreaterThan(60);
    expect(ops.filter((o) => o.hasJsonBody).length).toBeGreaterThan(30);
    expect(Object.keys(realIds).length).toBeGreaterThanOrEqual(10);
  });

  it('answers every hostile body with a 4xx and changes nothing', async () => {
    const failures: string[] = [];
    for (const op of ops.filter((o) => o.hasJsonBody)) {
      const path = fill(op.path);
      for (const [kind, body] of HOSTILE_BODIES) {
        const before = fingerprint();
        const res = await call(app, op.method, path, { token, body: body === null ? 'null' : body });
        const after = fingerprint();
        if (res.status >= 500) failures.push(`${op.method} ${op.path} [${kind}]: ${res.status}`);
        else if (res.status < 400) failures.push(`${op.method} ${op.path} [${kind}]: ${res.status} accepted an invalid body`);
        else if (before !== after) failures.push(`${op.method} ${op.path} [${kind}]: ${res.status} but the data changed`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('refuses NUL, an unpaired surrogate or an unknown field in each field of an otherwise plausible body, changing nothing', async () => {
    const failures: string[] = [];
    const doc = (await call(app, 'GET', '/api/openapi.json')).body as Doc;
    for (const op of ops.filter((o) => o.bodySchema?.properties)) {
      const path = fill(op.path);
      const base = sample(doc, op.bodySchema!, '', realIds) as Record<string, unknown>;
      const poisoned: Array<[string, Record<string, unknown>]> = [[`unknown field`, { ...base, __sweep_unknown_field__: 'x' }]];
      for (const name of Object.keys(op.bodySchema!.properties!)) {
        poisoned.push([`${name}=NUL`, { ...base, [name]: NUL }], [`${name}=lone surrogate`, { ...base, [name]: LONE }]);
      }
      for (const [kind, body] of poisoned) {
        const before = fingerprint();
        const res = await call(app, op.method, path, { token, body });
        if (res.status >= 500) failures.push(`${op.method} ${op.path} [${kind}]: ${res.status}`);
        else if (res.status < 400) failures.push(`${op.method} ${op.path} [${kind}]: ${res.status} accepted`);
        else if (before !== fingerprint()) failures.push(`${op.method} ${op.path} [${kind}]: ${res.status} but the data changed`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('answers hostile query values and path ids without a 5xx; a refusal changes nothing, and NUL is always refused', async () => {
    const failures: string[] = [];
    const check = async (op: Operation, url: string, label: string, invalid: boolean) => {
      const before = fingerprint();
      const res = await call(app, op.method, url, { token, ...(op.hasJsonBody ? { body: {} } : {}) });
      const changed = before !== fingerprint();
      if (res.status >= 500) failures.push(`${op.method} ${label}: ${res.status}`);
      else if (invalid && res.status < 400) failures.push(`${op.method} ${label}: ${res.status} accepted`);
      else if (res.status >= 400 && changed) failures.push(`${op.method} ${label}: ${res.status} but the data changed`);
    };
    for (const op of ops) {
      if (/\{(?!company_id)[a-z_]+\}/.test(op.path)) {
        for (const id of HOSTILE_PATH_IDS) await check(op, fill(op.path, id), `${op.path} id=${id.slice(0, 20)}`, true);
      }
      const path = fill(op.path);
      for (const name of op.queryParams) {
        for (const value of HOSTILE_QUERY_VALUES) {
          const q = value === '%ZZ' ? `${name}=%ZZ` : `${name}=${encodeURIComponent(value)}`;
          await check(op, `${path}${path.includes('?') ? '&' : '?'}${q}`, `${op.path}?${name}=${value.slice(0, 20)}`, value === NUL);
        }
      }
    }
    expect(failures).toEqual([]);
  });
});

describe('hostile sweep of the sync bodies and the import files, with their limits', () => {
  let engine: TestEngine;
  let app: App;
  let token: string;
  let company: string;

  const fingerprint = () => {
    const sqlite = engine.database.sqlite;
    const { n } = sqlite.prepare('SELECT total_changes() AS n').get() as { n: number };
    const { s } = sqlite.prepare('SELECT coalesce(max(seq), 0) AS s FROM changes').get() as { s: number };
    return `${n}/${s}`;
  };

  beforeAll(async () => {
    engine = await testEngine();
    setSyncRole(engine.database.sqlite, 'server');
    company = await addCompany(engine, 'Acme');
    await addUser(engine, 'ann', [[company, 'owner']]);
    app = createApp(engine);
    token = await loginAs(app, 'ann');
  });
  afterAll(() => engine.dispose());

  const mutation = (id: number, overrides: Record<string, unknown> = {}) => ({
    id,
    company_id: company,
    command: 'create_label',
    method: 'POST',
    path: `/api/companies/${company}/labels`,
    content_type: 'application/json',
    body: JSON.stringify({ name: `Label ${id}` }),
    body_encoding: 'utf8',
    ids: [],
    ...overrides,
  });

  it('answers hostile push and pull bodies with a 4xx (a refused mutation is an outcome, never a 5xx) and changes nothing', async () => {
    const client_id = '5b0c8c1e-54a4-4d59-9d0c-2f0f4e1f7a11';
    const refusedBodies: Array<[string, string, unknown]> = [
      ['push', '1,001 mutations', { client_id, mutations: Array.from({ length: 1_001 }, (_, i) => mutation(i + 1)) }],
      ['push', 'no mutations', { client_id, mutations: [] }],
      ['push', 'NUL in the path', { client_id, mutations: [mutation(1, { path: `/api/companies/${company}/labels\u0000` })] }],
      ['push', 'a path outside the company routes', { client_id, mutations: [mutation(1, { path: '/api/v1/auth/tokens/' })] }],
      ['push', 'an id that is not a UUID', { client_id, mutations: [mutation(1, { ids: ['../../etc/passwd'] })] }],
      ['push', 'a negative mutation id', { client_id, mutations: [mutation(-1)] }],
      ['push', 'an unknown field', { client_id, mutations: [mutation(1, { extra: true })] }],
      ['push', 'a method that reads', { client_id, mutations: [mutation(1, { method: 'GET' })] }],
      ['pull', 'a page of 20,001 rows', { client_id, companies: [{ company_id: company, cursor: null }], pending_from: 0, limit: 20_001 }],
      ['pull', '101 companies', { client_id, companies: Array.from({ length: 101 }, () => ({ company_id: company, cursor: null })), pending_from: 0 }],
      ['pull', 'an unknown field', { client_id, companies: [{ company_id: company, cursor: null, extra: 1 }], pending_from: 0 }],
    ];
    const failures: string[] = [];
    for (const [route, kind, body] of refusedBodies) {
      const before = fingerprint();
      const res = await call(app, 'POST', `/api/v1/sync/${route}`, { token, body });
      if (res.status < 400 || res.status >= 500 || before !== fingerprint()) failures.push(`${route} [${kind}]: ${res.status}`);
    }
    // Valid bodies whose mutations are refused: outcomes, recorded, nothing of theirs applied.
    const smuggled = await call(app, 'POST', '/api/v1/sync/push', {
      token,
      body: { client_id, mutations: [mutation(1, { path: `/api/companies/${company}/../../v1/auth/tokens/` }), mutation(2, { body: '{"name":' }), mutation(3, { body: '{"name": ""}' })] },
    });
    expect(smuggled.status).toBe(200);
    expect(smuggled.body.results.map((r: { status: string }) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    const garbage = await call(app, 'POST', '/api/v1/sync/pull', { token, body: { client_id, companies: [{ company_id: company, cursor: 'v.-1\u00ff' }], pending_from: 0 } });
    if (garbage.status >= 500) failures.push(`pull [a garbage cursor]: ${garbage.status}`);
    expect(failures).toEqual([]);
    expect(await engine.db.selectFrom('labels').select('id').execute()).toEqual([]);
  });

  it('refuses import files past the limits with a 413 problem at preview, dry run and import, changing nothing', async () => {
    const files: Array<[string, BlobPart]> = [
      ['a header and 300,000 newlines', 'name' + '\n'.repeat(300_000)],
      ['201 columns', 'a\n' + ','.repeat(200)],
      ['a cell of 40,000 characters', 'a\n' + 'x'.repeat(40_000)],
      ['a workbook of 250,000 rows', rawWorkbook(oneCellRows(250_000)) as BlobPart],
      ['a workbook whose dimension says 3,000,000 rows', rawWorkbook(oneCellRows(2), 'A1:A3000000') as BlobPart],
    ];
    const failures: string[] = [];
    for (const [kind, content] of files) {
      for (const [path, fields] of [
        ['imports/preview', {}],
        ['imports', { preset: 'ibm-ar', dry_run: 'true' }],
        ['imports', { preset: 'ibm-ar' }],
      ] as const) {
        const form = new FormData();
        form.append('file', new Blob([content]), 'upload');
        for (const [k, v] of Object.entries(fields)) form.append(k, v);
        const before = fingerprint();
        const res = await app.request(`/api/companies/${company}/${path}`, { method: 'POST', body: form, headers: { authorization: `Token ${token}` } });
        const body = (await res.json()) as { code?: string };
        if (res.status !== 413 || res.headers.get('content-type') !== 'application/problem+json' || body.code !== 'file_too_large' || before !== fingerprint()) {
          failures.push(`${path} ${JSON.stringify(fields)} [${kind}]: ${res.status} ${body.code}`);
        }
      }
    }
    expect(failures).toEqual([]);
  });
});
