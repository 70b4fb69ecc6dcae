import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_TOKEN_TTL_DAYS } from '../../auth/sessions';
import { createEngine } from '../../engine';
import { RENDERER_DIR } from '../../paths';
import { startRuntime } from '../../runtime';
import { prepareDemo } from '../../seed/demo';
import { DB_OPTIONS, databaseFile, intOption, parse } from '../options';

export const SERVE_HELP = 'ardesk serve [--port N] [--host H] [--db FILE | --data-dir DIR] [--demo] [--token-days N]';

const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** Runs the spec API and the renderer headless until SIGINT, SIGTERM or SIGHUP. */
export async function serveCommand(args: string[]): Promise<number> {
  const { values } = parse(args, { ...DB_OPTIONS, port: { type: 'string' }, host: { type: 'string' }, demo: { type: 'boolean' }, 'token-days': { type: 'string' } });
  const file = databaseFile(values);
  const port = intOption(values.port, 'port', 4870, 0, 65535);
  const tokenTtlDays = intOption(values['token-days'], 'token-days', DEFAULT_TOKEN_TTL_DAYS, 1, 3650);
  const host = values.host ?? '127.0.0.1';
  // Listening before anything can be told to stop: a stop asked for during start-up comes once the
  // server is up. Listeners stay until exit: Ctrl-C reaches a launcher and its child both, and a
  // repeated signal must not cut the clean stop short.
  const stopRequested = new Promise<void>((resolve) => {
    for (const signal of STOP_SIGNALS) process.on(signal, () => resolve());
  });
  const engine = await createEngine({ file });
  if (values.demo) console.log(await prepareDemo(engine, file));
  const runtime = await startRuntime(engine, { port, host, rendererDir: RENDERER_DIR, tokenTtlDays });
  if (!existsSync(join(RENDERER_DIR, 'index.html'))) {
    console.log('ardesk: the renderer is not built, so / only says how to build it; run `npm run build` (npm start builds it by itself). The API answers meanwhile.');
  }
  console.log(`ardesk listening on ${runtime.url}`);
  await stopRequested;
  await runtime.stop();
  await engine.close();
  return 0;
}
