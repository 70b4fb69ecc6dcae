/**
 * The data folder and its backups, for the app's settings: the `<database>.<time>.bak` copies taken
 * before each schema migration (and by `ardesk backup` or "back up now"), listed with their sizes
 * and dates. A backup copies every company in the file, so only a user who owns every company in
 * it may list or make them.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Db } from '../db/connection';
import { backupDatabase, backupPathFor } from '../db/migrate';
import type { Engine } from '../engine';
import { ForbiddenError } from '../errors';

export interface BackupFile {
  file_name: string;
  path: string;
  size_bytes: number;
  created_at: string;
}

export interface DataFolder {
  data_folder: string;
  database_file: string;
  database_size_bytes: number;
  backups: BackupFile[];
}

/** Refuses anyone who is not an owner of every company in the file (and of at least one). */
export async function requireOwnerOfAll(db: Db, userId: string): Promise<void> {
  const row = await db
    .selectFrom('companies as c')
    .leftJoin('memberships as m', (join) => join.onRef('m.company_id', '=', 'c.id').on('m.user_id', '=', userId).on('m.role', '=', 'owner'))
    .select((eb) => [eb.fn.countAll<number>().as('companies'), eb.fn.count<number>('m.id').as('owned')])
    .executeTakeFirstOrThrow();
  if (Number(row.companies) === 0 || Number(row.owned) !== Number(row.companies)) {
    throw new ForbiddenError('A backup holds every company in this database: only a user who owns all of them can see or make backups', 'owner_of_all_required');
  }
}

function describe(path: string): BackupFile {
  const stat = statSync(path);
  return { file_name: basename(path), path, size_bytes: stat.size, created_at: stat.mtime.toISOString() };
}

/** The database's folder, the file and its backups beside it, newest first. */
export function dataFolder(engine: Engine): DataFolder {
  const file = engine.database.file;
  const folder = dirname(file);
  const prefix = `${basename(file)}.`;
  const backups = readdirSync(folder)
    .filter((name) => name.startsWith(prefix) && name.endsWith('.bak'))
    .map((name) => describe(join(folder, name)))
    .sort((a, b) => b.created_at.localeCompare(a.created_at) || b.file_name.localeCompare(a.file_name));
  return { data_folder: folder, database_file: file, database_size_bytes: statSync(file).size, backups };
}

/** A consistent copy of the database now, beside it (never over an earlier backup of the same instant). */
export async function backUpNow(engine: Engine): Promise<BackupFile> {
  const path = backupPathFor(engine.database.file, engine.clock.now());
  let target = path;
  for (let n = 2; existsSync(target); n++) target = path.replace(/\.bak$/, `-${n}.bak`);
  return describe(await backupDatabase(engine.database, target));
}
