import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerProcess, startServe } from '../support/cli';

describe('ardesk serve --demo over real HTTP', () => {
  let dir: string;
  let server: ServerProcess;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ardesk-e2e-'));
    server = await startServe(['--port', '0', '--db', join(dir, 'x.sqlite'), '--demo']);
  });
  afterAll(async () => {
    if (server) await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function login(username: string, password: string) {
    const res = await fetch(`${server.url}/api/v1/auth/login/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username, password }),
    });
    return { status: res.status, body: (await res.json()) as any };
  }

  it('prints its URL on 127.0.0.1 with the port it picked', () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.url).not.toMatch(/:0$/);
  });

  it('logs demo/demo in and lists two companies; outsider sees one and gets 403 on the other', async () => {
    const demo = await login('demo', 'demo');
    expect(demo.status).toBe(200);
    expect(demo.body.companies).toHaveLength(2);
    const outsider = await login('outsider', 'outsider');
    expect(outsider.status).toBe(200);
    expect(outsider.body.companies).toHaveLength(1);
    const first = demo.body.companies.find((c: { id: string }) => c.id !== outsider.body.companies[0].id);
    const forbidden = await fetch(`${server.url}/api/companies/${first.id}/invoices`, { headers: { authorization: `Token ${outsider.body.token}` } });
    expect(forbidden.status).toBe(403);
    expect(forbidden.headers.get('content-type')).toContain('application/problem+json');
    const allowed = await fetch(`${server.url}/api/companies/${first.id}/invoices`, { headers: { authorization: `Token ${demo.body.token}` } });
    expect(allowed.status).toBe(200);
  });

  it('answers 401 without a token', async () => {
    const res = await fetch(`${server.url}/api/v1/auth/me/`);
    expect(res.status).toBe(401);
    expect(((await res.json()) as any).code).toBe('not_authenticated');
  });

  it('serves the OpenAPI document and the API reference', async () => {
    const doc = (await (await fetch(`${server.url}/api/openapi.json`)).json()) as any;
    expect(doc.openapi).toBe('3.1.0');
    expect((await fetch(`${server.url}/api/docs`)).status).toBe(200);
  });

  it('issues tokens for the configured lifetime', async () => {
    const short = await startServe(['--port', '0', '--db', join(dir, 'x.sqlite'), '--token-days', '2']);
    try {
      const res = await fetch(`${short.url}/api/v1/auth/login/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'demo', password: 'demo' }),
      });
      const body = (await res.json()) as { expires_at: string };
      const days = (Date.parse(body.expires_at) - Date.now()) / 86_400_000;
      expect(days).toBeGreaterThan(1.99);
      expect(days).toBeLessThanOrEqual(2);
    } finally {
      await short.stop();
    }
  });

  it('says in one line that --demo left a database with users alone, and why', async () => {
    expect(server.output()).toContain('demo workspace created: sign in as demo / demo');
    const file = join(dir, 'x.sqlite');
    const again = await startServe(['--port', '0', '--db', file, '--demo']);
    const output = again.output();
    expect(await again.stop()).toBe(0);
    expect(output).not.toContain('demo workspace created');
    const lines = output.split('\n').filter((line) => line.includes('demo workspace'));
    expect(lines).toEqual([`ardesk: demo workspace not created: ${file} already has users (sign in as one of them, or start on a new database file for the demo: --db FILE)`]);
  }, 120_000);

  it('stops cleanly on SIGTERM', async () => {
    const code = await server.stop();
    expect(code).toBe(0);
  });
});
