import type { MiddlewareHandler } from 'hono';
import { isTypeableText } from '../../text';
import { TYPEABLE_TEXT_MESSAGE } from '../openapi';
import { problem } from '../problem';

/** Dotted paths of every string (keys included) in a JSON value that is not typeable text. */
export function untypeableStrings(value: unknown, path = ''): string[] {
  if (typeof value === 'string') return isTypeableText(value) ? [] : [path || 'non_field_errors'];
  if (Array.isArray(value)) return value.flatMap((v, i) => untypeableStrings(v, path ? `${path}.${i}` : String(i)));
  if (value && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) => {
      const at = path ? `${path}.${k}` : k;
      return isTypeableText(k) ? untypeableStrings(v, at) : [at];
    });
  }
  return [];
}

/**
 * The safety net behind Text(): no JSON body and no query parameter of any route may carry a NUL
 * or an unpaired surrogate, whether or not its schema says so, so a route added later cannot
 * store one. A body that is not JSON is left to the route's validator.
 */
export function refuseUntypeableText(): MiddlewareHandler {
  return async (c, next) => {
    const bad: string[] = [];
    const query = c.req.queries();
    for (const [name, values] of Object.entries(query)) if (!isTypeableText(name) || values.some((v) => !isTypeableText(v))) bad.push(name);
    if ((c.req.header('content-type') ?? '').toLowerCase().includes('application/json')) {
      try {
        bad.push(...untypeableStrings(JSON.parse(await c.req.raw.clone().text())));
      } catch {
        // Not JSON: the validator answers 400 malformed_json.
      }
    }
    if (bad.length) {
      return problem(400, 'validation_error', 'The request carries text with NUL characters or unpaired surrogates', Object.fromEntries(bad.map((k) => [k, [TYPEABLE_TEXT_MESSAGE]])));
    }
    await next();
  };
}
