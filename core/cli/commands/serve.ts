import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DEFAULT_TOKEN_TTL_DAYS } from '../../auth/sessions';
import { type MailEndpointRule, USUAL_MAIL_PORTS } from '../../email/endpoints';
import { openEngine } from '../../runtime/engine';
import { RENDERER_DIR } from '../../paths';
import { isLoopback, type Runtime, startRuntime } from '../../runtime/server';
import { portHolder } from '../port';
import { DEFAULT_SYNC_INTERVAL_MS } from '../../sync/loop';
import { REPLY_READ_INTERVAL_MS } from '../../replies/sync';
import { prepareDemo } from '../../seed/demo';
import { syncState } from '../../sync/state';
import { setSyncRole } from '../../sync/triggers';
import { PUBLIC_WEBHOOKS, type WebhookHostRule } from '../../webhooks/destination';
import { DB_OPTIONS, databaseFile, intOption, parse, readOptionFile, UsageError } from '../options';

/**
 * --mail-ports 25,587 or any (default: the usual SMTP and IMAP ports); --mail-hosts a,b (default:
 * any host but private and loopback addresses, which only --mail-hosts can allow).
 */
/** --webhook-hosts a,b: private or loopback hosts webhooks may go to (default: none, public addresses only). */
export function webhookRuleOf(hosts: string | undefined): WebhookHostRule {
  if (hosts === undefined) return PUBLIC_WEBHOOKS;
  const allowedHosts = hosts.split(',').map((h) => h.trim()).filter(Boolean);
  if (allowedHosts.length === 0) throw new UsageError('--webhook-hosts needs at least one host name');
  return { allowedHosts };
}

export function mailRuleOf(ports: string | undefined, hosts: string | undefined): MailEndpointRule {
  const list = (text: string) => text.split(',').map((p) => p.trim()).filter(Boolean);
  let allowedPorts: number[] | null = USUAL_MAIL_PORTS;
  if (ports !== undefined && ports.trim().toLowerCase() === 'any') allowedPorts = null;
  else if (ports !== undefined) {
    allowedPorts = list(ports).map((p) => {
      const n = Number(p);
      if (!Number.isInteger(n) || n < 1 || n > 65535) throw new UsageError(`--mail-ports: ${p} is not a port (1-65535); give a list like 25,465,587,143,993 or any`);
      return n;
    });
    if (allowedPorts.length === 0) throw new UsageError('--mail-ports needs at least one port, or any');
  }
  const allowedHosts = hosts === undefined ? null : list(hosts);
  if (allowedHosts && allowedHosts.length === 0) throw new UsageError('--mail-hosts needs at least one host name');
  return { ports: allowedPorts, hosts: allowedHosts, refusePrivate: true };
}

