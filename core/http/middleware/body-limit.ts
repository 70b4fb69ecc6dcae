import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env';
import { payloadTooLarge } from '../problem';

/**
 * How far past its limit a refused body is still read (and dropped). A client such as fetch writes
 * the whole body before it reads the answer: answering at once and closing left it with EPIPE
 * instead of the 413 problem document. Past this bound the connection is closed unread, so a
 * huge upload costs the server no more than this.
 */
export const DRAIN_BYTES = 8 * 1024 * 1024;

/** Drops the rest of a body, up to `bound` bytes in all; past it, stops reading. */
export async function drain(reader: ReadableStreamDefaultReader<Uint8Array>, seen: number, bound: number): Promise<void> {
  for (let read = seen; read <= bound; ) {
    const { done, value } = await reader.read();
    if (done) return;
    read += value.byteLength;
  }
  await reader.cancel();
}

/**
 * Refuses a body over `limitOf(c)` bytes with a 413 problem+json, by its Content-Length before
 * any of it is kept, or while reading a chunked one.
 */
export function limitBody(limitOf: (c: Context<AppEnv>) => number): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const body = c.req.raw.body;
    if (!body) return next();
    const limit = limitOf(c);
    const tooLarge = () => payloadTooLarge(`The request body is larger than ${limit} bytes`);
    const declared = c.req.raw.headers.has('transfer-encoding') ? null : c.req.raw.headers.get('content-length');
    if (declared !== null) {
      const length = Number.parseInt(declared, 10);
      if (!(length > limit)) return next();
      if (length <= limit + DRAIN_BYTES) await drain(body.getReader(), 0, length);
      return tooLarge();
    }
    const reader = body.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        await drain(reader, size, limit + DRAIN_BYTES);
        return tooLarge();
      }
      chunks.push(value);
    }
    c.req.raw = new Request(c.req.raw, { body: Buffer.concat(chunks) });
    return next();
  };
}
