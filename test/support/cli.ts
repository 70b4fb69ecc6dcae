import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';

/** The repository root: the folder npm and npx run in. */
export const PACKAGE_DIR = resolve(__dirname, '../..');
export const BIN = resolve(PACKAGE_DIR, 'core/cli/bin.cjs');
/** Required first by a child process that runs the core's TypeScript (as the CLI's own processes do). */
export const TYPESCRIPT = resolve(PACKAGE_DIR, 'core/typescript.cjs');

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  output: () => string;
  stop(): Promise<number | null>;
}

/**
 * Starts `ardesk serve` as a real child process and waits for its "listening" line. By default
 * the launcher is bin.cjs in Node 24 (under `npm test`, process.execPath is the node
 * devDependency); `launcher` starts it another way (another Node, npx), `args` following it.
 */
export function startServe(args: string[], env: NodeJS.ProcessEnv = {}, launcher: string[] = [process.execPath, BIN]): Promise<ServerProcess> {
  const [command, ...launcherArgs] = launcher;
  const child = spawn(command, [...launcherArgs, 'serve', ...args], { cwd: PACKAGE_DIR, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`ardesk serve did not start in time:\n${out}`));
    }, 60_000);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const m = /ardesk listening on (https?:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolvePromise({
          url: m[1],
          child,
          output: () => out,
          stop: () =>
            new Promise((done) => {
              if (child.exitCode !== null) return done(child.exitCode);
              child.once('exit', (code) => done(code));
              child.kill('SIGTERM');
            }),
        });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`ardesk serve exited with ${code}:\n${out}`));
    });
  });
}

/** A command's stderr after the line it starts with, naming the database it opened (issue 40). */
export function afterDatabaseLine(stderr: string): string {
  return stderr.replace(/^ardesk: database [^\n]*\n/, '');
}