const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * Runs the spec API and the renderer headless until SIGINT, SIGTERM or SIGHUP; with --team, as the
 * team's sync server. A port in use is one line naming it (and its holder when known) and
 * `--port 0`; with `freePortIfTaken` (the desktop's headless fallback) and no --port, a free port
 * is taken instead.
 */
export async function serveCommand(args: string[], options: { freePortIfTaken?: boolean } = {}): Promise<number> {
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
    'mail-ports': { type: 'string' },
    'mail-hosts': { type: 'string' },
    'webhook-hosts': { type: 'string' },
    'trust-proxy': { type: 'boolean' },
    'sync-interval': { type: 'string' },
    'reply-minutes': { type: 'string' },
    'portal-url': { type: 'string' },
  });
  const file = databaseFile(values, Boolean(values.demo), true);
  if (values.demo && !values.db && !values['data-dir']) console.log(`ardesk: the demo workspace lives in ${dirname(file)} (its own folder: your own data folder is not touched)`);
  const port = intOption(values.port, 'port', 4870, 0, 65535);
  const tokenTtlDays = intOption(values['token-days'], 'token-days', DEFAULT_TOKEN_TTL_DAYS, 1, 3650);
  const syncIntervalMs = intOption(values['sync-interval'], 'sync-interval', DEFAULT_SYNC_INTERVAL_MS / 1000, 1, 86_400) * 1000;
  const replyReadIntervalMs = intOption(values['reply-minutes'], 'reply-minutes', REPLY_READ_INTERVAL_MS / 60_000, 0, 1440) * 60_000;
  const host = values.host ?? '127.0.0.1';
  if (!values.team && (values['tls-cert'] || values['tls-key'] || values['insecure-http'] || values['mail-ports'] || values['mail-hosts'])) {
    throw new UsageError('--tls-cert, --tls-key, --insecure-http, --mail-ports and --mail-hosts go with --team');
  }
  const mailRule = values.team ? mailRuleOf(values['mail-ports'], values['mail-hosts']) : undefined;
  const webhookRule = webhookRuleOf(values['webhook-hosts']);
  if (Boolean(values['tls-cert']) !== Boolean(values['tls-key'])) throw new UsageError('Give both --tls-cert and --tls-key');
  const tls = values['tls-cert'] && values['tls-key'] ? { cert: readOptionFile(values['tls-cert'], 'tls-cert'), key: readOptionFile(values['tls-key'], 'tls-key') } : undefined;
  // Listening before anything can be told to stop: a stop asked for during start-up comes once the
  // server is up. Listeners stay until exit: Ctrl-C reaches a launcher and its child both, and a
  // repeated signal must not cut the clean stop short.
  const stopRequested = new Promise<void>((resolve) => {
    for (const signal of STOP_SIGNALS) process.on(signal, () => resolve());
  });
  const engine = await openEngine({ file, checkpointInBackground: true });
  if (values.team) {
    if ((await syncState(engine.db)).role === 'replica') {
      await engine.close();
      throw new UsageError('This database is a desktop connected to a team server; a team server needs its own database');
    }
    setSyncRole(engine.database.sqlite, 'server');
  }
  if (values.demo) console.log(await prepareDemo(engine, file));
  const refuseCredentialsInClear = Boolean(values.team) && !tls && !isLoopback(host) && !values['insecure-http'];
  const start = (onPort: number) => startRuntime(engine, { port: onPort, host, rendererDir: RENDERER_DIR, tokenTtlDays, tls, syncIntervalMs, replyReadIntervalMs, refuseCredentialsInClear, team: Boolean(values.team), mailRule, webhookRule, trustProxy: Boolean(values['trust-proxy']), portalUrl: portalUrlOf(values['portal-url']) });
  let runtime: Runtime;
  try {
    runtime = await start(port);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') {
      await engine.close();
      throw err;
    }
    const holder = portHolder(port);
    if (options.freePortIfTaken && values.port === undefined) {
      console.log(`ardesk: port ${port} is in use${holder ? ` (${holder})` : ''}; serving on a free port instead`);
      runtime = await start(0);
    } else {
      await engine.close();
      throw new UsageError(`port ${port} on ${host} is in use${holder ? ` (${holder})` : ''}: give another with --port N, or --port 0 for a free one`);
    }
  }
  if (!existsSync(join(RENDERER_DIR, 'index.html'))) {
    console.log('ardesk: the renderer is not built, so / only says how to build it; run `npm run build` (npm start builds it by itself). The API answers meanwhile.');
  }
  console.log(`ardesk listening on ${runtime.url}${values.team ? ' (team server)' : ''}`);
  if (refuseCredentialsInClear) console.log('ardesk: plain HTTP on a network address: sign-in and sync are refused (give --tls-cert/--tls-key, or --insecure-http)');
  await stopRequested;
  await runtime.stop();
  await engine.close();
  return 0;
}

/** --portal-url: where customers reach this server (a reverse proxy's address), for the links in their emails. */
function portalUrlOf(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!/^https?:\/\/[^\s/]+/i.test(value)) throw new UsageError('--portal-url needs an address such as https://ar.example.com');
  return value.replace(/\/+$/, '');
}
