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
import { PRESET_LABELS, PRESETS } from './mappings/index';
import { withFileDates } from './dates-of-file';
import { detectFilePreset } from './detect';
import { shapeTable } from './layout';
import { type Counts, emptyCounts, type Plan, planImport } from './plan';
import { type ParsedRow, readRows, type RowError, type SkipReason } from './rows';
import { detectFormat, type FileFormat, readTable, type Table } from './table';
import { chunks } from '../chunks';

export interface ImportOptions {
  companyId: string;
  actor: Actor;
  bytes: Uint8Array;
  /** Absent: the preset whose columns the file has (else a 400). */
  mapping?: Mapping;
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
  /** The preset the file was recognised as, when no mapping was given. */
  preset: string | null;
  /** Data rows read (the header, titles, headings and totals not counted). */
  rows: number;
  /** What was written; for a dry run, what would be written for the rows without errors. */
  counts: { customers: Counts; invoices: Counts; payments: Counts };
  labels_created: string[];
  /** What the import decided that the file does not say in so many words: rows skipped, the date format read, paid invoices without a date. */
  notes: string[];
  errors: RowError[];
}

/** A preset by name, or a mapping object (from a JSON file or request field); neither: undefined, the file's preset is detected. */
export function resolveMapping(source: { preset?: string; mapping?: unknown }): Mapping | undefined {
  if (source.preset !== undefined && source.mapping !== undefined) {
    throw new ValidationError('Give a mapping or a preset', { mapping: ['Give one of mapping and preset, not both'] });
  }
  if (source.preset === undefined && source.mapping === undefined) return undefined;
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

function skippedNotes(skips: Map<SkipReason, number>): string[] {
  return [...skips].map(([reason, n]) => `${plural(n, 'row')} skipped: ${SKIPPED_WORDS[reason]}`);
}

/** Rows read per turn of the event loop. */
const READ_SLICE = 500;

const SKIPPED_WORDS: Record<SkipReason, string> = {
  void: 'voided invoices',
  draft: 'draft invoices',
  not_invoice: 'no invoice or credit note (payments, journal lines, drafts in Odoo)',
};

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
}

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
  const company = await engine.db.selectFrom('companies').select(['id', 'currency']).where('id', '=', options.companyId).executeTakeFirst();
  if (!company) throw new NotFoundError('Company', options.companyId);
  let preset: string | null = null;
  let given = options.mapping;
  if (!given) {
    preset = await detectFilePreset(options.bytes, { format: options.format ?? detectFormat(options.bytes), sheet: options.sheet });
    if (!preset) {
      throw new ValidationError('No preset knows this file', { mapping: [`Its columns are none of the built-in exports (${Object.values(PRESET_LABELS).join('; ')}): give a mapping or a preset`] });
    }
    given = PRESETS[preset];
  }
  const entity = options.entity ?? given.entity;
  if (!entity) throw new ValidationError('Say what the file holds', { entity: [`Give entity (${ENTITIES.join(', ')}) in the request or the mapping`] });
  const formats = formatsOf(given);
  const raw = await readTable(options.bytes, { format: options.format, sheet: options.sheet, delimiter: formats.delimiter, encoding: formats.encoding });
  const shaped = shapeTable(raw, given.layout);
  const table = shaped.table;
  const { mapping: resolved, dates } = withFileDates(given, table);
  const mapping = compileMapping(resolved, entity, table);
  const notes: string[] = [];
  if (preset) notes.push(`Recognised as ${PRESET_LABELS[preset]} (preset ${preset})`);
  if (shaped.skipped) notes.push(`${plural(shaped.skipped, 'row')} of titles, headings and totals skipped`);
  if (dates) {
    notes.push(
      dates.ambiguous
        ? 'Dates read month first (M/D/YYYY): no day above 12 tells which comes first; give formats.date if they are day first'
        : dates.format === 'YYYY-MM-DD'
          ? 'Dates read as YYYY-MM-DD'
          : `Dates read ${dates.format === 'D/M/YYYY' ? 'day first (D/M/YYYY)' : 'month first (M/D/YYYY)'}, as the file's dates show`,
    );
  }

  const report = (plan: Plan, rowErrors: RowError[], written: boolean): ImportReport => {
    const errors = [...rowErrors, ...plan.errors].sort((a, b) => a.row - b.row);
    const counted = options.dryRun || written;
    return {
      dry_run: options.dryRun,
      entity,
      preset,
      rows: table.rows.length,
      counts: counted ? plan.counts : { customers: emptyCounts(), invoices: emptyCounts(), payments: emptyCounts() },
      labels_created: counted ? plan.labelsCreated : [],
      notes: [...notes, ...skippedNotes(parsedSkips), ...plan.notes],
      errors,
    };
  };
  const parsedSkips = new Map<SkipReason, number>();
  const plan = async (db: Parameters<typeof planImport>[0], today: string, now: string) => {
    const parsed = await readRowsInSlices(table, mapping, today);
    parsedSkips.clear();
    for (const r of parsed.rows) if (r.skipped) parsedSkips.set(r.skipped, (parsedSkips.get(r.skipped) ?? 0) + 1);
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
