import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env';
import { problem } from '../problem';

/**
 * Writes only a company owner may make (where the company's mail goes, what its documents print):
 * anyone else gets a 403 `owner_only` before the body is read or checked.
 */
export function ownerOnly(what: string): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (c.var.membership.role !== 'owner') return problem(403, 'owner_only', `Only an owner of this company can change ${what}`);
    await next();
  };
}
