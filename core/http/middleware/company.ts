import type { MiddlewareHandler } from 'hono';
import { membershipOf } from '../../auth/memberships';
import { isUuid } from '../../ids';
import type { AppEnv } from '../env';
import { problem } from '../problem';

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Writes a viewer may still make: generating a report file is a read, and saved views are the
 * user's own preferences, not company data.
 */
const VIEWER_WRITES = [/^\/api\/companies\/[^/]+\/ar-aging\/report-export$/, /^\/api\/companies\/[^/]+\/saved-views(\/[^/]+)?$/];

/**
 * Company scoping for /api/companies/{company_id}/...: the caller must be a member (403 that
 * says nothing about the company otherwise), and a viewer may only read.
 */
export function requireMembership(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const companyId = c.req.param('company_id') ?? '';
    if (!isUuid(companyId)) return problem(404, 'not_found', 'Company not found');
    const membership = await membershipOf(c.var.engine.db, c.var.user.id, companyId.toLowerCase());
    if (!membership) return problem(403, 'forbidden', 'You are not a member of this company');
    if (membership.role === 'viewer' && !READ_METHODS.has(c.req.method) && !VIEWER_WRITES.some((re) => re.test(c.req.path))) {
      return problem(403, 'read_only', 'Your role in this company is viewer: it can read but not change data');
    }
    c.set('membership', { company_id: companyId.toLowerCase(), role: membership.role });
    await next();
  };
}
