import { isInitialized } from '../../auth/setup';
import type { Engine } from '../../engine';
import { seedDemo } from '../../seed';

/** `--demo` on an empty database: the demo workspace (users demo/demo and outsider/outsider). */
export async function prepareDemo(engine: Engine): Promise<void> {
  if (await isInitialized(engine)) return;
  await seedDemo(engine);
  console.log('demo workspace created: sign in as demo / demo');
}
