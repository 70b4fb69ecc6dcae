import { DEFAULT_TOKEN_TTL_DAYS } from '../../auth/sessions';
import { createEngine } from '../../engine';
import { RENDERER_DIR } from '../../paths';
import { startRuntime } from '../../runtime';
import { DB_OPTIONS, databaseFile, intOption, parse } from '../options';
import { prepareDemo } from './demo';

export const SERVE_HELP = 'ardesk serve [--port N] [--host H] [--db FILE | --data-dir DIR] [--demo] [--token-days N]';

/** Runs the spec API and the renderer headless until SIGINT or SIGTERM. */
export async function serveCommand(args: string[]): Promise<number> {
  const { values } = parse(args, { ...DB_OPTIONS, port: { type: 'string' }, host: { type: 'string' }, demo: { type: 'boolean' }, 'token-days': { type: 'string' } });
  const file = databaseFile(values);
  const port = intOption(values.port, 'port', 4870, 0, 65535);
  const tokenTtlDays = intOption(values['token-days'], 'token-days', DEFAULT_TOKEN_TTL_DAYS, 1, 3650);
  const host = values.host ?? '127.0.0.1';
  const engine = await createEngine({ file });
  if (values.demo) await prepareDemo(engine);
  const runtime = await startRuntime(engine, { port, host, rendererDir: RENDERER_DIR, tokenTtlDays });
  console.log(`ardesk listening on ${runtime.url}`);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await runtime.stop();
  await engine.close();
  return 0;
}
