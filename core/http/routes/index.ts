import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../env';
import { analyticsRoutes } from './analytics';
import { authRoutes } from './auth';
import { viewRoutes } from './views';

/**
 * The protected spec API, one router per area. Each router declares full paths; the app mounts
 * them all at '/' behind the token and company middleware.
 */
export function protectedRoutes(): OpenAPIHono<AppEnv>[] {
  return [authRoutes(), analyticsRoutes(), viewRoutes()];
}
