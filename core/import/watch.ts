/**
 * The nightly re-import (issue 40, item 3): a company's watched file, or folder (its newest CSV or
 * XLSX), read again once a day by the job worker on the bulk lane, as the ERP's nightly export
 * lands there. Every run is logged: what it wrote, "unchanged" when the file is the one imported
 * last (same SHA-256: nothing is read), or why it failed. A run that fails leaves the data as it
 * was (an import writes all or nothing); the app shows the failure until a run succeeds.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, isAbsolute, join } from 'node:path';
import { timestamp } from '../clock';
import type { ImportRunStatus } from '../db/schema';
import { replicatedCompanies } from '../db/replicas';
import { type Actor, type Engine, runCommand, systemActor } from '../engine';
import { DomainError, ValidationError } from '../errors';
import { newId } from '../ids';
import { enqueueJobs } from '../jobs/queue';
import type { JobHandler } from '../jobs/worker';
import { importOnOwnConnection, type ImportReport } from './import';
import { type Mapping, validateMapping } from './mapping';
import { PRESETS } from './mappings/index';
import { localDate, zonedToUtc } from '../zones';

export const IMPORT_WATCH = 'import_watch';

/** The largest file a watched import reads: the same as an upload's. */
export const MAX_WATCHED_BYTES = 50 * 1024 * 1024;
const FILE_TYPES = ['.csv', '.txt', '.xlsx'];
/** Runs kept per company: a log to read, not an archive. */
const RUNS_KEPT = 200;

export interface WatchSettings {
  path: string;
  preset: string | null;
  mapping: Mapping | null;
  enabled: boolean;
  /** The hour of the day (0-23, the company's time zone) from which the day's run is queued. */
  hour: number;
}

/** After the usual nightly exports have landed. */
export const DEFAULT_WATCH_HOUR = 3;

export interface ImportRun {
  id: string;
  started_at: string;
  finished_at: string;
  file: string;
  status: ImportRunStatus;
  preset: string | null;
  counts: ImportReport['counts'] | null;
  notes: string[];
  message: string | null;
}

export interface WatchView extends WatchSettings {
  last_run: ImportRun | null;
}

/** Checks a watch's settings: an absolute path, at most one of preset and mapping. */
export function checkWatch(input: { path: string; preset?: string | null; mapping?: unknown; enabled?: boolean; hour?: number }): WatchSettings {
  const errors: Record<string, string[]> = {};
  if (!isAbsolute(input.path)) errors.path = ['Give the full path of the file or folder, as the server sees it (it starts with / or a drive letter)'];
  if (input.preset && !PRESETS[input.preset]) errors.preset = [`Must be one of ${Object.keys(PRESETS).join(', ')}`];
  if (input.preset && input.mapping) errors.mapping = ['Give a preset or a mapping, not both (neither: the preset is recognised from the file)'];
  if (input.hour !== undefined && !(Number.isInteger(input.hour) && input.hour >= 0 && input.hour <= 23)) errors.hour = ['Give an hour from 0 to 23'];
  if (Object.keys(errors).length) throw new ValidationError('The watched import is invalid', errors);
  return { path: input.path, preset: input.preset ?? null, mapping: input.mapping ? validateMapping(input.mapping) : null, enabled: input.enabled ?? true, hour: input.hour ?? DEFAULT_WATCH_HOUR };
}

export async function setImportWatch(engine: Pick<Engine, 'db' | 'clock'> & Partial<Pick<Engine, 'writeWait'>>, actor: Actor, companyId: string, settings: WatchSettings): Promise<WatchView> {
  await runCommand(engine, 'set_import_watch', { actor, companyId }, async (tx) => {
    const row = { path: settings.path, preset: settings.preset, mapping: settings.mapping ? JSON.stringify(settings.mapping) : null, enabled: settings.enabled ? 1 : 0, hour: settings.hour, updated_at: tx.now } as const;
    await tx.db
      .insertInto('import_watches')
      .values({ company_id: companyId, created_at: tx.now, ...row })
      .onConflict((oc) => oc.column('company_id').doUpdateSet(row))
      .execute();
  });
  return (await getImportWatch(engine.db, companyId))!;
}

