import { describe, expect, it } from 'vitest';
import { crossSiteRefusal, type RequestOrigin } from '../../core/http/middleware/cross-site';
import { untypeableStrings } from '../../core/http/middleware/typeable-text';
import { isTypeableText } from '../../core/text';

const script: RequestOrigin = { method: 'POST', host: '127.0.0.1:4870', origin: undefined, secFetchSite: undefined, contentType: 'application/json', hasAuthorization: false };

describe('crossSiteRefusal', () => {
  it('lets reads through whatever their origin', () => {
    for (const method of ['GET', 'HEAD', 'OPTIONS']) expect(crossSiteRefusal({ ...script, method, origin: 'http://evil.example', secFetchSite: 'cross-site', contentType: undefined })).toBeNull();
  });

  it('accepts a script (JSON or a token, no browser headers) and the renderer on its own origin', () => {
    expect(crossSiteRefusal(script)).toBeNull();
    expect(crossSiteRefusal({ ...script, contentType: undefined, hasAuthorization: true })).toBeNull();
    expect(crossSiteRefusal({ ...script, contentType: 'application/json; charset=utf-8' })).toBeNull();
    expect(crossSiteRefusal({ ...script, origin: 'http://127.0.0.1:4870', secFetchSite: 'same-origin' })).toBeNull();
    expect(crossSiteRefusal({ ...script, origin: 'https://127.0.0.1:4870', secFetchSite: 'none' })).toBeNull();
  });

  it('refuses what the browser says comes from elsewhere, even as JSON with a token', () => {
    for (const secFetchSite of ['cross-site', 'same-site', 'CROSS-SITE']) expect(crossSiteRefusal({ ...script, secFetchSite, hasAuthorization: true })).not.toBeNull();
    for (const origin of ['http://evil.example', 'http://127.0.0.1:4871', 'http://localhost:4870', 'null', 'not a url']) {
      expect(crossSiteRefusal({ ...script, origin, hasAuthorization: true }), origin).not.toBeNull();
    }
    expect(crossSiteRefusal({ ...script, origin: 'http://127.0.0.1:4870', host: undefined })).not.toBeNull();
  });

  it('refuses what a form or a no-cors fetch could send: no token and no JSON content type', () => {
    for (const contentType of [undefined, 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/jsonx']) {
      expect(crossSiteRefusal({ ...script, contentType }), String(contentType)).not.toBeNull();
    }
  });
});

describe('typeable text', () => {
  it('refuses NUL and unpaired surrogates, accepts paired ones', () => {
    expect(isTypeableText('plain, émoji 😀')).toBe(true);
    for (const bad of ['a\u0000b', 'x\ud800', '\udc00y', 'a\ud800b\udc00']) expect(isTypeableText(bad), JSON.stringify(bad)).toBe(false);
  });

  it('names every untypeable string of a JSON value by its dotted path, keys included', () => {
    expect(untypeableStrings({ a: 'ok', b: ['x', 'y\u0000'], c: { d: '\ud800' }, 'k\u0000': 1, n: 5 })).toEqual(['b.1', 'c.d', 'k\u0000']);
    expect(untypeableStrings('\u0000')).toEqual(['non_field_errors']);
    expect(untypeableStrings([{ ok: true }])).toEqual([]);
  });
});
