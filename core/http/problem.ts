import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { ZodError } from 'zod';
import { DomainError, type FieldErrors, TooManyRequestsError } from '../errors';
import { replayOf } from '../sync/operation';

/** RFC 9457 problem details, with a machine-readable code and per-field messages. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  errors?: FieldErrors;
}

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  421: 'Misdirected Request',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

export function problemBody(status: number, code: string, detail: string, errors?: FieldErrors): Problem {
  return {
    type: `https://ardesk.local/problems/${code}`,
    title: TITLES[status] ?? 'Error',
    status,
    detail,
    code,
    ...(errors ? { errors } : {}),
  };
}

export function problem(status: number, code: string, detail: string, errors?: FieldErrors, headers?: Record<string, string>): Response {
  return new Response(JSON.stringify(problemBody(status, code, detail, errors)), {
    status,
    headers: { 'content-type': 'application/problem+json', ...headers },
  });
}

/**
 * 413: the rest of a body past the drain bound (middleware/body-limit.ts) is left unread, so the
 * connection cannot carry another request. Saying so (Connection: close) makes a keep-alive client
 * open a new one instead of writing into a socket the server is about to drop.
 */
export function payloadTooLarge(detail: string): Response {
  return problem(413, 'payload_too_large', detail, undefined, { connection: 'close' });
}

/** zod issues as field -> messages, with dotted paths ("updates.payment_link"). */
export function fieldErrors(error: ZodError): FieldErrors {
  const out: FieldErrors = {};
  for (const issue of error.issues) {
    const key = issue.path.length ? issue.path.join('.') : 'non_field_errors';
    (out[key] ??= []).push(issue.message);
  }
  return out;
}

export function validationProblem(error: ZodError, target: string): Response {
  const where = target === 'json' ? 'The request body is' : target === 'query' ? 'The query parameters are' : target === 'param' ? 'The path is' : `The ${target} is`;
  return problem(400, 'validation_error', `${where} invalid`, fieldErrors(error));
}

/** The single error mapper: domain errors keep their status, everything unknown is a logged 500. */
export function errorToResponse(err: unknown, c: Context): Response {
  if (err instanceof TooManyRequestsError) {
    return problem(err.status, err.code, err.message, undefined, { 'retry-after': String(err.retryAfterSeconds) });
  }
  if (err instanceof DomainError) return problem(err.status, err.code, err.message, err.errors);
  if (err instanceof HTTPException) {
    const status = err.status as ContentfulStatusCode;
    if (status === 413) return payloadTooLarge('The request body is too large');
    if (status === 415) return problem(415, 'unsupported_media_type', 'Send the body as application/json');
    if (status === 400) return problem(400, 'malformed_request', err.message || 'The request could not be read');
    return problem(status, 'http_error', err.message || TITLES[status] || 'Error');
  }
  if (err instanceof SyntaxError) return problem(400, 'malformed_json', 'The request body is not valid JSON');
  // A replayed operation brings the identifiers of its first run; one already taken (another row
  // has it) is a conflict of that operation, not a fault of the server.
  if (replayOf(c) && /^SQLITE_CONSTRAINT_(PRIMARYKEY|UNIQUE)$/.test((err as { code?: unknown } | null)?.code as string)) {
    return problem(409, 'identifier_taken', 'An identifier or unique value this operation brings is already used');
  }
  console.error(`[ardesk] ${c.req.method} ${c.req.path} failed:`, err);
  return problem(500, 'internal_error', 'An unexpected error occurred');
}
