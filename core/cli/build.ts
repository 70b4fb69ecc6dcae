import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The newest modification time of a file or of anything under a folder (0 when absent). */
export function newestMtime(path: string): number {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

/** What `npm run build` writes: the Electron main bundle (with the core inside), the preload and the renderer. */
const BUILD_OUTPUTS = ['out/main/index.js', 'out/preload/index.js', 'out/renderer/index.html'];
const BUILD_SOURCES = ['core', 'electron', 'renderer', 'electron.vite.config.ts'];

/** Whether the desktop build is missing, older than its sources, or current. */
export function appBuildState(root: string): 'missing' | 'stale' | 'current' {
  const outputs = BUILD_OUTPUTS.map((file) => join(root, file));
  if (!outputs.every((file) => existsSync(file))) return 'missing';
  const built = Math.min(...outputs.map((file) => statSync(file).mtimeMs));
  const sources = Math.max(...BUILD_SOURCES.map((source) => newestMtime(join(root, source))));
  return built >= sources ? 'current' : 'stale';
}

/** Runs `electron-vite build` (what `npm run build` runs) in this Node: null when it succeeded, else its output. */
export function buildApp(root: string): string | null {
  const run = spawnSync(process.execPath, [join(root, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js'), 'build'], { cwd: root, encoding: 'utf8' });
  return run.status === 0 ? null : `${run.stdout ?? ''}${run.stderr ?? ''}${run.error ? run.error.message : ''}`;
}
