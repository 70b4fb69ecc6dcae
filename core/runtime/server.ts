import { createServer as createHttpsServer } from 'node:https';
import { type AddressInfo, isIP } from 'node:net';
import { serve } from '@hono/node-server';
import { queueDueSnapshots } from '../analytics/snapshot-job';
import { queueTeamDigests } from '../analytics/team-digest';
import type { Engine } from '../engine';
import { createApp } from '../http/app';
import type { HttpOptions } from '../http/options';
import { startIntelligenceScheduler } from '../intelligence/jobs';
import { startRefreshProcess } from '../intelligence/refresh-process';
import { BULK_LANE, coreJobHandlers, SEND_LANE } from './job-handlers';
import { createWorker, WORKER_DEFAULTS } from '../jobs/worker';
import { startRecurring } from '../jobs/recurring';
import { setPortalLinkMaker } from '../email/portal-link';
import { mintPortalLink, portalUrl } from '../portal/links';
import { queuePromiseFollowups } from '../promises/job';
import { queueWatchedImports } from '../import/watch';
import { queueScheduledReplyReads, REPLY_READ_INTERVAL_MS } from '../replies/sync';
import { DEFAULT_SYNC_INTERVAL_MS } from '../sync/loop';
import { PUBLIC_WEBHOOKS } from '../webhooks/destination';
import { startWebhookLoop } from '../webhooks/loop';
import { createSyncSession } from '../sync/session';

export interface RuntimeOptions extends Partial<HttpOptions> {
  port: number;
  host: string;
  /** How often the background worker looks for due jobs (reminder emails, snapshots). */
  jobPollMs?: number;
  /** How often the daily aging snapshots are queued when due (the day may change while running). */
  snapshotCheckMs?: number;
  /** Certificate and key (PEM) to serve HTTPS instead of HTTP. */
  tls?: { cert: Buffer; key: Buffer };
  /** A connected desktop: how often it pulls when the team server has not poked it. */
  syncIntervalMs?: number;
  /** How often each mailbox is read for replies (default 5 minutes); 0 reads only on request. */
  replyReadIntervalMs?: number;
  /** The address customers reach this server at, for portal links (a reverse proxy's); this server's own by default. */
  portalUrl?: string;
  /** How often new events are read and due webhook deliveries sent (default 2 s). */
  webhookPollMs?: number;
}

const WEBHOOK_POLL_MS = 2000;

export interface Runtime {
  url: string;
  port: number;
  /** The intelligence refresh process's id while it runs (it starts with the first refresh). */
  refreshProcessId(): number | null;
  stop(): Promise<void>;
}

/**
 * The running service: the spec API on a real port plus the background workers, and on a
 * database connected to a team server the sync loop. The desktop main process and `ardesk serve`
 * both start exactly this.
 */
