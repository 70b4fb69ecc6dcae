import type { MiddlewareHandler } from 'hono';
import { problem } from '../problem';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** What a browser says about where a request comes from, and what it carries. */
export interface RequestOrigin {
  method: string;
  /** The Host header: the server's own origin as the client reached it. */
  host: string | undefined;
  origin: string | undefined;
  secFetchSite: string | undefined;
  contentType: string | undefined;
  hasAuthorization: boolean;
}

/**
 * Why a state-changing request is refused as one a browser could send from another site, or null
 * when it may proceed. Two independent locks:
 * - a browser's own word: Sec-Fetch-Site other than same-origin/none, or an Origin whose host is
 *   not this server's Host, is refused;
 * - a request a page on another origin could send without a CORS preflight (which this server
 *   never grants) is refused: it must carry Authorization or Content-Type: application/json, neither
 *   of which a form post or a no-cors fetch can send.
 */
export function crossSiteRefusal(req: RequestOrigin): string | null {
  if (SAFE_METHODS.has(req.method)) return null;
  const site = req.secFetchSite?.toLowerCase();
  if (site && site !== 'same-origin' && site !== 'none') return `A ${site} request may not change anything here`;
  if (req.origin !== undefined && (req.host === undefined || hostOf(req.origin) !== hostOf(`http://${req.host}`))) return `Requests from ${req.origin} may not change anything here`;
  const mediaType = req.contentType?.split(';')[0].trim().toLowerCase();
  if (!req.hasAuthorization && mediaType !== 'application/json') return 'Send this request with Content-Type: application/json';
  return null;
}

/** The host (and port) of an origin; the scheme is left out, so a TLS proxy in front changes nothing. */
function hostOf(origin: string): string | null {
  try {
    return new URL(origin).host;
  } catch {
    return null;
  }
}

/** Refuses (403 cross_site_request) every state-changing request a browser could send cross-site. */
export function crossSiteGuard(): MiddlewareHandler {
  return async (c, next) => {
    const refusal = crossSiteRefusal({
      method: c.req.method,
      host: c.req.header('host') ?? new URL(c.req.url).host,
      origin: c.req.header('origin'),
      secFetchSite: c.req.header('sec-fetch-site'),
      contentType: c.req.header('content-type'),
      hasAuthorization: c.req.header('authorization') !== undefined,
    });
    if (refusal) return problem(403, 'cross_site_request', refusal);
    await next();
  };
}
