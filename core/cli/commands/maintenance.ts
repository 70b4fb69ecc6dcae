import { existsSync, rmSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { openEngine } from '../../runtime/engine';
import { backupDatabase, backupPathFor } from '../../db/migrate';
import { CLI_WRITE_WAIT, DB_OPTIONS, databaseFile, parse, UsageError } from '../options';

export async function migrateCommand(args: string[]): Promise<number> {
  const { values } = parse(args, DB_OPTIONS);
  const engine = await openEngine({ file: databaseFile(values, false, true), writeWait: CLI_WRITE_WAIT });
  const { applied, backup } = engine.migration;
  console.log(applied.length ? `applied ${applied.join(', ')}${backup ? ` (backup at ${backup})` : ''}` : 'schema is up to date');
  await engine.close();
  return 0;
}

export async function backupCommand(args: string[]): Promise<number> {
  const { values } = parse(args, { ...DB_OPTIONS, out: { type: 'string' }, force: { type: 'boolean' } });
  const file = databaseFile(values);
  const target = values.out ? resolve(values.out) : backupPathFor(file, new Date());
  if (!existsSync(dirname(target))) throw new UsageError(`--out ${target}: the folder ${dirname(target)} does not exist`);
  // A backup over an existing file would replace whatever database was there without a word.
  if (existsSync(target) && !values.force) throw new UsageError(`${target} already exists; give --force to replace it`);
  if (target === resolve(file)) throw new UsageError('--out is the database itself; give another file');
  const engine = await openEngine({ file, writeWait: CLI_WRITE_WAIT });
  // --force: what was there goes first, so the copy is a fresh owner-only file, whatever it held.
  for (const old of [target, `${target}-wal`, `${target}-shm`]) rmSync(old, { force: true });
  await backupDatabase(engine.database, target);
  console.log(`backup written to ${target}`);
  await engine.close();
  return 0;
}
