import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ServerProcess, startServe } from './cli';

export interface DemoServer {
  url: string;
  stop(): Promise<void>;
}

/**
 * `ardesk serve --port 0 --db <tmp> --demo [extraArgs]` as a real child process (Node 24: under npm,
 * process.execPath is the node devDependency); its URL comes from the "listening" line. The
 * database lives in a temp folder removed on stop.
 */
export async function startDemoServer(extraArgs: string[] = []): Promise<DemoServer> {
  const dir = mkdtempSync(join(tmpdir(), 'ardesk-browser-'));
  let server: ServerProcess;
  try {
    server = await startServe(['--port', '0', '--db', join(dir, 'ardesk.sqlite'), '--demo', ...extraArgs]);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    url: server.url,
    async stop() {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
