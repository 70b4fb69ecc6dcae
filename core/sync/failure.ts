/**
 * A failed conversation with the team server, in a collector's words: the network error codes
 * and server answers behind "fetch failed" become what happened and what to do.
 */
import { DomainError } from '../errors';

/** A refusal: the team server's answer (no code), or this database's own check (a code). */
export class SyncHttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string | null = null,
  ) {
    super(message);
  }
}

/** Certificate problems Node reports (a self-signed or unknown authority, a wrong name, expired). */
const TLS_CODES: Record<string, string> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: 'its certificate is self-signed and not trusted on this machine',
  SELF_SIGNED_CERT_IN_CHAIN: 'its certificate comes from an authority this machine does not trust',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'its certificate comes from an authority this machine does not trust',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'its certificate could not be verified',
  CERT_HAS_EXPIRED: 'its certificate has expired',
  CERT_NOT_YET_VALID: 'its certificate is not valid yet',
  ERR_TLS_CERT_ALTNAME_INVALID: 'its certificate is for another name',
  EPROTO: 'it does not speak HTTPS at that address (try http://, or check the port)',
  ERR_SSL_WRONG_VERSION_NUMBER: 'it does not speak HTTPS at that address (try http://, or check the port)',
};

const NETWORK_CODES: Record<string, string> = {
  ECONNREFUSED: 'nothing answers at that address (is ardesk serve --team running, on that port?)',
  ENOTFOUND: 'that host name is unknown',
  EAI_AGAIN: 'that host name could not be looked up (no network?)',
  EHOSTUNREACH: 'the host cannot be reached (no network?)',
  ENETUNREACH: 'the network cannot be reached',
  ECONNRESET: 'the connection was cut',
  ETIMEDOUT: 'it did not answer in time',
  UND_ERR_CONNECT_TIMEOUT: 'it did not answer in time',
  UND_ERR_SOCKET: 'the connection was cut',
};

export type FailureKind = 'sign_in_refused' | 'refused' | 'tls_refused' | 'unreachable' | 'not_ardesk';

export interface Failure {
  kind: FailureKind;
  /** HTTP status for the local API's answer. */
  status: number;
  words: string;
}

function causeCode(err: unknown): string | null {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (code in TLS_CODES || code in NETWORK_CODES)) return code;
  }
  return null;
}

/**
 * What went wrong, or null when `err` is not about the team server (a bug stays a bug).
 * `signingIn`: a 401 then means the username or password, not an expired desktop sign-in.
 */
export function describeFailure(err: unknown, serverUrl: string, signingIn: boolean): Failure | null {
  if (err instanceof SyncHttpError) {
    if (err.code) return { kind: 'refused', status: err.status, words: err.message };
    if (err.status === 401) {
      return signingIn
        ? { kind: 'sign_in_refused', status: 422, words: `The team server at ${serverUrl} refused this username and password` }
        : { kind: 'sign_in_refused', status: 422, words: 'The team server no longer accepts this desktop’s sign-in: disconnect and connect again' };
    }
    if (err.status >= 500) return { kind: 'refused', status: 502, words: `The team server at ${serverUrl} failed (${err.message})` };
    return { kind: 'refused', status: err.status === 429 ? 429 : 422, words: err.message };
  }
  if (err instanceof SyntaxError) return { kind: 'not_ardesk', status: 502, words: `${serverUrl} does not answer as an ardesk team server` };
  if (err instanceof DOMException && err.name === 'TimeoutError') return { kind: 'unreachable', status: 502, words: `The team server at ${serverUrl} did not answer in time` };
  const code = causeCode(err);
  if (code && code in TLS_CODES) return { kind: 'tls_refused', status: 502, words: `The connection to ${serverUrl} was refused: ${TLS_CODES[code]}` };
  if (code) return { kind: 'unreachable', status: 502, words: `Could not reach the team server at ${serverUrl}: ${NETWORK_CODES[code]}` };
  // fetch refuses ports kept for other protocols (1, 7, 25, ...) before dialling.
  if ((err as { cause?: { message?: unknown } } | null)?.cause?.message === 'bad port') {
    return { kind: 'unreachable', status: 502, words: `Could not reach the team server at ${serverUrl}: that port is reserved for another protocol (the team server's default is 4870)` };
  }
  if (err instanceof TypeError && /fetch failed/i.test(err.message)) return { kind: 'unreachable', status: 502, words: `Could not reach the team server at ${serverUrl}` };
  return null;
}

/** The failure as the local API's problem (team_server_…), or the error itself when it is not one. */
export function asProblem(err: unknown, serverUrl: string, signingIn: boolean): unknown {
  const failure = describeFailure(err, serverUrl, signingIn);
  if (!failure) return err;
  return new DomainError(failure.status, err instanceof SyncHttpError && err.code ? err.code : `team_server_${failure.kind}`, failure.words);
}
