/**
 * Who may change where mail goes and what documents print (issue 36): the company details printed
 * on documents, the logo included, are changed by owners only; a collector gets a 403 problem and
 * nothing changes. (Email connections: test/api/email-connections.test.ts.)
 */
import { crc32, deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { Role } from '../../core/db/schema';
import { call, useApiWorkspace } from '../support/api';

/** A real 1x1 PNG. */
function onePixelPng(): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const out = Buffer.alloc(data.length + 12);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body), data.length + 8);
    return out;
  };
  const ihdr = Buffer.from([0, 0, 0, 1, 0, 0, 0, 1, 8, 2, 0, 0, 0]);
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(Buffer.from([0, 200, 40, 40]))), chunk('IEND', Buffer.alloc(0))]);
}

describe('owner-only company settings', () => {
  const COLLECTOR: Array<[string, Role]> = [['collector', 'collector']];
  const w = useApiWorkspace(COLLECTOR);
  const send = (method: string, path: string, body: unknown, as: string) => call(w.app, method, path, { token: as, body });
  const upload = async (as: string) => {
    const form = new FormData();
    form.set('file', new File([new Uint8Array(onePixelPng())], 'logo.png'));
    const res = await w.app.request(`${w.base}/document-details/logo`, { method: 'PUT', headers: { authorization: `Token ${as}` }, body: form });
    return { status: res.status, headers: res.headers, body: await res.json() };
  };

  it('a collector may read the document details but change none of them, the logo included', async () => {
    const before = (await send('GET', `${w.base}/document-details`, undefined, w.tokens.collector)).body;
    const refusals = [
      await send('PATCH', `${w.base}/document-details`, { legal_name: 'Collector GmbH' }, w.tokens.collector),
      // Refused before the body is checked: an invalid body gets the same 403, not a 400.
      await send('PATCH', `${w.base}/document-details`, { paper: 'A3' }, w.tokens.collector),
      await upload(w.tokens.collector),
      await send('DELETE', `${w.base}/document-details/logo`, undefined, w.tokens.collector),
    ];
    for (const r of refusals) {
      expect(r.status).toBe(403);
      expect(r.headers.get('content-type')).toContain('application/problem+json');
      expect(r.body).toMatchObject({ status: 403, code: 'owner_only', detail: 'Only an owner of this company can change the details its documents print' });
    }
    expect((await send('GET', `${w.base}/document-details`, undefined, w.tokens.collector)).body).toEqual(before);
  });

  it('an owner changes the details and the logo', async () => {
    const saved = await send('PATCH', `${w.base}/document-details`, { legal_name: 'Acme Supply GmbH' }, w.tokens.demo);
    expect(saved.status).toBe(200);
    expect(saved.body.legal_name).toBe('Acme Supply GmbH');
    const logo = await upload(w.tokens.demo);
    expect(logo.status).toBe(200);
    expect(logo.body.logo).not.toBeNull();
    // What the owner set, the collector reads; their own removal of the logo is still refused.
    expect((await send('DELETE', `${w.base}/document-details/logo`, undefined, w.tokens.collector)).status).toBe(403);
    expect((await send('GET', `${w.base}/document-details`, undefined, w.tokens.collector)).body).toMatchObject({ legal_name: 'Acme Supply GmbH', logo: logo.body.logo });
    const removed = await send('DELETE', `${w.base}/document-details/logo`, undefined, w.tokens.demo);
    expect(removed.status).toBe(200);
    expect(removed.body.logo).toBeNull();
  });
});
