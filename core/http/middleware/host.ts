import type { MiddlewareHandler } from 'hono';
import { problem } from '../problem';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

function hostnameOf(host: string): string {
  if (host.startsWith('[')) return host.slice(0, host.indexOf(']') + 1).toLowerCase();
  return host.split(':')[0].toLowerCase();
}

/**
 * DNS-rebinding guard: a page on another origin that resolves its name to 127.0.0.1 still sends
 * its own Host header, so only loopback names (and hosts the operator named) are served.
 */
export function hostGuard(extraHosts: string[] = []): MiddlewareHandler {
  const allowed = new Set([...LOOPBACK, ...extraHosts.map((h) => h.toLowerCase())]);
  return async (c, next) => {
    const host = c.req.header('host') ?? new URL(c.req.url).host;
    if (!host || !allowed.has(hostnameOf(host))) {
      return problem(421, 'host_not_allowed', `Host ${host ?? '(none)'} is not served here`);
    }
    await next();
  };
}
