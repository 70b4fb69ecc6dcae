/**
 * A minimal keep-alive HTTP client for the benchmark: one socket, requests one after another, the
 * time from sending the request to the last byte of the body.
 */
import http from 'node:http';

export interface Timed {
  ms: number;
  status: number;
  body: Buffer;
  contentType: string;
}

export function keepAliveAgent(): http.Agent {
  return new http.Agent({ keepAlive: true, maxSockets: 1 });
}

export function timedRequest(agent: http.Agent, url: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Timed> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = http.request(url, { method: options.method ?? 'GET', agent, headers: options.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({
          ms: performance.now() - started,
          status: res.statusCode ?? 0,
          body: Buffer.concat(chunks),
          contentType: String(res.headers['content-type'] ?? ''),
        }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

export interface Stats {
  median: number;
  p95: number;
  p99: number;
  min: number;
  samples: number;
}

/** Median, 95th and 99th percentiles (nearest rank) of a sample. */
export function stats(values: number[]): Stats {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  return { median, p95: rank(0.95), p99: rank(0.99), min: sorted[0], samples: sorted.length };
}
