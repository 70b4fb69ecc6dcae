import openapiTS, { type OpenAPI3 } from 'openapi-typescript';
import { createApp } from '../../core/http/app';
import { testEngine } from './engine';

export const CLIENT_TYPES = 'core/http/client/schema.d.ts';

const HEADER = '// The API\'s types, generated from /api/openapi.json by openapi-typescript: `npm run api:client`.\n// test/api/openapi-client.test.ts fails when this file and the served document drift apart.\n';

/** The served OpenAPI document, as a script would fetch it. */
export async function servedDocument(): Promise<OpenAPI3> {
  const engine = await testEngine();
  try {
    const res = await createApp(engine).request('/api/openapi.json');
    return (await res.json()) as OpenAPI3;
  } finally {
    await engine.dispose();
  }
}

/** The client's types as openapi-typescript writes them from the served document. */
export async function generateClientTypes(doc?: OpenAPI3): Promise<string> {
  return HEADER + (await openapiTS(doc ?? (await servedDocument())));
}
