import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { Engine } from './engine';
import { createApp, type HttpOptions } from './http/app';
import { coreJobHandlers } from './jobs/handlers';
import { createWorker } from './jobs/worker';
import { type SyncLoop, startSyncLoop } from './sync/loop';
import { syncState } from './sync/state';

export interface RuntimeOptions extends Partial<HttpOptions> {
  port: number;
  host: string;
  /** How often the background worker looks for due jobs (reminder emails). */
  jobPollMs?: number;
  /** Certificate and key (PEM) to serve HTTPS instead of HTTP. */
  tls?: { cert: Buffer; key: Buffer };
  /** A connected desktop: how often it pulls when the team server has not poked it. */
  syncIntervalMs?: number;
}

export interface Runtime {
  url: string;
  port: number;
  stop(): Promise<void>;
}

export const DEFAULT_SYNC_INTERVAL_MS = 30_000;

/**
 * The running service: the spec API on a real port plus the background workers, and on a
 * database connected to a team server the sync loop. The desktop main process and `ardesk serve`
 * both start exactly this.
 */
export async function startRuntime(engine: Engine, options: RuntimeOptions): Promise<Runtime> {
  let loop: SyncLoop | null = null;
  const app = createApp(engine, {
    ...options,
    allowedHosts: [...(options.allowedHosts ?? []), ...(isLoopback(options.host) ? [] : [options.host])],
    onMutationQueued: () => loop?.wake(),
    syncLoop: () => loop?.status() ?? null,
  });
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const s = options.tls
      ? serve({ fetch: app.fetch, port: options.port, hostname: options.host, createServer: createHttpsServer, serverOptions: { cert: options.tls.cert, key: options.tls.key } }, () => resolve(s))
      : serve({ fetch: app.fetch, port: options.port, hostname: options.host }, () => resolve(s));
    s.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  const shownHost = options.host.includes(':') ? `[${options.host}]` : options.host;
  const worker = createWorker(engine, { handlers: coreJobHandlers(), ...(options.jobPollMs ? { pollMs: options.jobPollMs } : {}) });
  worker.start();
  if ((await syncState(engine.db)).role === 'replica') {
    loop = startSyncLoop(engine, (request, env) => Promise.resolve(app.request(request, undefined, env)), {
      intervalMs: options.syncIntervalMs ?? DEFAULT_SYNC_INTERVAL_MS,
      onRound: (round, error) => {
        if (error) console.error(`ardesk sync: ${error instanceof Error ? error.message : String(error)}`);
        else if (round && (round.pushed || round.pulled || round.rejected.length)) {
          console.log(`ardesk sync: pushed ${round.pushed}, rejected ${round.rejected.length}, pulled ${round.pulled}, pending ${round.pending}`);
        }
      },
    });
  }
  return {
    url: `${options.tls ? 'https' : 'http'}://${shownHost}:${port}`,
    port,
    async stop() {
      await loop?.stop();
      // The job in hand finishes (and records its outcome) before the database can be closed.
      await worker.stop();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      });
    },
  };
}

export function isLoopback(host: string): boolean {
  return host === '127.0.0.1' || host === 'localhost' || host === '::1';
}
