/**
 * Every operation of the app's own OpenAPI document gets hostile bodies and parameters. Routes
 * added later are swept without editing this file: a new route passes when it answers bad input
 * with a 4xx and changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiUsers, apiUsers, call, twoCompanies } from '../support/api';

interface Operation {
  method: string;
  path: string;
  hasJsonBody: boolean;
  queryParams: string[];
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
const HOSTILE_PATH_IDS = ['garbage', '..%2F..%2Fetc', '%00', 'FFFFFFFF-FFFF-7FFF-BFFF-FFFFFFFFFFFF', '1'.repeat(300)];

function operationsOf(doc: { paths: Record<string, Record<string, any>> }): Operation[] {
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
        queryParams: params.filter((p: any) => p.in === 'query').map((p: any) => p.name),
      });
    }
  }
  return ops;
}

describe('hostile sweep over every operation in the OpenAPI document', () => {
  let api: ApiUsers;
  let ops: Operation[];
  let company: string;

  /** Every row of every table: a 2xx for an invalid input must leave it unchanged. */
  const fingerprint = () => {
    const sqlite = api.engine.database.sqlite;
    const tables = sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '%fts%' ORDER BY name").all() as Array<{ name: string }>;
    return tables.map(({ name }) => `${name}:${(sqlite.prepare(`SELECT count(*) AS n FROM "${name}"`).get() as { n: number }).n}`).join(',') +
      `|changes:${(sqlite.prepare('SELECT coalesce(max(seq), 0) AS s FROM changes').get() as { s: number }).s}`;
  };

  const fill = (path: string, id: string) => path.replace('{company_id}', company).replace(/\{[a-z_]+\}/g, id);

  beforeAll(async () => {
    api = await apiUsers();
    ({ company } = await twoCompanies(api.engine));
    const doc = await call(api.app, 'GET', '/api/openapi.json');
    ops = operationsOf(doc.body);
  });
  afterAll(() => api.engine.dispose());

  it('finds the operations in the document', () => {
    expect(ops.length).toBeGreaterThan(60);
    expect(ops.filter((o) => o.hasJsonBody).length).toBeGreaterThan(30);
  });

  it('answers every hostile body with a 4xx and changes nothing', async () => {
    const failures: string[] = [];
    const token = api.tokens.demo;
    for (const op of ops.filter((o) => o.hasJsonBody)) {
      const path = fill(op.path, '0192f0c4-5f3e-7c4a-9a51-1f2e3d4c5b6a');
      for (const [kind, body] of HOSTILE_BODIES) {
        const before = fingerprint();
        const res = await call(api.app, op.method, path, { token, body: body === null ? 'null' : body });
        const after = fingerprint();
        if (res.status >= 500) failures.push(`${op.method} ${op.path} [${kind}]: ${res.status}`);
        else if (res.status < 400) failures.push(`${op.method} ${op.path} [${kind}]: ${res.status} accepted an invalid body`);
        else if (before !== after) failures.push(`${op.method} ${op.path} [${kind}]: ${res.status} but the data changed`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('answers hostile query values and path ids without a 5xx, and changes nothing unless the request is valid', async () => {
    const failures: string[] = [];
    const token = api.tokens.demo;
    for (const op of ops) {
      for (const id of HOSTILE_PATH_IDS) {
        if (!/\{(?!company_id)[a-z_]+\}/.test(op.path)) break;
        const before = fingerprint();
        const res = await call(api.app, op.method, fill(op.path, id), { token, ...(op.hasJsonBody ? { body: {} } : {}) });
        if (res.status >= 500) failures.push(`${op.method} ${op.path} id=${id}: ${res.status}`);
        else if (res.status < 400 && before !== fingerprint()) failures.push(`${op.method} ${op.path} id=${id}: ${res.status} changed data`);
      }
      const path = fill(op.path, '0192f0c4-5f3e-7c4a-9a51-1f2e3d4c5b6a');
      for (const name of op.queryParams) {
        for (const value of HOSTILE_QUERY_VALUES) {
          const before = fingerprint();
          const sep = path.includes('?') ? '&' : '?';
          const q = value === '%ZZ' ? `${name}=%ZZ` : `${name}=${encodeURIComponent(value)}`;
          const res = await call(api.app, op.method, `${path}${sep}${q}`, { token, ...(op.hasJsonBody ? { body: {} } : {}) });
          if (res.status >= 500) failures.push(`${op.method} ${op.path}?${name}=${value.slice(0, 20)}: ${res.status}`);
          else if (value === NUL && res.status < 400) failures.push(`${op.method} ${op.path}?${name}=NUL: ${res.status} accepted`);
          else if (res.status < 400 && before !== fingerprint()) failures.push(`${op.method} ${op.path}?${name}=${value.slice(0, 20)}: changed data`);
        }
      }
    }
    expect(failures).toEqual([]);
  });
});
