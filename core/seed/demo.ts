import { isInitialized } from '../team/setup';
import type { Engine } from '../engine';
import { seedDemo } from './index';

/**
 * `--demo` (ardesk serve, npm start): the demo workspace (users demo/demo and outsider/outsider) on
 * a database without users. A database with users is left as it is. Returns the line to show.
 */
export async function prepareDemo(engine: Engine, file: string): Promise<string> {
  if (await isInitialized(engine)) {
    return `ardesk: demo workspace not created: ${file} already has users (sign in as one of them, or start on a new database file for the demo: --db FILE)`;
  }
  await seedDemo(engine);
  return 'demo workspace created: sign in as demo / demo';
}
