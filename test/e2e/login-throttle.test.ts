import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addressKey } from '../../core/auth/throttle';
import type { Runtime } from '../../core/runtime/server';
import { issueLaunchToken } from '../../electron/launch';
import { addCompany, addUser } from '../support/api';
import { type TestEngine, testEngine } from '../support/engine';
import { loginOverHttp, listen, rawRequest } from '../support/http';

const counts = (statuses: number[]) => statuses.reduce<Record<number, number>>((acc, s) => ({ ...acc, [s]: (acc[s] ?? 0) + 1 }), {});

describe('login throttle over real HTTP', () => {
  let engine: TestEngine;
  let server: Runtime;

  beforeEach(async () => {
    engine = await testEngine();
    const company = await addCompany(engine, 'Home');
    await addUser(engine, 'ana', [[company, 'owner']]);
    server = await listen(engine);
  });
  afterEach(async () => {
    await server.stop();
    await engine.dispose();
  });

  it('checks at most 5 passwords of a concurrent burst of 40 wrong ones, and the right one after them is throttled', async () => {
    const burst = await Promise.all(Array.from({ length: 40 }, (_, i) => loginOverHttp(server.url, 'ana', `wrong-${i}`)));
    const tally = counts(burst.map((r) => r.status));
    expect(tally[401]).toBe(5);
    expect(tally[429]).toBe(35);
    for (const r of burst.filter((b) => b.status === 429)) expect(Number(r.headers['retry-after'])).toBeGreaterThan(0);
    expect((await loginOverHttp(server.url, 'ana', 'ana-pw')).status).toBe(429);
  });

  it('checks at most 5 of 200 concurrent attempts, the right password among them', async () => {
    const burst = await Promise.all(Array.from({ length: 200 }, (_, i) => loginOverHttp(server.url, 'ana', i === 199 ? 'ana-pw' : `wrong-${i}`)));
    const tally = counts(burst.map((r) => r.status));
    expect((tally[401] ?? 0) + (tally[200] ?? 0)).toBeLessThanOrEqual(5);
    expect(tally[429]).toBeGreaterThanOrEqual(195);
  });

  it('keys on the username: wrong passwords spread over 127.0.0.30-42 get 5 checks in all', async () => {
    const statuses: number[] = [];
    for (let round = 0; round < 4; round++) {
      const wave = await Promise.all(Array.from({ length: 13 }, (_, i) => loginOverHttp(server.url, 'ana', `guess-${round}-${i}`, `127.0.0.${30 + i}`)));
      statuses.push(...wave.map((r) => r.status));
    }
    const tally = counts(statuses);
    expect(tally[401]).toBe(5);
    expect(tally[429]).toBe(47);
  });

  it('treats every loopback address as one client: 30 failures over many usernames and addresses, then 429', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) statuses.push((await loginOverHttp(server.url, `nobody-${i}`, 'x', `127.0.${i % 3}.${10 + i}`)).status);
    expect(counts(statuses)).toEqual({ 401: 30, 429: 10 });
  });

  it('leaves the desktop working while the password path is locked: its launch token needs no password', async () => {
    for (let i = 0; i < 6; i++) await loginOverHttp(server.url, 'ana', `wrong-${i}`);
    expect((await loginOverHttp(server.url, 'ana', 'ana-pw')).status).toBe(429);
    const launch = await issueLaunchToken(engine);
    const me = await rawRequest(`${server.url}/api/v1/auth/me/`, { headers: { authorization: `Token ${launch!.token}` } });
    expect(me.status).toBe(200);
    expect(JSON.parse(me.body).user.username).toBe('ana');
  });

  it('forgets the failures after 15 minutes, and a right password clears the user budget', async () => {
    for (let i = 0; i < 5; i++) expect((await loginOverHttp(server.url, 'ana', `wrong-${i}`)).status).toBe(401);
    expect((await loginOverHttp(server.url, 'ana', 'ana-pw')).status).toBe(429);
    engine.clock.set('2026-11-23T12:15:01.000Z');
    for (let i = 0; i < 4; i++) expect((await loginOverHttp(server.url, 'ana', `wrong-${i}`)).status).toBe(401);
    expect((await loginOverHttp(server.url, 'ana', 'ana-pw')).status).toBe(200);
    for (let i = 0; i < 4; i++) expect((await loginOverHttp(server.url, 'ana', `wrong-${i}`)).status).toBe(401);
    expect((await loginOverHttp(server.url, 'ana', 'ana-pw')).status).toBe(200);
  });
});

describe('addressKey', () => {
  it('makes every loopback address one key', () => {
    for (const a of ['127.0.0.1', '127.0.0.42', '127.255.1.2', '::1', '::ffff:127.0.0.9', 'local']) expect(addressKey(a)).toBe('loopback');
  });
  it('keys IPv4 peers exactly and IPv6 peers by /64', () => {
    expect(addressKey('192.0.2.7')).toBe('192.0.2.7');
    expect(addressKey('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(addressKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:0db8:0001:0002:ffff:0:0:9')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
  });
});

describe('login throttle behind a reverse proxy (--trust-proxy)', () => {
  let engine: TestEngine;
  let server: Runtime;

  const login = async (username: string, password: string, forwardedFor?: string) => {
    const res = await fetch(`${server.url}/api/v1/auth/login/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}) },
      body: JSON.stringify({ username, password }),
    });
    await res.arrayBuffer();
    return res.status;
  };

  beforeEach(async () => {
    engine = await testEngine();
    const company = await addCompany(engine, 'Home');
    await addUser(engine, 'ana', [[company, 'owner']]);
    server = await listen(engine, { trustProxy: true });
  });
  afterEach(async () => {
    await server.stop();
    await engine.dispose();
  });

  it("counts each forwarded client on its own: 30 anonymous failures from one lock that one out, not the team's right passwords from another", async () => {
    const statuses: number[] = [];
    // The client's own X-Forwarded-For entries come first; the proxy appends the address it saw.
    for (let i = 0; i < 32; i++) statuses.push(await login(`nobody-${i}`, 'x', `10.9.9.9, 203.0.113.7`));
    expect(counts(statuses)).toEqual({ 401: 30, 429: 2 });
    expect(await login('ana', 'ana-pw', '198.51.100.9')).toBe(200);
    expect(await login('ana', 'ana-pw', '203.0.113.7')).toBe(429);
  });

  it('without --trust-proxy, a forwarded address is not believed: every loopback peer is one client', async () => {
    await server.stop();
    server = await listen(engine);
    for (let i = 0; i < 30; i++) await login(`nobody-${i}`, 'x', `203.0.113.${i}`);
    expect(await login('ana', 'ana-pw', '198.51.100.9')).toBe(429);
  });
});
