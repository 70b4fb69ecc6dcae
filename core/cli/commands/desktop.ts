import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../../paths';
import { serveCommand } from './serve';

const ELECTRON_DIR = join(PACKAGE_ROOT, 'node_modules', 'electron');

/** The Electron executable, or null when its binary was never fetched (as on machines without its host). */
function electronBinary(): string | null {
  const pathFile = join(ELECTRON_DIR, 'path.txt');
  if (!existsSync(pathFile)) return null;
  const binary = join(ELECTRON_DIR, 'dist', readFileSync(pathFile, 'utf8').trim());
  return existsSync(binary) ? binary : null;
}

function fetchElectron(): string | null {
  if (!existsSync(join(ELECTRON_DIR, 'install.js'))) return null;
  spawnSync(process.execPath, [join(ELECTRON_DIR, 'install.js')], { stdio: 'ignore', timeout: 120_000 });
  return electronBinary();
}

/** Runs the Electron window; exits with code, or resolves 'failed' when Electron could not start at all. */
function runElectron(binary: string): Promise<number | 'failed'> {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(binary, ['.'], { cwd: PACKAGE_ROOT, stdio: 'inherit' });
    child.once('error', () => resolve('failed'));
    child.once('exit', (code) => resolve(code !== 0 && Date.now() - started < 5000 ? 'failed' : (code ?? 0)));
  });
}

/**
 * `npm start`: the desktop app. Where Electron's binary cannot be fetched or started, it says so
 * in one line and runs the same engine headless instead.
 */
export async function desktopCommand(args: string[]): Promise<number> {
  const binary = electronBinary() ?? fetchElectron();
  if (binary) {
    if (!existsSync(join(PACKAGE_ROOT, 'out', 'main', 'index.js'))) {
      spawnSync(process.execPath, [join(PACKAGE_ROOT, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js'), 'build'], { cwd: PACKAGE_ROOT, stdio: 'inherit' });
    }
    const result = await runElectron(binary);
    if (result !== 'failed') return result;
    console.log('ardesk: Electron could not start here; running the headless server instead (open its URL in a browser)');
  } else {
    console.log("ardesk: Electron's binary is not available on this machine; running the headless server instead (open its URL in a browser)");
  }
  return serveCommand(args);
}
