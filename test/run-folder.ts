import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * vitest's global set-up: one temp folder for the whole run, for what test files share (the demo
 * workspace that support/server.ts seeds once), removed when the run ends. The forked workers
 * inherit the variable.
 */
export default function runFolder(): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'ardesk-run-'));
  process.env.ARDESK_TEST_RUN_DIR = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}
