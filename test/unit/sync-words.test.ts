import { describe, expect, it } from 'vitest';
import { SyncHttpError } from '../../core/sync/failure';
import { describeFailure } from '../../core/sync/failure';
import { commandInWords, syncSummary, transferLine } from '../../renderer/src/sync/words';

const base = { online: true, syncing: false, pending: 0, last_error: null, rejected: [] as unknown[] };

describe('sync state in words', () => {
  it('names commands as a person would', () => {
    expect(commandInWords('approve_action')).toBe('Approve action');
    expect(commandInWords('create_customer')).toBe('Create customer');
    expect(commandInWords('')).toBe('A change');
  });

  it('says what the indicator shows, worst news first', () => {
    expect(syncSummary(base)).toEqual({ tone: 'ok', label: 'Synced' });
    expect(syncSummary({ ...base, syncing: true, pending: 3 })).toEqual({ tone: 'busy', label: 'Syncing…' });
    expect(syncSummary({ ...base, pending: 1 })).toEqual({ tone: 'busy', label: '1 change waiting' });
    expect(syncSummary({ ...base, online: false, pending: 2 })).toEqual({ tone: 'warn', label: 'Team server unreachable: 2 changes waiting' });
    expect(syncSummary({ ...base, online: false })).toEqual({ tone: 'bad', label: 'Team server unreachable' });
    expect(syncSummary({ ...base, rejected: [{}, {}] })).toEqual({ tone: 'warn', label: '2 changes refused' });
  });

  it('says a download is running rather than offline, and how far it got', () => {
    expect(syncSummary({ ...base, online: false, transfer: { state: 'running' } })).toEqual({ tone: 'busy', label: 'Downloading from the team server…' });
    expect(transferLine({ name: 'Acme', rows: 12345, done: false })).toBe('Acme: 12,345 rows so far');
    expect(transferLine({ name: 'Acme', rows: 1, done: true })).toBe('Acme: 1 row downloaded');
  });
});

/** Errors shaped as Node's fetch (undici) reports them: TypeError('fetch failed') with the system error as cause. */
function fetchFailed(code: string): TypeError {
  return new TypeError('fetch failed', { cause: Object.assign(new Error(code), { code }) });
}

describe('team server failures in words (core/sync/failure)', () => {
  const url = 'https://team.example:4870';

  it('tells a wrong password from an expired desktop sign-in, and passes the server’s own words on', () => {
    expect(describeFailure(new SyncHttpError(401, 'Unable to log in'), url, true)).toEqual({ kind: 'sign_in_refused', status: 422, words: `The team server at ${url} refused this username and password` });
    expect(describeFailure(new SyncHttpError(401, 'Invalid token'), url, false)?.words).toMatch(/no longer accepts this desktop’s sign-in: disconnect and connect again/);
    expect(describeFailure(new SyncHttpError(403, 'This team server is on plain HTTP: sign-in and sync need TLS'), url, true)).toEqual({ kind: 'refused', status: 422, words: 'This team server is on plain HTTP: sign-in and sync need TLS' });
    expect(describeFailure(new SyncHttpError(503, 'HTTP 503'), url, false)).toMatchObject({ status: 502, words: `The team server at ${url} failed (HTTP 503)` });
    expect(describeFailure(new SyncHttpError(409, 'Already local', 'company_already_local'), url, true)).toEqual({ kind: 'refused', status: 409, words: 'Already local' });
  });

  it('names certificate and network problems', () => {
    expect(describeFailure(fetchFailed('DEPTH_ZERO_SELF_SIGNED_CERT'), url, true)).toMatchObject({ kind: 'tls_refused', words: expect.stringMatching(/self-signed and not trusted/) });
    expect(describeFailure(fetchFailed('ERR_TLS_CERT_ALTNAME_INVALID'), url, true)?.words).toMatch(/certificate is for another name/);
    expect(describeFailure(fetchFailed('ECONNREFUSED'), url, true)).toMatchObject({ kind: 'unreachable', status: 502, words: expect.stringMatching(/nothing answers at that address/) });
    expect(describeFailure(fetchFailed('ENOTFOUND'), url, true)?.words).toMatch(/host name is unknown/);
    expect(describeFailure(new DOMException('timed out', 'TimeoutError'), url, false)?.words).toBe(`The team server at ${url} did not answer in time`);
    expect(describeFailure(new SyntaxError('Unexpected token <'), url, true)).toMatchObject({ kind: 'not_ardesk', words: `${url} does not answer as an ardesk team server` });
  });

  it('leaves anything else alone: a bug stays a bug', () => {
    expect(describeFailure(new RangeError('boom'), url, false)).toBeNull();
    expect(describeFailure(new TypeError('x is not a function'), url, false)).toBeNull();
  });
});
