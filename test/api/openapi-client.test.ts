import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { serve, type ServerType } from '@hono/node-server';
import type { OpenAPI3 } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PUBLIC_API } from '../../core/http/app';
import { ardeskClient } from '../../core/http/client';
import { isPlural, operationIdFor, singular } from '../../core/http/operation-ids';
import { CLIENT_TYPES, generateClientTypes, servedDocument } from '../support/api-client';
import { useApiWorkspace } from '../support/api';

const repo = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

describe('operation names', () => {
  it('names operations after their method, resource and verb', () => {
    expect(operationIdFor('get', '/api/companies/{company_id}/invoices')).toBe('listInvoices');
    expect(operationIdFor('get', '/api/companies/{company_id}/invoices/{invoice_id}')).toBe('getInvoice');
    expect(operationIdFor('post', '/api/companies/{company_id}/actions/{action_id}/approve')).toBe('approveAction');
    expect(operationIdFor('post', '/api/companies/{company_id}/sequences/{sequence_id}/steps')).toBe('createSequenceStep');
    expect(operationIdFor('get', '/api/companies/{company_id}/customers/{customer_id}/statement.pdf')).toBe('getCustomerStatementPdf');
    expect(operationIdFor('delete', '/api/v1/auth/tokens/{token_id}/')).toBe('deleteAuthToken');
    expect(operationIdFor('post', '/api/companies/{company_id}/intelligence/refresh')).toBe('refreshIntelligence');
  });

  it('tells plurals from words that only end in s', () => {
    expect([singular('companies'), singular('email-connections'), singular('addresses'), singular('analytics')]).toEqual(['company', 'email-connection', 'address', 'analytics']);
    expect(isPlural('settings')).toBe(false);
  });
});

describe('the document a client generator reads', () => {
  let doc: OpenAPI3;
  beforeAll(async () => {
    doc = await servedDocument();
  });

  const operations = () =>
    Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
      Object.entries(item as Record<string, { operationId?: string; security?: unknown[]; tags?: string[] }>).map(([method, op]) => ({ path, method, op })),
    );

  it('gives every operation a unique camelCase operationId, an area tag and a declared security', () => {
    const ids = operations().map(({ op }) => op.operationId);
    expect(ids.filter((id) => !/^[a-z][A-Za-z0-9]*$/.test(id ?? ''))).toEqual([]);
    expect(ids.length - new Set(ids).size).toBe(0);
    expect(operations().filter(({ op }) => !Array.isArray(op.security) || op.tags?.length !== 1 || op.tags[0] === 'Extensions')).toEqual([]);
    const isPublic = (path: string) => PUBLIC_API.some((re) => re.test(path));
    expect(operations().filter(({ path, op }) => (op.security?.length === 0) !== isPublic(path)).map(({ method, path }) => `${method} ${path}`)).toEqual([]);
    expect(operations().filter(({ path }) => isPublic(path)).length).toBeGreaterThanOrEqual(5);
    expect(doc.servers?.length).toBeGreaterThan(0);
  });

  it('passes redocly lint with the recommended rules (core/http/redocly.yaml says what it turns off and why)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ardesk-lint-'));
    try {
      writeFileSync(join(dir, 'openapi.json'), JSON.stringify(doc));
      const lint = await run(join(repo, 'node_modules/.bin/redocly'), ['lint', join(dir, 'openapi.json'), '--config', join(repo, 'core/http/redocly.yaml'), '--format=json'], {
        cwd: dir,
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
        maxBuffer: 64 * 1024 * 1024,
      }).catch((e: { stdout: string }) => ({ stdout: e.stdout }));
      const problems = (JSON.parse(lint.stdout) as { problems: Array<{ ruleId: string; severity: string; message: string }> }).problems;
      expect(problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
      expect(problems.map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it(`matches the committed client types (${CLIENT_TYPES}; npm run api:client writes them anew)`, async () => {
    expect(await generateClientTypes(doc)).toBe(readFileSync(join(repo, CLIENT_TYPES), 'utf8'));
  });
});

describe('the typed client against a running server', () => {
  const w = useApiWorkspace();
  let server: ServerType;
  let baseUrl: string;
  beforeAll(async () => {
    server = serve({ fetch: w.app.fetch, hostname: '127.0.0.1', port: 0 });
    await new Promise((done) => server.once('listening', done));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((done) => server.close(done)));

  it('signs in, writes and reads with typed paths, and hands problems back typed', async () => {
    const login = await ardeskClient(baseUrl).POST('/api/v1/auth/login/', { body: { username: 'demo', password: 'demo-pw' } });
    expect(login.response.status).toBe(200);
    const api = ardeskClient(baseUrl, login.data!.token);
    const company_id = w.company;
    const made = await api.POST('/api/companies/{company_id}/customers', { params: { path: { company_id } }, body: { name: 'Typed Client Ltd' } });
    expect(made.response.status).toBe(201);
    const found = await api.GET('/api/companies/{company_id}/customers/{customer_id}', { params: { path: { company_id, customer_id: made.data!.id } } });
    expect(found.data?.name).toBe('Typed Client Ltd');
    const elsewhere = await api.GET('/api/companies/{company_id}/customers/{customer_id}', { params: { path: { company_id: w.other, customer_id: made.data!.id } } });
    expect(elsewhere.response.status).toBe(403);
    expect(elsewhere.error).toMatchObject({ status: 403 });
  });
});
