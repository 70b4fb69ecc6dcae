import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { WriteWait } from '../engine';
import { databaseFileIn, defaultDataDir, demoDataDir } from '../paths';
import { didYouMean } from './closest';
import { holdersOf } from './holders';

export class UsageError extends Error {}

/** The database file this process opened, for a refusal that names it ("database is locked"). */
export let openedDatabase: string | null = null;

export type OptionSpec = NonNullable<ParseArgsConfig['options']>;

export const DB_OPTIONS = {
  db: { type: 'string' },
  'data-dir': { type: 'string' },
} as const satisfies OptionSpec;

export function parse<O extends OptionSpec>(args: string[], options: O) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError(parseRefusal(err as Error & { code?: string }, Object.keys(options)));
  }
}

/** Node's parseArgs refusals in our words (its own quote a '-- "--x"' it never closes). */
function parseRefusal(err: Error & { code?: string }, known: string[]): string {
  const named = /'(-{1,2}[^' ]+)/.exec(err.message)?.[1] ?? '';
  const flags = known.map((k) => `--${k}`);
  if (err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return `unknown option ${named}${didYouMean(named, flags)}`;
  if (err.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') return /argument missing/.test(err.message) ? `${named} needs a value` : `${named} takes no value`;
  return err.message;
}

/** A command's subcommand, or a refusal that says it is unknown (with the closest) and how to use the command. */
export function subcommand(command: string, sub: string | undefined, known: string[], usage: string): string {
  if (sub !== undefined && known.includes(sub)) return sub;
  if (sub === undefined || sub.startsWith('-')) throw new UsageError(usage);
  throw new UsageError(`unknown subcommand "${command} ${sub}"${didYouMean(sub, known)}\n${usage}`);
}

/**
 * --db FILE wins; else --data-dir DIR; else the per-user data folder the desktop app uses, or with
 * `demo` (serve and desktop --demo) the demo folder beside it. Only the commands that make a
 * database (serve, seed, user add, connect, migrate) pass `create`: any other refuses a file that
 * is not there, so a mistyped --db never looks like a workspace that lost its data. Every
 * command says on stderr which file it opened.
 */
export function databaseFile(values: { db?: string; 'data-dir'?: string }, demo = false, create = false): string {
  if (values.db && values['data-dir']) throw new UsageError('Give --db or --data-dir, not both');
  const file = values.db ? resolve(values.db) : databaseFileIn(values['data-dir'] ? resolve(values['data-dir']) : demo ? demoDataDir() : defaultDataDir());
  if (!create && !existsSync(file)) throw new UsageError(`no database at ${file} (ardesk seed, ardesk serve or ardesk user add make one)`);
  if (create) mkdirSync(dirname(file), { recursive: true });
  console.error(`ardesk: database ${file}`);
  openedDatabase = file;
  return file;
}

/** The bytes of a file an option names (a TLS certificate, a key), or a refusal in words. */
export function readOptionFile(file: string, option: string): Buffer {
  if (!existsSync(file)) throw new UsageError(`--${option} ${file}: there is no such file`);
  try {
    return readFileSync(file);
  } catch (err) {
    throw new UsageError(`--${option} ${file} cannot be read (${(err as NodeJS.ErrnoException).code === 'EACCES' ? 'permission denied' : 'not a readable file'})`);
  }
}

export function intOption(value: string | undefined, name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new UsageError(`--${name} must be a whole number from ${min} to ${max}`);
  }
  return Number(value);
}

/**
 * A command run by hand waits for a server (or another command) that is writing the same file,
 * for up to ten minutes, and says so after a second instead of failing with "database is locked".
 */
export const CLI_WRITE_WAIT: WriteWait = {
  timeoutMs: 10 * 60_000,
  onWait: () => {
    const holders = openedDatabase ? holdersOf(openedDatabase) : [];
    const who = holders.length ? holders.map((h) => `${h.command} (pid ${h.pid})`).join(', ') : 'another ardesk process';
    console.error(`ardesk: waiting for the database: ${who} is writing to it...`);
  },
};
