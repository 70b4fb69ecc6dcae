import { openEngine } from '../../runtime/engine';
import { createApp } from '../../http/app';
import { connect, resync, syncOnce } from '../../sync/client';
import { describeFailure } from '../../sync/failure';
import { setServerUrl, syncState } from '../../sync/state';
import { DB_OPTIONS, databaseFile, parse, UsageError } from '../options';
import { statusLine } from '../progress';


/** A failed conversation with the team server, in words (the same ones the app shows); anything else is a bug. */
function failure(command: string, err: unknown, serverUrl: string, signingIn: boolean): number {
  const described = describeFailure(err, serverUrl, signingIn);
  if (!described) throw err;
  console.error(`ardesk ${command}: ${described.words}`);
  return 1;
}

/** Makes a database a replica of a team server's companies, downloading them with progress. */
export async function connectCommand(args: string[]): Promise<number> {
  const { values } = parse(args, {
    ...DB_OPTIONS,
    server: { type: 'string' },
    username: { type: 'string' },
    password: { type: 'string' },
    company: { type: 'string', multiple: true },
    resync: { type: 'boolean' },
  });
  const engine = await openEngine({ file: databaseFile(values, false, true) });
  let server: URL | null = null;
  const status = statusLine(process.stderr);
  try {
    if (values.resync) {
      const { companies } = await resync(engine, (m) => status.show(m));
      status.done();
      for (const c of companies) console.log(`Downloaded ${c.name} again: ${c.rows} rows`);
      return 0;
    }
    if (!values.server || !values.username || !values.password) throw new UsageError('Give --server, --username and --password');
    const connected = (await syncState(engine.db)).server_url;
    if (connected) {
      throw new UsageError(`this database is already connected to ${connected}: ardesk sync catches up, ardesk connect --resync downloads everything again`);
    }
    server = new URL(serverOrigin(values.server));
    const { companies } = await connect(engine, {
      serverUrl: server.origin,
      username: values.username,
      password: values.password,
      companies: values.company ?? [],
      onProgress: (m) => status.show(m),
    });
    status.done();
    for (const c of companies) console.log(`Connected ${c.name}: ${c.rows} rows downloaded`);
    return 0;
  } catch (err) {
    status.done();
    return failure('connect', err, server?.origin ?? (await syncState(engine.db)).server_url ?? 'the team server', server !== null);
  } finally {
    await engine.close();
  }
}

/**
 * One sync round: push the outbox, pull every company, apply and rebase. With --server, first
 * moves the desktop to the team server's new address; if the round fails there, the old address
 * is put back.
 */
export async function syncCommand(args: string[]): Promise<number> {
  const { values } = parse(args, { ...DB_OPTIONS, json: { type: 'boolean' }, server: { type: 'string' } });
  const engine = await openEngine({ file: databaseFile(values) });
  let moved: { from: string | null; to: string } | null = null;
  try {
    if (values.server) {
      const to = serverOrigin(values.server);
      if (!(await syncState(engine.db)).server_url) throw new UsageError('This database is not connected to a team server: ardesk connect --server URL ... first');
      moved = { from: await setServerUrl(engine.db, to), to };
    }
    const app = createApp(engine);
    const round = await syncOnce(engine, (request, env) => Promise.resolve(app.request(request, undefined, env)));
    if (values.json) console.log(JSON.stringify(round));
    else {
      if (moved) console.log(`Team server address changed from ${moved.from} to ${moved.to}`);
      console.log(`Pushed ${round.pushed} (${round.applied} applied, ${round.rejected.length} rejected), pulled ${round.pulled} changes, ${round.pending} pending`);
      for (const r of round.rejected) console.log(`Rejected ${r.command}: ${r.reason}`);
    }
    return 0;
  } catch (err) {
    if (moved?.from) {
      await setServerUrl(engine.db, moved.from);
      if (!(err instanceof UsageError)) console.error(`ardesk sync: kept the team server address ${moved.from}`);
    }
    if (err instanceof UsageError) throw err;
    return failure('sync', err, moved?.to ?? (await syncState(engine.db)).server_url ?? 'the team server', false);
  } finally {
    await engine.close();
  }
}

/** The origin of a team server URL given on the command line, or a usage error. */
function serverOrigin(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError('--server must be a URL such as https://ardesk.example.com:4870');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError('--server must be an http or https URL');
  return url.origin;
}
