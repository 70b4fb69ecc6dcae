import { readFileSync } from 'node:fs';
import { DEFAULT_TOKEN_TTL_DAYS } from '../../auth/sessions';
import { createEngine } from '../../engine';
import { RENDERER_DIR } from '../../paths';
import { DEFAULT_SYNC_INTERVAL_MS, isLoopback, startRuntime } from '../../runtime';
import { syncState } from '../../sync/state';
import { setSyncRole } from '../../sync/triggers';
import { DB_OPTIONS, databaseFile, intOption, parse, UsageError } from '../options';
import { prepareDemo } from './demo';

export const SERVE_HELP =
  'ardesk serve [--port N] [--host H] [--db FILE | --data-dir DIR] [--demo] [--token-days N] [--team [--tls-cert F --tls-key F] [--insecure-http]] [--sync-interval SECONDS]';

/** Runs the spec API and the renderer headless until SIGINT or SIGTERM; with --team, as the team's sync server. */
export async function serveCommand(args: string[]): Promise<number> {
  const { values } = parse(args, {
    ...DB_OPTIONS,
    port: { type: 'string' },
    host: { type: 'string' },
    demo: { type: 'boolean' },
    'token-days': { type: 'string' },
    team: { type: 'boolean' },
    'tls-cert': { type: 'string' },
    'tls-key': { type: 'string' },
    'insecure-http': { type: 'boolean' },
    'sync-interval': { type: 'string' },
  });
  const file = databaseFile(values);
  const port = intOption(values.port, 'port', 4870, 0, 65535);
  const tokenTtlDays = intOption(values['token-days'], 'token-days', DEFAULT_TOKEN_TTL_DAYS, 1, 3650);
  const syncIntervalMs = intOption(values['sync-interval'], 'sync-interval', DEFAULT_SYNC_INTERVAL_MS / 1000, 1, 86_400) * 1000;
  const host = values.host ?? '127.0.0.1';
  if (!values.team && (values['tls-cert'] || values['tls-key'] || values['insecure-http'])) throw new UsageError('--tls-cert, --tls-key and --insecure-http go with --team');
  if (Boolean(values['tls-cert']) !== Boolean(values['tls-key'])) throw new UsageError('Give both --tls-cert and --tls-key');
  const tls = values['tls-cert'] && values['tls-key'] ? { cert: readFileSync(values['tls-cert']), key: readFileSync(values['tls-key']) } : undefined;
  const engine = await createEngine({ file });
  if (values.team) {
    if ((await syncState(engine.db)).role === 'replica') {
      await engine.close();
      throw new UsageError('This database is a desktop connected to a team server; a team server needs its own database');
    }
    setSyncRole(engine.database.sqlite, 'server');
  }
  if (values.demo) await prepareDemo(engine);
  const refuseCredentialsInClear = Boolean(values.team) && !tls && !isLoopback(host) && !values['insecure-http'];
  const runtime = await startRuntime(engine, { port, host, rendererDir: RENDERER_DIR, tokenTtlDays, tls, syncIntervalMs, refuseCredentialsInClear });
  console.log(`ardesk listening on ${runtime.url}${values.team ? ' (team server)' : ''}`);
  if (refuseCredentialsInClear) console.log('ardesk: plain HTTP on a network address: sign-in and sync are refused (give --tls-cert/--tls-key, or --insecure-http)');
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await runtime.stop();
  await engine.close();
  return 0;
}
