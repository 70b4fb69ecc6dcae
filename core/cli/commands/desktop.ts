import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../../paths';
import { appBuildState, buildApp } from '../build';
import { serveCommand } from './serve';

const ELECTRON_DIR = join(PACKAGE_ROOT, 'node_modules', 'electron');
const FORWARDED_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

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

/**
 * Runs the Electron window (the arguments reach its main process: --demo); exits with its code, or
 * resolves 'failed' when Electron could not start at all. Stop signals are passed on, so the
 * window's server never outlives this command.
 */
function runElectron(binary: string, args: string[]): Promise<number | 'failed'> {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(binary, ['.', ...args], { cwd: PACKAGE_ROOT, stdio: 'inherit' });
    const forward = (signal: NodeJS.Signals) => child.kill(signal);
    for (const signal of FORWARDED_SIGNALS) process.on(signal, forward);
    const done = (result: number | 'failed') => {
      for (const signal of FORWARDED_SIGNALS) process.off(signal, forward);
      resolve(result);
    };
    child.once('error', () => done('failed'));
    child.once('exit', (code) => done(code !== 0 && Date.now() - started < 5000 ? 'failed' : (code ?? 0)));
  });
}

/** Builds the app first when its build is missing or older than its sources, saying so. */
function ensureBuilt(): boolean {
  const state = appBuildState(PACKAGE_ROOT);
  if (state === 'current') return true;
  console.log(`ardesk: ${state === 'missing' ? 'the app is not built yet' : 'the sources changed since the last build'}; building it first (npm run build, about a minute)`);
  const failure = buildApp(PACKAGE_ROOT);
  if (failure === null) return true;
  console.error(`${failure}\nardesk: the build failed (output above)`);
  return false;
}

/**
 * `npm start`: the desktop app, built first when needed. Where Electron's binary cannot be fetched
 * or started, it says so in one line and runs the same engine headless instead.
 */
export async function desktopCommand(args: string[]): Promise<number> {
  if (!ensureBuilt()) return 1;
  const binary = electronBinary() ?? fetchElectron();
  if (binary) {
    const result = await runElectron(binary, args);
    if (result !== 'failed') return result;
    console.log('ardesk: Electron could not start here; running the headless server instead (open its URL in a browser)');
  } else {
    console.log("ardesk: Electron's binary is not available on this machine; running the headless server instead (open its URL in a browser)");
  }
  return serveCommand(args, { freePortIfTaken: true });
}
