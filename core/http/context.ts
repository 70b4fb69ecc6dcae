import { isIP } from 'node:net';
import type { Context } from 'hono';
import type { Actor } from '../engine';
import type { AppEnv } from './env';

export function actorOf(c: Context<AppEnv>): Actor {
  const user = c.var.user;
  return { userId: user.id, name: user.display_name };
}

/** The scope of a company route: the company from the path (checked by requireMembership) and the caller. */
export function scopeOf(c: Context<AppEnv>): { companyId: string; actor: Actor } {
  return { companyId: c.var.membership.company_id, actor: actorOf(c) };
}

/** The peer's address, or behind a trusted proxy the address it forwarded (see app.ts), for throttling; app.request() in tests has no socket. */
export function clientAddress(c: Context): string {
  const forwarded = (c.var as { forwardedFor?: string }).forwardedFor;
  if (forwarded) return forwarded;
  const incoming = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming;
  return incoming?.socket?.remoteAddress ?? 'local';
}

/**
 * The client address a reverse proxy forwarded: the last X-Forwarded-For entry, the one the proxy
 * itself appended (earlier entries are whatever the client sent). Null when absent or not an address.
 */
export function forwardedAddress(header: string | undefined): string | null {
  const last = header?.split(',').pop()?.trim();
  return last && isIP(last) ? last : null;
}