export async function startRuntime(engine: Engine, options: RuntimeOptions): Promise<Runtime> {
  const sync = createSyncSession(engine, (request, env) => Promise.resolve(app.request(request, undefined, env)), {
    intervalMs: options.syncIntervalMs ?? DEFAULT_SYNC_INTERVAL_MS,
    onRound: (round, error) => {
      if (error) console.error(`ardesk sync: ${error instanceof Error ? error.message : String(error)}`);
      else if (round && (round.pushed || round.pulled || round.rejected.length)) {
        console.log(`ardesk sync: pushed ${round.pushed}, rejected ${round.rejected.length}, pulled ${round.pulled}, pending ${round.pending}`);
      }
    },
  });
  // Where portal links point, known once the server listens.
  let portalBase: string | null = null;
  const app = createApp(engine, {
    ...options,
    portalBaseUrl: options.portalBaseUrl ?? (() => portalBase),
    // The Host guard knows 127.0.0.1, localhost and ::1; any other address listened on is named.
    allowedHosts: [...(options.allowedHosts ?? []), ...(['127.0.0.1', 'localhost', '::1'].includes(options.host) ? [] : [options.host])],
    sync,
  });
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const s = options.tls
      ? serve({ fetch: app.fetch, port: options.port, hostname: options.host, createServer: createHttpsServer, serverOptions: { cert: options.tls.cert, key: options.tls.key } }, () => resolve(s))
      : serve({ fetch: app.fetch, port: options.port, hostname: options.host }, () => resolve(s));
    s.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  const shownHost = options.host.includes(':') ? `[${options.host}]` : options.host;
  portalBase = options.portalUrl ?? `${options.tls ? 'https' : 'http'}://${shownHost}:${port}`;
  // Emails carry links only where customers can open them: a team server, or the address of a proxy
  // in front; a desktop's loopback portal is for the demo, its links made by hand.
  const base = portalBase;
  if (options.team || options.portalUrl) setPortalLinkMaker(async (tx, companyId, customerId) => portalUrl(base, (await mintPortalLink(tx, companyId, customerId)).token));
  // The intelligence refresh runs in a process of its own, off the loop that answers requests.
  const refresher = startRefreshProcess(engine.database.file, engine.clock);
  // A write of the server that finds the refresh holding the lock looks again every few ms, and the
  // refresh holds off between its transactions until that write is through (issue 37).
  const writeWait = engine.writeWait;
  engine.writeWait = { ...writeWait, maxPauseMs: SERVER_WRITE_PAUSE_MS, onBlocked: () => refresher.holdOff() };
  const refresh = (_: Engine, companyId: string, run: Parameters<typeof refresher.run>[1]) => refresher.run(companyId, run);
  const handlers = coreJobHandlers({ refresh });
  const poll = options.jobPollMs ? { pollMs: options.jobPollMs } : {};
  const workers = [createWorker(engine, { handlers, lane: SEND_LANE, ...poll }), createWorker(engine, { handlers, lane: BULK_LANE, ...poll })];
  for (const worker of workers) worker.start();
  // What the clock brings while the app stays open, each queued once per company and period on the
  // bulk lane: the day's aging snapshot and promise follow-up, the managers' weekly digest, the
  // nightly re-import of a watched file.
  const daily = startRecurring(
    [() => queueDueSnapshots(engine), () => queueTeamDigests(engine), () => queuePromiseFollowups(engine), () => queueWatchedImports(engine)],
    options.snapshotCheckMs ?? 10 * 60_000,
    WORKER_DEFAULTS.onError,
  );
  // Replies are read on a schedule: a reading job per connection per interval (and one at start),
  // unless the interval is 0 (read on request only).
  const replyReadIntervalMs = options.replyReadIntervalMs ?? REPLY_READ_INTERVAL_MS;
  const replyReads = startRecurring([() => queueScheduledReplyReads(engine, replyReadIntervalMs)], replyReadIntervalMs, WORKER_DEFAULTS.onError);
  const intelligence = startIntelligenceScheduler(engine, options.jobPollMs ? { pollMs: options.jobPollMs } : {});
  // Events and webhook deliveries: a lane of their own, never ahead of a customer's email.
  const webhooks = startWebhookLoop(engine, { rule: options.webhookRule ?? PUBLIC_WEBHOOKS, everyMs: options.webhookPollMs ?? WEBHOOK_POLL_MS, onError: WORKER_DEFAULTS.onError });
  await sync.start();
  return {
    url: `${options.tls ? 'https' : 'http'}://${shownHost}:${port}`,
    port,
    refreshProcessId: () => refresher.pid(),
    async stop() {
      setPortalLinkMaker(null);
      await sync.stop();
      await daily.stop();
      await replyReads.stop();
      // The job in hand finishes (and records its outcome) before the database can be closed; a
      // refresh in hand is stopped first (it may have minutes to go), and its job fails to be retried.
      await intelligence.stop();
      await webhooks.stop();
      const refreshClosed = refresher.close();
      await Promise.all(workers.map((worker) => worker.stop()));
      await refreshClosed;
      engine.writeWait = writeWait;
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      });
    },
  };
}

/** The longest pause between a server write's tries for the lock while another process writes. */
const SERVER_WRITE_PAUSE_MS = 5;

/** Loopback by address range: localhost, 127.0.0.0/8, ::1 and their IPv4-mapped forms (::ffff:127.x.y.z). */
export function isLoopback(host: string): boolean {
  const plain = host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (plain === 'localhost' || plain === '::1' || plain === '0:0:0:0:0:0:0:1') return true;
  const v4 = plain.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, '');
  return isIP(v4) === 4 && v4.split('.')[0] === '127';
}
