import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env';
import { problem } from '../problem';
import { DRAIN_BYTES, drain } from './body-limit';

/**
 * Uploads (imports, logos) held at once by one server. Each costs up to about twice its size while
 * it is read and parsed (85 MB for a 48 MB import), so twenty at once took 1.7 GB; four is 340 MB.
 */
export const UPLOAD_SLOTS = 4;
/** What a refused client is told to wait: an upload of the largest size takes a few seconds. */
export const UPLOAD_RETRY_AFTER_SECONDS = 5;

/**
 * Refuses an upload past `slots` in flight with 429 and Retry-After, before its body is kept. The
 * refused body is drained up to the same bound as a 413's (a client that writes the whole body
 * before reading the answer gets the 429, not a broken pipe).
 */
export function uploadSlots(slots = UPLOAD_SLOTS): MiddlewareHandler<AppEnv> {
  let inFlight = 0;
  return async (c, next) => {
    const body = c.req.raw.body;
    if (!body) return next();
    if (inFlight >= slots) {
      const declared = Number.parseInt(c.req.header('content-length') ?? '', 10);
      if (!(declared > DRAIN_BYTES)) await drain(body.getReader(), 0, DRAIN_BYTES);
      return problem(429, 'too_many_uploads', `${slots} uploads are being read right now; send this one again in a few seconds`, undefined, {
        'retry-after': String(UPLOAD_RETRY_AFTER_SECONDS),
        ...(declared > DRAIN_BYTES ? { connection: 'close' } : {}),
      });
    }
    inFlight++;
    try {
      await next();
    } finally {
      inFlight--;
    }
  };
}
