import { createEngine } from '../../engine';
import { createApp } from '../../http/app';
import { connect, resync, syncOnce } from '../../sync/client';
import { describeFailure } from '../../sync/failure';
import { syncState } from '../../sync/state';
import { DB_OPTIONS, databaseFile, parse, UsageError } from '../options';

export const CONNECT_HELP = 'ardesk connect --db FILE --server URL --username U --password P [--company C ...] [--resync]';
export const SYNC_HELP = 'ardesk sync --db FILE [--json]';

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
  const engine = await createEngine({ file: databaseFile(values) });
  let server: URL | null = null;
  try {
    if (values.resync) {
      const { companies } = await resync(engine, (m) => process.stderr.write(`${m}\r`));
      process.stderr.write('\n');
      for (const c of companies) console.log(`Downloaded ${c.name} again: ${c.rows} rows`);
      return 0;
    }
    if (!values.server || !values.username || !values.password) throw new UsageError('Give --server, --username and --password');
    try {
      server = new URL(values.server);
    } catch {
      throw new UsageError('--server must be a URL such as https://ardesk.example.com:4870');
    }
    if (server.protocol !== 'http:' && server.protocol !== 'https:') throw new UsageError('--server must be an http or https URL');
    const { companies } = await connect(engine, {
      serverUrl: server.origin,
      username: values.username,
      password: values.password,
      companies: values.company ?? [],
      onProgress: (m) => process.stderr.write(`${m}\r`),
    });
    process.stderr.write('\n');
    for (const c of companies) console.log(`Connected ${c.name}: ${c.rows} rows downloaded`);
    return 0;
  } catch (err) {
    return failure('connect', err, server?.origin ?? (await syncState(engine.db)).server_url ?? 'the team server', server !== null);
  } finally {
    await engine.close();
  }
}

/** One sync round: push the outbox, pull every company, apply and rebase. */
export async function syncCommand(args: string[]): Promise<number> {
  const { values } = parse(args, { ...DB_OPTIONS, json: { type: 'boolean' } });
  const engine = await createEngine({ file: databaseFile(values) });
  try {
    const app = createApp(engine);
    const round = await syncOnce(engine, (request, env) => Promise.resolve(app.request(request, undefined, env)));
    if (values.json) console.log(JSON.stringify(round));
    else {
      console.log(`Pushed ${round.pushed} (${round.applied} applied, ${round.rejected.length} rejected), pulled ${round.pulled} changes, ${round.pending} pending`);
      for (const r of round.rejected) console.log(`Rejected ${r.command}: ${r.reason}`);
    }
    return 0;
  } catch (err) {
    return failure('sync', err, (await syncState(engine.db)).server_url ?? 'the team server', false);
  } finally {
    await engine.close();
  }
}