export async function removeImportWatch(engine: Pick<Engine, 'db' | 'clock'> & Partial<Pick<Engine, 'writeWait'>>, actor: Actor, companyId: string): Promise<boolean> {
  return runCommand(engine, 'remove_import_watch', { actor, companyId }, async (tx) => {
    const result = await tx.db.deleteFrom('import_watches').where('company_id', '=', companyId).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  });
}

function runOf(row: { id: string; started_at: string; finished_at: string; file: string; status: ImportRunStatus; preset: string | null; counts: string | null; notes: string | null; message: string | null }): ImportRun {
  return { ...row, counts: row.counts ? JSON.parse(row.counts) : null, notes: row.notes ? JSON.parse(row.notes) : [] };
}

export async function listImportRuns(db: Engine['db'], companyId: string, limit = 50): Promise<ImportRun[]> {
  const rows = await db.selectFrom('import_runs').selectAll().where('company_id', '=', companyId).orderBy('started_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  return rows.map(runOf);
}

export async function getImportWatch(db: Engine['db'], companyId: string): Promise<WatchView | null> {
  const row = await db.selectFrom('import_watches').selectAll().where('company_id', '=', companyId).executeTakeFirst();
  if (!row) return null;
  const [last] = await listImportRuns(db, companyId, 1);
  return { path: row.path, preset: row.preset, mapping: row.mapping ? JSON.parse(row.mapping) : null, enabled: row.enabled === 1, hour: row.hour, last_run: last ?? null };
}

/**
 * Queues the day's run of every enabled watch whose hour has come in its company's time zone (UTC
 * when the company has none); queuing again the same day adds nothing.
 */
export async function queueWatchedImports(engine: Pick<Engine, 'db' | 'clock'>): Promise<number> {
  const now = engine.clock.now();
  const watches = await engine.db
    .selectFrom('import_watches as w')
    .innerJoin('companies as c', 'c.id', 'w.company_id')
    .select(['w.company_id', 'w.hour', 'c.time_zone'])
    .where('w.enabled', '=', 1)
    .where('w.company_id', 'not in', replicatedCompanies(engine.db))
    .execute();
  const jobs = watches.flatMap((w) => {
    const zone = w.time_zone ?? 'UTC';
    const date = localDate(now, zone);
    if (now.toISOString() < zonedToUtc(date, `${String(w.hour).padStart(2, '0')}:00`, zone)) return [];
    return [{ companyId: w.company_id, kind: IMPORT_WATCH, idempotencyKey: `${IMPORT_WATCH}:${w.company_id}:${date}`, payload: { date } }];
  });
  if (!jobs.length) return 0;
  const queued = await runCommand(engine, 'queue_watched_imports', { actor: systemActor, companyId: null }, (tx) => enqueueJobs(tx, jobs));
  return queued.filter((j) => j.created).length;
}

/** A run now, besides the nightly one (the owner's "run now"). */
export async function queueWatchedImportNow(engine: Pick<Engine, 'db' | 'clock'> & Partial<Pick<Engine, 'writeWait'>>, actor: Actor, companyId: string): Promise<string> {
  const at = timestamp(engine.clock);
  const [job] = await runCommand(engine, 'queue_watched_import', { actor, companyId }, (tx) => enqueueJobs(tx, [{ companyId, kind: IMPORT_WATCH, idempotencyKey: `${IMPORT_WATCH}:${companyId}:${at}`, payload: { at } }]));
  return job.id;
}

/** The file a watched path names: itself, or a folder's newest CSV or XLSX; else why there is none. */
export function watchedFile(path: string): { file: string; size: number } | { problem: string } {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    return { problem: `There is no file or folder at ${path}` };
  }
  if (stat.isFile()) return { file: path, size: stat.size };
  if (!stat.isDirectory()) return { problem: `${path} is neither a file nor a folder` };
  let newest: { file: string; size: number; mtime: number } | null = null;
  for (const name of readdirSync(path)) {
    if (!FILE_TYPES.includes(extname(name).toLowerCase())) continue;
    const file = join(path, name);
    const s = statSync(file, { throwIfNoEntry: false });
    if (s?.isFile() && (!newest || s.mtimeMs > newest.mtime)) newest = { file, size: s.size, mtime: s.mtimeMs };
  }
  return newest ? { file: newest.file, size: newest.size } : { problem: `The folder ${path} holds no CSV or XLSX file` };
}

