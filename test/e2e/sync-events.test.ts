/**
 * The team server's event stream: a user hears only about companies they are a member of, and
 * holds at most STREAMS_PER_USER streams at once (each is a socket and a timer on the server).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STREAMS_PER_USER } from '../../core/http/routes/sync';
import { addCompany } from '../support/api';
import { type Harness, startHarness } from '../support/sync-harness';

describe('GET /api/v1/sync/events', () => {
  let h: Harness;
  let token: string;
  let elsewhere: string;

  beforeAll(async () => {
    h = await startHarness(['ann']);
    elsewhere = await addCompany(h.server, 'Not Ann’s');
    const res = await fetch(`${h.url}/api/v1/auth/login/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'ann', password: 'ann-pw' }) });
    token = ((await res.json()) as { token: string }).token;
  });
  afterAll(async () => h.dispose());

  const open = (companies: string[], signal?: AbortSignal) =>
    fetch(`${h.url}/api/v1/sync/events?${companies.map((c) => `company_id=${c}`).join('&')}`, { headers: { authorization: `Token ${token}` }, signal });

  it('refuses a company the user is not a member of', async () => {
    const res = await open([h.companyId, elsewhere]);
    expect(res.status).toBe(403);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
  });

  it(`holds at most ${STREAMS_PER_USER} streams per user, and frees one when it closes`, async () => {
    const controllers = Array.from({ length: STREAMS_PER_USER }, () => new AbortController());
    const streams = await Promise.all(controllers.map((c) => open([h.companyId], c.signal)));
    expect(streams.map((s) => s.status)).toEqual(Array(STREAMS_PER_USER).fill(200));
    const over = await open([h.companyId]);
    expect(over.status).toBe(429);
    expect(((await over.json()) as { code: string }).code).toBe('too_many_streams');
    controllers[0].abort();
    await expect(streams[0].body!.getReader().read()).rejects.toThrow();
    let again: Response | null = null;
    for (let i = 0; i < 50 && again?.status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 50));
      again = await open([h.companyId], controllers[1].signal);
      if (again.status !== 200) await again.text();
    }
    expect(again?.status).toBe(200);
    for (const c of controllers) c.abort();
  });
});
