import { resolve } from 'node:path';
import { createEngine } from '../../engine';
import { backupDatabase, backupPathFor } from '../../db/migrate';
import { CLI_WRITE_WAIT, DB_OPTIONS, databaseFile, parse } from '../options';

export async function migrateCommand(args: string[]): Promise<number> {
  const { values } = parse(args, DB_OPTIONS);
  const engine = await createEngine({ file: databaseFile(values), writeWait: CLI_WRITE_WAIT });
  const { applied, backup } = engine.migration;
  console.log(applied.length ? `applied ${applied.join(', ')}${backup ? ` (backup at ${backup})` : ''}` : 'schema is up to date');
  await engine.close();
  return 0;
}

export async function backupCommand(args: string[]): Promise<number> {
  const { values } = parse(args, { ...DB_OPTIONS, out: { type: 'string' } });
  const file = databaseFile(values);
  const engine = await createEngine({ file, writeWait: CLI_WRITE_WAIT });
  const target = values.out ? resolve(values.out) : backupPathFor(file, new Date());
  await backupDatabase(engine.database, target);
  console.log(`backup written to ${target}`);
  await engine.close();
  return 0;
}
