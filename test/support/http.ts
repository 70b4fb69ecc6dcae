import { request as httpRequest, type Agent } from 'node:http';
import { startRuntime, type Runtime, type RuntimeOptions } from '../../core/runtime/server';
import type { Engine } from '../../core/engine';

/** The real server of an engine on a free loopback port (in this process, so the test can reach the engine too). */
export function listen(engine: Engine, options: Partial<RuntimeOptions> = {}): Promise<Runtime> {
  return startRuntime(engine, { port: 0, host: '127.0.0.1', jobPollMs: 60_000, ...options });
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * One request over node:http, for what fetch hides: the client's source address (localAddress),
 * the exact headers a browser sends, a keep-alive agent.
 */
export function rawRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer; localAddress?: string; agent?: Agent } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: options.method ?? 'GET', headers: options.headers, localAddress: options.localAddress, agent: options.agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/** A JSON login over real HTTP, from `localAddress` when given. */
export function loginOverHttp(url: string, username: string, password: string, localAddress?: string): Promise<RawResponse> {
  return rawRequest(`${url}/api/v1/auth/login/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
    localAddress,
  });
}
