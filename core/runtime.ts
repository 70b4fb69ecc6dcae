import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { startSnapshotScheduler } from './analytics/snapshot-job';
import type { Engine } from './engine';
import { createApp, type HttpOptions } from './http/app';
import { startIntelligenceScheduler } from './intelligence/jobs';
import { coreJobHandlers } from './jobs/handlers';
import { createWorker, WORKER_DEFAULTS } from './jobs/worker';
import { queueScheduledReplyReads, REPLY_READ_INTERVAL_MS } from './replies/sync';

export interface RuntimeOptions extends Partial<HttpOptions> {
  port: number;
  host: string;
  /** How often the background worker looks for due jobs (reminder emails, snapshots). */
  jobPollMs?: number;
  /** How often the daily aging snapshots are queued when due (the day may change while running). */
  snapshotCheckMs?: number;
}

export interface Runtime {
  url: string;
  port: number;
  stop(): Promise<void>;
}

/**
 * The running service: the spec API on a real port plus the background workers. The desktop
 * main process and `ardesk serve` both start exactly this.
 */
export async function startRuntime(engine: Engine, options: RuntimeOptions): Promise<Runtime> {
  const app = createApp(engine, { ...options, allowedHosts: [...(options.allowedHosts ?? []), ...(isLoopback(options.host) ? [] : [options.host])] });
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, port: options.port, hostname: options.host }, () => resolve(s));
    s.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  const shownHost = options.host.includes(':') ? `[${options.host}]` : options.host;
  const worker = createWorker(engine, { handlers: coreJobHandlers(), ...(options.jobPollMs ? { pollMs: options.jobPollMs } : {}) });
  worker.start();
  const snapshots = startSnapshotScheduler(engine, options.snapshotCheckMs ?? 10 * 60_000, WORKER_DEFAULTS.onError);
  // Replies are read on a schedule: a reading job per connection per interval (and one at start).
  let queueing: Promise<unknown> = Promise.resolve();
  const queueReplyReads = () => {
    queueing = queueScheduledReplyReads(engine).catch(WORKER_DEFAULTS.onError);
  };
  queueReplyReads();
  const replyTimer = setInterval(queueReplyReads, REPLY_READ_INTERVAL_MS);
  replyTimer.unref();
  const intelligence = startIntelligenceScheduler(engine, options.jobPollMs ? { pollMs: options.jobPollMs } : {});
  return {
    url: `http://${shownHost}:${port}`,
    port,
    async stop() {
      await snapshots.stop();
      clearInterval(replyTimer);
      await queueing;
      // The job in hand finishes (and records its outcome) before the database can be closed.
      await intelligence.stop();
      await worker.stop();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      });
    },
  };
}

function isLoopback(host: string): boolean {
  return host === '127.0.0.1' || host === 'localhost' || host === '::1';
}
