/**
 * Sync in one process, for property tests: a team server (real SQLite file, the real Hono app on a
 * real port) and desktops (real SQLite files, their own app) that sync over HTTP with it.
 */
import { createApp } from '../../core/http/app';
import { startRuntime, type Runtime } from '../../core/runtime/server';
import { connect, syncOnce, type SyncRound } from '../../core/sync/client';
import type { AppFetch } from '../../core/sync/operation';
import { setSyncRole } from '../../core/sync/triggers';
import { type App, addCompany, addUser, call, loginAs } from './api';
import { type TestEngine, testEngine } from './engine';

export interface Desktop {
  engine: TestEngine;
  app: App;
  token: string;
  sync(): Promise<SyncRound>;
  call(method: string, path: string, body?: unknown): ReturnType<typeof call>;
}

export interface Harness {
  server: TestEngine;
  serverApp: App;
  runtime: Runtime;
  url: string;
  companyId: string;
  /** A desktop connected as `username`, through `serverUrl` (a proxy) or straight to the server. */
  desktop(username: string, serverUrl?: string): Promise<Desktop>;
  dispose(): Promise<void>;
}

export function fetchOf(app: App): AppFetch {
  return (request, env) => Promise.resolve(app.request(request, undefined, env));
}

/** A team server with one company whose members are `usernames` (owners); passwords are `<name>-pw`. */
export async function startHarness(usernames: string[]): Promise<Harness> {
  const server = await testEngine();
  setSyncRole(server.database.sqlite, 'server');
  const companyId = await addCompany(server, 'Acme');
  for (const u of usernames) await addUser(server, u, [[companyId, 'owner']]);
  const runtime = await startRuntime(server, { port: 0, host: '127.0.0.1', jobPollMs: 3_600_000 });
  const desktops: Desktop[] = [];
  return {
    server,
    serverApp: createApp(server),
    runtime,
    url: runtime.url,
    companyId,
    async desktop(username, serverUrl = runtime.url) {
      const engine = await testEngine();
      await connect(engine, { serverUrl, username, password: `${username}-pw`, companies: [] });
      const app = createApp(engine);
      const token = await loginAs(app, username);
      const d: Desktop = {
        engine,
        app,
        token,
        sync: () => syncOnce(engine, fetchOf(app)),
        call: (method, path, body) => call(app, method, path, { token, body }),
      };
      desktops.push(d);
      return d;
    },
    async dispose() {
      for (const d of desktops) await d.engine.dispose();
      await runtime.stop();
      await server.dispose();
    },
  };
}
