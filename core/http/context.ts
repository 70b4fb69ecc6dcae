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

/** The peer address, for throttling; app.request() in tests has no socket. */
export function clientAddress(c: Context): string {
  const incoming = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming;
  return incoming?.socket?.remoteAddress ?? 'local';
}
