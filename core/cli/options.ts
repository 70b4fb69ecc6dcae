import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { WriteWait } from '../engine';
import { databaseFileIn, defaultDataDir, demoDataDir } from '../paths';

export class UsageError extends Error {}

export type OptionSpec = NonNullable<ParseArgsConfig['options']>;

export const DB_OPTIONS = {
  db: { type: 'string' },
  'data-dir': { type: 'string' },
} as const satisfies OptionSpec;

export function parse<O extends OptionSpec>(args: string[], options: O) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/**
 * --db FILE wins; else --data-dir DIR; else the per-user data folder the desktop app uses, or with
 * `demo` (serve and desktop --demo) the demo folder beside it.
 */
export function databaseFile(values: { db?: string; 'data-dir'?: string }, demo = false): string {
  if (values.db && values['data-dir']) throw new UsageError('Give --db or --data-dir, not both');
  const file = values.db ? resolve(values.db) : databaseFileIn(values['data-dir'] ? resolve(values['data-dir']) : demo ? demoDataDir() : defaultDataDir());
  mkdirSync(dirname(file), { recursive: true });
  return file;
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
  onWait: () => console.error('ardesk: waiting for the database: another ardesk process is writing to it...'),
};
