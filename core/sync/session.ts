/**
 * A running desktop's sync: the loop while the database is connected, and the long operations
 * the app starts (the first download, a full resync) with their progress. The operations run in
 * the background so the app can show progress; the loop is paused while one runs, because both
 * write the synced companies.
 */
import type { Engine } from '../engine';
import { assertNothingPending, beginConnection, type ConnectOptions, disconnect, downloadCompanies, keptCompanies, resync, type SyncRound, syncOnce } from './client';
import { SyncHttpError } from './failure';
import { type LoopOptions, type LoopStatus, type SyncLoop, startSyncLoop } from './loop';
import type { AppFetch } from './operation';
import { syncState } from './state';

export interface TransferCompany {
  id: string;
  name: string;
  rows: number;
  done: boolean;
}

/** A first download or a full resync, as the Settings page shows it. */
export interface Transfer {
  kind: 'connect' | 'resync';
  state: 'running' | 'done' | 'failed';
  companies: TransferCompany[];
  /** Why it failed, in words. */
  error: string | null;
  started_at: string;
  finished_at: string | null;
}

export interface SyncSession {
  /** Starts the loop when the database is already connected (at start-up). */
  start(): Promise<void>;
  loop(): LoopStatus | null;
  transfer(): Transfer | null;
  /** A local write was queued: push it soon. */
  wake(): void;
  /** Signs in and checks at once (errors come back to the caller); downloads in the background. */
  connect(options: ConnectOptions): Promise<Transfer>;
  /** Checks at once that nothing is pending; downloads in the background. */
  resync(): Promise<Transfer>;
  syncNow(): Promise<SyncRound>;
  /** Resolves once the download running (if any) has ended, whichever way. */
  settled(): Promise<void>;
  disconnect(keepLocalCopy: boolean): Promise<{ companies: Array<{ id: string; name: string }> }>;
  stop(): Promise<void>;
}

export function createSyncSession(engine: Engine, localApp: AppFetch, loopOptions: LoopOptions): SyncSession {
  let loop: SyncLoop | null = null;
  let transfer: Transfer | null = null;
  let running: Promise<void> | null = null;

  async function startLoop() {
    if (!loop && (await syncState(engine.db)).role === 'replica') loop = startSyncLoop(engine, localApp, loopOptions);
  }

  async function stopLoop() {
    const stopping = loop;
    loop = null;
    await stopping?.stop();
  }

  function refuseWhileTransferring() {
    if (transfer?.state === 'running') throw new SyncHttpError(409, 'A download from the team server is still running: wait for it to finish', 'transfer_running');
  }

  /** Runs a download in the background, the loop paused, recording progress and the outcome. */
  function launch(kind: Transfer['kind'], companies: Array<{ id: string; name: string }>, work: (progress: (company: { id: string }, rows: number) => void) => Promise<unknown>): Transfer {
    const t: Transfer = {
      kind,
      state: 'running',
      companies: companies.map((c) => ({ id: c.id, name: c.name, rows: 0, done: false })),
      error: null,
      started_at: new Date().toISOString(),
      finished_at: null,
    };
    transfer = t;
    const progress = (company: { id: string }, rows: number) => {
      const entry = t.companies.find((c) => c.id === company.id);
      if (!entry) return;
      entry.rows = rows;
      // Companies are downloaded in order: progress on one means those before it are complete.
      for (const c of t.companies.slice(0, t.companies.indexOf(entry))) c.done = true;
    };
    running = work(progress)
      .then(() => {
        for (const c of t.companies) c.done = true;
        t.state = 'done';
      })
      .catch((err: unknown) => {
        t.state = 'failed';
        t.error = err instanceof Error ? err.message : String(err);
      })
      .finally(async () => {
        t.finished_at = new Date().toISOString();
        running = null;
        await startLoop();
      });
    return t;
  }

  return {
    start: startLoop,
    loop: () => loop?.status() ?? null,
    transfer: () => (transfer ? { ...transfer, companies: transfer.companies.map((c) => ({ ...c })) } : null),
    wake: () => loop?.wake(),

    async connect(options) {
      refuseWhileTransferring();
      const kept = new Set((await engine.db.selectFrom('sync_companies').select('company_id').execute()).map((c) => c.company_id));
      const already = options.companies.filter((c) => kept.has(c.toLowerCase()));
      if (already.length) throw new SyncHttpError(409, 'That company is already kept on this machine and syncing with the team server', 'company_already_local');
      await stopLoop();
      try {
        const { link, companies } = await beginConnection(engine, options);
        return launch('connect', companies, (progress) => downloadCompanies(engine, link, companies, (_m, company, rows) => progress(company, rows)));
      } catch (err) {
        await startLoop();
        throw err;
      }
    },

    async resync() {
      refuseWhileTransferring();
      const state = await syncState(engine.db);
      if (state.role !== 'replica') throw new SyncHttpError(409, 'This database is not connected to a team server', 'not_connected');
      await stopLoop();
      try {
        await assertNothingPending(engine);
      } catch (err) {
        await startLoop();
        throw err;
      }
      return launch('resync', await keptCompanies(engine), (progress) => resync(engine, (_m, company, rows) => progress(company, rows)));
    },

    async syncNow() {
      refuseWhileTransferring();
      // One round at a time: through the loop when it runs, so it never overlaps one of its own.
      return loop ? loop.syncNow() : syncOnce(engine, localApp);
    },

    settled: async () => {
      await running;
    },

    async disconnect(keepLocalCopy) {
      refuseWhileTransferring();
      await stopLoop();
      try {
        return await disconnect(engine, keepLocalCopy);
      } finally {
        await startLoop();
      }
    },

    async stop() {
      await running;
      await stopLoop();
    },
  };
}
