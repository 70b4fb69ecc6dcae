/**
 * Importing customers, invoices and payments from a CSV or XLSX file. The file and the mapping
 * must be readable (else a 400); then every row is checked and every row error reported. A dry
 * run writes nothing; a real run writes everything in one command, or nothing at all when any
 * row has an error.
 */
import { today as todayOf, timestamp } from '../clock';
import { openDatabase } from '../db/connection';
import { type Actor, type Engine, runCommand } from '../engine';
import { yieldToEventLoop } from '../yielding';
import { NotFoundError, ValidationError } from '../errors';
import { applyPlan } from './apply';
import { type CompiledMapping, compileMapping, type Entity, ENTITIES, formatsOf, type Mapping, validateMapping } from './mapping';
import { PRESETS } from './mappings/index';
import { type Counts, emptyCounts, type Plan, planImport } from './plan';
import { type ParsedRow, readRows, type RowError } from './rows';
import { type FileFormat, readTable, type Table } from './table';
import { chunks } from '../chunks';

export interface ImportOptions {
  companyId: string;
  actor: Actor;
  bytes: Uint8Array;
  mapping: Mapping;
  /** Overrides the mapping's entity. */
  entity?: Entity;
  /** Detected from the content when absent. */
  format?: FileFormat;
  sheet?: string;
  dryRun: boolean;
}

export interface ImportReport {
  dry_run: boolean;
  entity: Entity;
  /** Data rows read (the header not counted). */
  rows: number;
  /** What was written; for a dry run, what would be written for the rows without errors. */
  counts: { customers: Counts; invoices: Counts; payments: Counts };
  labels_created: string[];
  errors: RowError[];
}

/** A preset by name, or a mapping object (from a JSON file or request field); exactly one. */
export function resolveMapping(source: { preset?: string; mapping?: unknown }): Mapping {
  if ((source.preset === undefined) === (source.mapping === undefined)) {
    throw new ValidationError('Give a mapping or a preset', { mapping: ['Give exactly one of mapping and preset'] });
  }
  if (source.preset !== undefined) {
    const preset = PRESETS[source.preset];
    if (!preset) throw new ValidationError(`No preset named ${source.preset}`, { preset: [`Must be one of ${Object.keys(PRESETS).join(', ')}`] });
    return preset;
  }
  return validateMapping(source.mapping);
}

export function parseEntity(value: string): Entity {
  if (!(ENTITIES as readonly string[]).includes(value)) throw new ValidationError(`Unknown entity ${value}`, { entity: [`Must be one of ${ENTITIES.join(', ')}`] });
  return value as Entity;
}

/** Rows read per turn of the event loop. */
const READ_SLICE = 500;

/** readRows over slices of the table, letting other work run between them. */
async function readRowsInSlices(table: Table, mapping: CompiledMapping, today: string): Promise<ReturnType<typeof readRows>> {
  const rows: ParsedRow[] = [];
  const errors: RowError[] = [];
  for (const slice of chunks(table.rows, READ_SLICE)) {
    const part = readRows({ ...table, rows: slice }, mapping, today);
    rows.push(...part.rows);
    errors.push(...part.errors);
    await yieldToEventLoop();
  }
  return { rows, errors };
}

/**
 * An import on a database connection of its own, for the server: its write transaction yields
 * between chunks, and meanwhile other requests keep reading through the engine's connection (WAL:
 * they see the data as it was until the import commits, all or nothing). Their writes wait for it
 * without blocking (runCommand retries while the file is busy).
 */
export async function importOnOwnConnection(engine: Pick<Engine, 'database' | 'clock' | 'writeWait'>, options: ImportOptions): Promise<ImportReport> {
  const own = openDatabase(engine.database.file);
  try {
    return await importFile({ db: own.db, clock: engine.clock, writeWait: engine.writeWait }, options);
  } finally {
    await own.close();
  }
}

export async function importFile(engine: Pick<Engine, 'db' | 'clock'> & Partial<Pick<Engine, 'writeWait'>>, options: ImportOptions): Promise<ImportReport> {
  const entity = options.entity ?? options.mapping.entity;
  if (!entity) throw new ValidationError('Say what the file holds', { entity: [`Give entity (${ENTITIES.join(', ')}) in the request or the mapping`] });
  const company = await engine.db.selectFrom('companies').select(['id', 'currency']).where('id', '=', options.companyId).executeTakeFirst();
  if (!company) throw new NotFoundError('Company', options.companyId);
  const formats = formatsOf(options.mapping);
  const table = await readTable(options.bytes, { format: options.format, sheet: options.sheet, delimiter: formats.delimiter, encoding: formats.encoding });
  const mapping = compileMapping(options.mapping, entity, table);

  const report = (plan: Plan, rowErrors: RowError[], written: boolean): ImportReport => {
    const errors = [...rowErrors, ...plan.errors].sort((a, b) => a.row - b.row);
    const counted = options.dryRun || written;
    return {
      dry_run: options.dryRun,
      entity,
      rows: table.rows.length,
      counts: counted ? plan.counts : { customers: emptyCounts(), invoices: emptyCounts(), payments: emptyCounts() },
      labels_created: counted ? plan.labelsCreated : [],
      errors,
    };
  };
  const plan = async (db: Parameters<typeof planImport>[0], today: string, now: string) => {
    const parsed = await readRowsInSlices(table, mapping, today);
    return { parsed, plan: await planImport(db, { companyId: company.id, currency: company.currency, today, mapping, rows: parsed.rows }, now) };
  };

  if (options.dryRun) {
    const { parsed, plan: p } = await plan(engine.db, todayOf(engine.clock), timestamp(engine.clock));
    return report(p, parsed.errors, false);
  }
  return runCommand(engine, 'import', { actor: options.actor, companyId: company.id }, async (tx) => {
    const { parsed, plan: p } = await plan(tx.db, tx.today, tx.now);
    // All or nothing: a single row error and the file writes nothing.
    if (parsed.errors.length || p.errors.length) return report(p, parsed.errors, false);
    await applyPlan(tx, p);
    return report(p, parsed.errors, true);
  });
}
