import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export const APP_NAME = 'ardesk';

/**
 * The per-user data folder, the same one Electron's app.getPath('userData') gives the desktop
 * app, so `ardesk serve` and the desktop share data. ARDESK_DATA_DIR overrides it.
 */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (env.ARDESK_DATA_DIR) return resolve(env.ARDESK_DATA_DIR);
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support', APP_NAME);
  if (platform === 'win32') return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), APP_NAME);
  return join(env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), APP_NAME);
}

/**
 * Where `--demo` runs when no --db or --data-dir is given: a folder beside the per-user one
 * (ardesk-demo), so the demo users never land in the workspace the real app opens later.
 */
export function demoDataDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  return `${defaultDataDir(env, platform)}-demo`;
}

export function databaseFileIn(dataDir: string): string {
  return join(dataDir, 'ardesk.sqlite');
}

/** The repository/package root, from core/. */
export const PACKAGE_ROOT = resolve(__dirname, '..');

/** Where `npm run build` (electron-vite) puts the renderer. */
export const RENDERER_DIR = join(PACKAGE_ROOT, 'out', 'renderer');
