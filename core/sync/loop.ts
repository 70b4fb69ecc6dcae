/**
 * A connected desktop syncs continuously: a round after every local write, when the team server
 * pokes (Server-Sent Events), and on an interval otherwise; after a failure it retries with a
 * growing delay and reports itself offline until a round succeeds.
 */
import type { Engine } from '../engine';
import { linkOf, type SyncRound, syncOnce } from './client';
import type { AppFetch } from './operation';

/** How often a connected desktop pulls when the team server has not poked it. */
export const DEFAULT_SYNC_INTERVAL_MS = 30_000;

export interface LoopStatus {
  online: boolean;
  syncing: boolean;
  /** Whether the server's event stream is open (pokes arrive). */
  live: boolean;
  lastRound: SyncRound | null;
}

export interface SyncLoop {
  wake(): void;
  /** A round now, after the one running if any; its outcome, or its failure thrown. */
  syncNow(): Promise<SyncRound>;
  status(): LoopStatus;
  stop(): Promise<void>;
}

export interface LoopOptions {
  intervalMs: number;
  /** Called after each round, for the log. */
  onRound?: (round: SyncRound | null, error: unknown) => void;
}

export function startSyncLoop(engine: Engine, localApp: AppFetch, options: LoopOptions): SyncLoop {
  let stopped = false;
  let running: Promise<void> | null = null;
  let again = false;
  let failures = 0;
  let timer: NodeJS.Timeout | null = null;
  const status: LoopStatus = { online: false, syncing: false, live: false, lastRound: null };
  const events = new AbortController();

  function schedule(ms: number) {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      wake();
    }, ms);
    timer.unref();
  }

  async function round(): Promise<{ ok: true; result: SyncRound } | { ok: false; error: unknown }> {
    status.syncing = true;
    try {
      const result = await syncOnce(engine, localApp);
      status.online = true;
      status.lastRound = result;
      failures = 0;
      options.onRound?.(result, null);
      schedule(options.intervalMs);
      return { ok: true, result };
    } catch (err) {
      status.online = false;
      failures += 1;
      options.onRound?.(null, err);
      schedule(Math.min(options.intervalMs, 500 * 2 ** Math.min(failures, 6)));
      return { ok: false, error: err };
    } finally {
      status.syncing = false;
    }
  }

  function wake() {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = settle(round());
  }

  function settle(r: Promise<unknown>): Promise<void> {
    return r.then(() => {
      running = null;
      if (again && !stopped) {
        again = false;
        wake();
      }
    });
  }

  async function syncNow(): Promise<SyncRound> {
    while (running) await running;
    const r = round();
    running = settle(r);
    const outcome = await r;
    if (!outcome.ok) throw outcome.error;
    return outcome.result;
  }

  async function listen() {
    while (!stopped) {
      try {
        const link = await linkOf(engine);
        if (!link) return;
        const companies = (await engine.db.selectFrom('sync_companies').select('company_id').execute()).map((c) => c.company_id);
        const url = new URL('/api/v1/sync/events', link.serverUrl);
        for (const id of companies) url.searchParams.append('company_id', id);
        const response = await fetch(url, { headers: { authorization: `Token ${link.token}` }, signal: events.signal });
        if (!response.ok || !response.body) throw new Error(`events: HTTP ${response.status}`);
        status.live = true;
        wake();
        const decoder = new TextDecoder();
        let buffer = '';
        for await (const chunk of response.body) {
          buffer += decoder.decode(chunk as Uint8Array, { stream: true });
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const message = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            if (/^event: poke$/m.test(message)) wake();
          }
        }
      } catch {
        // The server is away: the interval and the retries keep pulling; listen again shortly.
      }
      status.live = false;
      if (!stopped) await new Promise((r) => setTimeout(r, 1_000).unref());
    }
  }

  wake();
  void listen();
  return {
    wake,
    syncNow,
    status: () => ({ ...status }),
    async stop() {
      stopped = true;
      events.abort();
      if (timer) clearTimeout(timer);
      if (running) await running;
    },
  };
}
