import createClient from 'openapi-fetch';
import type { paths } from './schema';

export type { components, operations, paths } from './schema';

/**
 * A typed client for ardesk's API, for scripts: paths, parameters, bodies and answers are checked
 * against the document the server serves (types generated into ./schema.d.ts).
 */
export function ardeskClient(baseUrl: string, token?: string) {
  return createClient<paths>({ baseUrl, headers: token ? { Authorization: `Token ${token}` } : {} });
}
