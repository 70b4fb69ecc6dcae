import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixedClock } from '../../core/clock';
import { type Engine } from '../../core/engine';
import { openEngine } from '../../core/runtime/engine';

export interface TestEngine extends Engine {
  clock: ReturnType<typeof fixedClock>;
  dir: string;
  dispose(): Promise<void>;
}

/** A fresh engine over a real SQLite file in a temp folder, with the clock fixed at `now`. */
export async function testEngine(now = '2026-11-23T12:00:00.000Z'): Promise<TestEngine> {
  const dir = mkdtempSync(join(tmpdir(), 'ardesk-test-'));
  const clock = fixedClock(now);
  const engine = await openEngine({ file: join(dir, 'ardesk.sqlite'), clock });
  return {
    ...engine,
    clock,
    dir,
    async dispose() {
      await engine.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
