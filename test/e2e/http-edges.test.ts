import { mkdirSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { Agent } from 'node:http';
import diagnostics from 'node:diagnostics_channel';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../core/runtime/server';
import { type TestEngine, testEngine } from '../support/engine';
import { listen, rawRequest } from '../support/http';

describe('HTTP edges over a real port', () => {
  let engine: TestEngine;
  let server: Runtime;

  beforeAll(async () => {
    engine = await testEngine();
    const rendererDir = join(engine.dir, 'renderer');
    mkdirSync(join(rendererDir, 'assets'), { recursive: true });
    writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>ardesk</title>');
    server = await listen(engine, { rendererDir });
  });
  afterAll(async () => {
    await server.stop();
    await engine.dispose();
  });

  it('answers a malformed percent-escape in a page path with 400, unauthenticated, not 500', async () => {
    for (const path of ['/%', '/%zz', '/assets/%c0', '/a%e0%80', '/%%']) {
      const res = await rawRequest(`${server.url}${path}`);
      expect(res.status, path).toBe(400);
    }
    expect((await rawRequest(`${server.url}/invoices`)).status).toBe(200);
    expect((await rawRequest(`${server.url}/%41bc`)).status).toBe(200);
  });

  it('says Connection: close with a 413, and the next request on the same keep-alive agent succeeds', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const warm = await rawRequest(`${server.url}/api/v1/setup/`, { agent });
      expect(warm.status).toBe(200);
      const big = await rawRequest(`${server.url}/api/v1/auth/login/`, {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'x', password: 'y'.repeat(2 * 1024 * 1024) }),
      });
      expect(big.status).toBe(413);
      expect(big.headers.connection).toBe('close');
      expect(JSON.parse(big.body).code).toBe('payload_too_large');
      for (let i = 0; i < 3; i++) expect((await rawRequest(`${server.url}/api/v1/setup/`, { agent })).status).toBe(200);
    } finally {
      agent.destroy();
    }
  });

  it('reads an over-limit body (within a bound) before answering, so fetch gets the 413 document rather than EPIPE', async () => {
    // 6 MB against the 1 MB limit: more than the socket buffers hold, so the client is still
    // writing when the server answers.
    const res = await fetch(`${server.url}/api/v1/auth/login/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'x', password: 'y'.repeat(6 * 1024 * 1024) }),
    });
    expect(res.status).toBe(413);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect((await res.json()).code).toBe('payload_too_large');
    // The same for a chunked body with no Content-Length.
    const chunk = new TextEncoder().encode('y'.repeat(64 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 96) controller.enqueue(chunk);
        else controller.close();
      },
    });
    const chunked = await fetch(`${server.url}/api/v1/auth/login/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: stream, duplex: 'half' } as RequestInit);
    expect(chunked.status).toBe(413);
    expect((await chunked.json()).code).toBe('payload_too_large');
    expect((await fetch(`${server.url}/api/v1/setup/`)).status).toBe(200);
  });

  it('answers an over-limit body only once it has read it, so a client still writing is not cut off', async () => {
    const size = 2 * 1024 * 1024;
    const socket = connect(server.port, '127.0.0.1');
    await once(socket, 'connect');
    // The server's end of this connection (the server runs in this process), to see what it has read.
    let serverSide: Socket | null = null;
    const onRequest = (message: unknown) => {
      const { socket: s } = message as { socket: Socket };
      if (s.remotePort === socket.localPort) serverSide = s;
    };
    diagnostics.subscribe('http.server.request.start', onRequest);
    let answer = '';
    const errors: Error[] = [];
    socket.on('data', (d: Buffer) => (answer += d.toString('utf8')));
    socket.on('error', (e) => errors.push(e));
    const head = `POST /api/v1/auth/login/ HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nContent-Type: application/json\r\nContent-Length: ${size}\r\n\r\n`;
    socket.write(head);
    socket.write(Buffer.alloc(size / 2, 'y'));
    try {
      // The server has taken the request and read the first half of the body...
      await expect.poll(() => (serverSide as Socket | null)?.bytesRead ?? 0, { timeout: 10_000 }).toBeGreaterThanOrEqual(head.length + size / 2);
    } finally {
      diagnostics.unsubscribe('http.server.request.start', onRequest);
    }
    // ...and a request on another connection went there and back, so an early answer would be here by now.
    expect((await rawRequest(`${server.url}/api/v1/setup/`)).status).toBe(200);
    // Before the fix the 413 came at once and the socket closed under the rest of the body.
    expect(answer).toBe('');
    socket.end(Buffer.alloc(size / 2, 'y'));
    await once(socket, 'close');
    expect(errors).toEqual([]);
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toContain('"code":"payload_too_large"');
  });

  describe('state-changing requests a browser could send from another site', () => {
    const demo = (headers: Record<string, string>, body?: string) => rawRequest(`${server.url}/api/v1/setup/demo/`, { method: 'POST', headers, body });
    const initialized = async () => JSON.parse((await rawRequest(`${server.url}/api/v1/setup/`)).body).initialized as boolean;

    it('refuses a text/plain form post, an urlencoded form post and a no-cors fetch, each as Chromium sends it cross-site', async () => {
      const evil = { origin: 'http://evil.example', 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' };
      const attempts = [
        demo({ ...evil, 'content-type': 'text/plain' }, '{"a":1}'),
        demo({ ...evil, 'content-type': 'application/x-www-form-urlencoded' }, 'a=1'),
        demo({ ...evil, 'sec-fetch-mode': 'no-cors', 'content-length': '0' }),
        // Without the Fetch Metadata headers (older browsers), the content type alone is refused.
        demo({ origin: 'http://evil.example', 'content-type': 'text/plain' }, '{}'),
        demo({ 'content-type': 'multipart/form-data; boundary=x' }, '--x--'),
        // A page on another port of this machine is another origin too.
        demo({ origin: `http://127.0.0.1:${server.port + 1}`, 'sec-fetch-site': 'same-site', 'content-type': 'text/plain' }, '{}'),
        // Even JSON is refused when the browser says it comes from elsewhere.
        demo({ origin: 'http://evil.example', 'content-type': 'application/json', 'content-length': '0' }),
        demo({ origin: 'null', 'content-type': 'application/json', 'content-length': '0' }),
      ];
      for (const res of await Promise.all(attempts)) {
        expect(res.status).toBe(403);
        expect(JSON.parse(res.body).code).toBe('cross_site_request');
      }
      expect(await initialized()).toBe(false);
      const login = await rawRequest(`${server.url}/api/v1/auth/login/`, {
        method: 'POST',
        headers: { origin: 'http://evil.example', 'sec-fetch-site': 'cross-site', 'content-type': 'text/plain' },
        body: '{"username":"a","password":"b"}',
      });
      expect(login.status).toBe(403);
    });

    it('accepts the same request from its own origin, as the renderer sends it', async () => {
      const account = await rawRequest(`${server.url}/api/v1/setup/account/`, {
        method: 'POST',
        headers: { origin: server.url, 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'owner', password: 'secret-pw', company_name: 'Mine' }),
      });
      expect(account.status).toBe(201);
      const token = JSON.parse(account.body).token as string;
      // A scripted client (no Origin, no Fetch Metadata) with a token needs no JSON content type.
      const logout = await rawRequest(`${server.url}/api/v1/auth/logout/`, { method: 'POST', headers: { authorization: `Token ${token}` } });
      expect(logout.status).toBe(204);
    });
  });
});