/** A refusal of the import in words: its message and, where it names fields or rows, the first of them. */
function failureWords(err: unknown): string {
  if (!(err instanceof DomainError)) throw err;
  const first = err.errors ? Object.values(err.errors)[0]?.[0] : undefined;
  return first ? `${err.message}: ${first}` : err.message;
}

const ACTOR: Actor = { ...systemActor, name: 'nightly import' };

/** One run of a company's watched import; its outcome is logged, a failure included, and the job succeeds. */
export const runWatchedImportJob: JobHandler = async (job, ctx) => {
  const { engine } = ctx;
  const watch = await getImportWatch(engine.db, job.company_id);
  if (!watch || !watch.enabled) return;
  const started = timestamp(engine.clock);
  const run = { id: newId(), company_id: job.company_id, started_at: started, file: watch.path, sha256: null as string | null, preset: watch.preset, counts: null as string | null, notes: null as string | null, message: null as string | null };
  let status: ImportRunStatus = 'failed';
  const found = watchedFile(watch.path);
  if ('problem' in found) run.message = found.problem;
  else if (found.size > MAX_WATCHED_BYTES) {
    run.file = found.file;
    run.message = `${found.file} is ${(found.size / 1_048_576).toFixed(0)} MB; a watched import reads at most ${MAX_WATCHED_BYTES / 1_048_576} MB`;
  } else {
    run.file = found.file;
    const bytes = new Uint8Array(readFileSync(found.file));
    run.sha256 = createHash('sha256').update(bytes).digest('hex');
    const last = await engine.db
      .selectFrom('import_runs')
      .select(['sha256', 'file'])
      .where('company_id', '=', job.company_id)
      .where('status', 'in', ['imported', 'unchanged'])
      .orderBy('started_at', 'desc')
      .orderBy('id', 'desc')
      .executeTakeFirst();
    if (last?.sha256 === run.sha256 && last.file === run.file) status = 'unchanged';
    else {
      try {
        const report = await importOnOwnConnection(engine, { companyId: job.company_id, actor: ACTOR, bytes, mapping: watch.mapping ?? (watch.preset ? PRESETS[watch.preset] : undefined), dryRun: false });
        run.preset = report.preset ?? watch.preset;
        run.counts = JSON.stringify(report.counts);
        run.notes = JSON.stringify(report.notes);
        if (report.errors.length) {
          const e = report.errors[0];
          run.message = `${report.errors.length} row error${report.errors.length === 1 ? '' : 's'}: nothing was imported. Row ${e.row}${e.column ? `, column ${e.column}` : ''}: ${e.message}`;
        } else status = 'imported';
      } catch (err) {
        run.message = failureWords(err);
      }
    }
  }
  await ctx.succeed({
    actor: ACTOR,
    write: async (tx) => {
      await tx.db.insertInto('import_runs').values({ ...run, status, finished_at: tx.now }).execute();
      // The log keeps the latest runs.
      await tx.db
        .deleteFrom('import_runs')
        .where('company_id', '=', job.company_id)
        .where('id', 'not in', tx.db.selectFrom('import_runs').select('id').where('company_id', '=', job.company_id).orderBy('started_at', 'desc').orderBy('id', 'desc').limit(RUNS_KEPT))
        .execute();
    },
  });
};
