import { dirname, join } from 'node:path';
import { app, BrowserWindow, dialog, ipcMain, session, shell } from 'electron';
import { type Engine } from '../core/engine';
import { openEngine } from '../core/runtime/engine';
import { RENDERER_CSP } from '../core/http/renderer';
import { databaseFileIn, defaultDataDir } from '../core/paths';
import { type Runtime, startRuntime } from '../core/runtime/server';
import { prepareDemo } from '../core/seed/demo';
import { BOOTSTRAP_CHANNEL, type DesktopBootstrap } from './bridge';
import { currentLaunchToken, type LaunchToken, revokeLaunchToken, revokeLeftoverLaunchTokens } from './launch';

interface Shell {
  engine: Engine;
  runtime: Runtime;
  origin: string;
  token: LaunchToken | null;
}

let running: Shell | null = null;
let mainWindow: BrowserWindow | null = null;

function dataDir(): string {
  // ARDESK_DATA_DIR moves the workspace for both faces; otherwise userData is the same folder
  // `ardesk serve` uses by default (core/paths.ts). --demo runs in the folder beside it, as
  // `ardesk serve --demo` does, so the demo users never land in the real workspace.
  const base = process.env.ARDESK_DATA_DIR ? defaultDataDir() : app.getPath('userData');
  return process.argv.includes('--demo') ? `${base}-demo` : base;
}

function sameOrigin(url: string, origin: string): boolean {
  try {
    return new URL(url).origin === origin;
  } catch {
    return false;
  }
}

function openExternally(url: string): void {
  if (/^https?:\/\//i.test(url)) void shell.openExternal(url);
}

async function start(): Promise<Shell> {
  const file = databaseFileIn(dataDir());
  const engine = await openEngine({ file, checkpointInBackground: true });
  // `npm start -- --demo` passes --demo on to this process.
  if (process.argv.includes('--demo')) {
    console.log(`ardesk: the demo workspace lives in ${dirname(file)} (its own folder: your own data folder is not touched)`);
    console.log(await prepareDemo(engine, file));
  }
  await revokeLeftoverLaunchTokens(engine);
  const runtime = await startRuntime(engine, { port: 0, host: '127.0.0.1', rendererDir: join(__dirname, '..', 'renderer') });
  return { engine, runtime, origin: new URL(runtime.url).origin, token: null };
}

function lockDownSession(origin: string): void {
  const ses = session.defaultSession;
  ses.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  ses.setPermissionCheckHandler(() => false);
  ses.webRequest.onHeadersReceived((details, callback) => {
    const headers = { ...details.responseHeaders };
    if (sameOrigin(details.url, origin)) headers['Content-Security-Policy'] = [RENDERER_CSP];
    callback({ responseHeaders: headers });
  });
}

/** Opens the one window on our origin; it becomes mainWindow until it closes. */
function openWindow(shellState: Shell): void {
  const win = new BrowserWindow({
    width: 1440,
    height: 900,
    minWidth: 960,
    minHeight: 600,
    title: 'ardesk',
    icon: join(__dirname, '..', '..', 'resources', 'icon.png'),
    show: false,
    webPreferences: {
      preload: join(__dirname, '..', 'preload', 'index.js'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webviewTag: false,
      spellcheck: false,
    },
  });
  win.once('ready-to-show', () => win.show());
  win.on('closed', () => {
    if (mainWindow === win) mainWindow = null;
  });
  void win.loadURL(`${shellState.origin}/`);
  mainWindow = win;
}

// Every web contents (the window and anything it might spawn) stays on our origin: other links open
// in the system browser, new windows and webviews are refused.
app.on('web-contents-created', (_event, contents) => {
  contents.on('will-navigate', (event, url) => {
    if (running && sameOrigin(url, running.origin)) return;
    event.preventDefault();
    openExternally(url);
  });
  contents.on('will-redirect', (event, url) => {
    if (running && sameOrigin(url, running.origin)) return;
    event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    openExternally(url);
    return { action: 'deny' };
  });
});

// The preload asks once per page load; only our own pages get an answer.
ipcMain.on(BOOTSTRAP_CHANNEL, (event) => {
  const shellState = running;
  const none: DesktopBootstrap = { apiBaseUrl: '', token: null };
  if (!shellState || !sameOrigin(event.senderFrame?.url ?? '', shellState.origin)) {
    event.returnValue = none;
    return;
  }
  currentLaunchToken(shellState.engine, shellState.token)
    .then((token) => {
      shellState.token = token;
      event.returnValue = { apiBaseUrl: shellState.origin, token: token?.token ?? null } satisfies DesktopBootstrap;
    })
    .catch(() => {
      event.returnValue = { apiBaseUrl: shellState.origin, token: null } satisfies DesktopBootstrap;
    });
});

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on('second-instance', () => {
    if (!mainWindow) return;
    if (mainWindow.isMinimized()) mainWindow.restore();
    mainWindow.focus();
  });

  app
    .whenReady()
    .then(async () => {
      running = await start();
      lockDownSession(running.origin);
      openWindow(running);
      app.on('activate', () => {
        if (running && BrowserWindow.getAllWindows().length === 0) openWindow(running);
      });
    })
    .catch((err: unknown) => {
      // The database could not be opened or migrated, or the server could not bind: say so, then quit.
      dialog.showErrorBox('ardesk could not start', err instanceof Error ? err.message : String(err));
      app.exit(1);
    });

  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });

  // Quit waits for the token to be revoked and the database to close cleanly.
  let stopping = false;
  app.on('will-quit', (event) => {
    const shellState = running;
    if (!shellState || stopping) return;
    stopping = true;
    event.preventDefault();
    void (async () => {
      try {
        await revokeLaunchToken(shellState.engine, shellState.token);
        await shellState.runtime.stop();
        await shellState.engine.close();
      } finally {
        running = null;
        app.quit();
      }
    })();
  });
}
