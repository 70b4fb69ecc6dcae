import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { systemActor } from '../../engine';
import { openEngine } from '../../runtime/engine';
import { type ImportReport, importFile, parseEntity, resolveMapping } from '../../import/import';
import type { FileFormat } from '../../import/table';
import { findCompany } from '../company';
import { CLI_WRITE_WAIT, DB_OPTIONS, databaseFile, parse, UsageError } from '../options';
import { USAGE } from '../usage.cjs';


function readJsonFile(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read --mapping ${file}: ${(err as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new UsageError(`--mapping ${file} is not valid JSON: ${(err as Error).message}`);
  }
}

function summary(file: string, report: ImportReport): string {
  const lines = [
    report.dry_run
      ? `Dry run of ${file} (${report.entity}, ${report.rows} rows): nothing was written`
      : report.errors.length
        ? `Import of ${file} (${report.entity}, ${report.rows} rows) refused: nothing was written`
        : `Imported ${file} (${report.entity}, ${report.rows} rows)`,
  ];
  for (const entity of ['customers', 'invoices', 'payments'] as const) {
    const c = report.counts[entity];
    lines.push(`${`${entity}:`.padEnd(11)}${c.created} created, ${c.updated} updated, ${c.unchanged} unchanged`);
  }
  if (report.labels_created.length) lines.push(`labels created: ${report.labels_created.join(', ')}`);
  for (const note of report.notes) lines.push(`note: ${note}`);
  if (report.errors.length) {
    lines.push(`${report.errors.length} row error${report.errors.length === 1 ? '' : 's'}:`);
    for (const e of report.errors) lines.push(`  row ${e.row}${e.column ? `, column ${e.column}` : ''}: ${e.message}`);
  }
  return lines.join('\n');
}

/** Imports a CSV or XLSX file into a company; exit code 1 when any row has an error. */
export async function importCommand(args: string[]): Promise<number> {
  const { values } = parse(args, {
    ...DB_OPTIONS,
    company: { type: 'string' },
    file: { type: 'string' },
    entity: { type: 'string' },
    mapping: { type: 'string' },
    preset: { type: 'string' },
    sheet: { type: 'string' },
    format: { type: 'string' },
    'dry-run': { type: 'boolean' },
    json: { type: 'boolean' },
  });
  if (!values.company || !values.file) throw new UsageError(USAGE.import);
  if (values.mapping !== undefined && values.preset !== undefined) throw new UsageError('Give --mapping FILE or --preset NAME, not both (neither: the preset is recognised from the file)');
  if (values.format !== undefined && values.format !== 'csv' && values.format !== 'xlsx') throw new UsageError('--format must be csv or xlsx');
  const mapping = resolveMapping(values.preset !== undefined ? { preset: values.preset } : { mapping: readJsonFile(values.mapping!) });
  const entity = values.entity === undefined ? undefined : parseEntity(values.entity);
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(values.file);
  } catch (err) {
    throw new UsageError(`cannot read --file ${values.file}: ${(err as Error).message}`);
  }
  const engine = await openEngine({ file: databaseFile(values), writeWait: CLI_WRITE_WAIT });
  try {
    const company = await findCompany(engine, values.company);
    const report = await importFile(engine, {
      companyId: company.id,
      actor: { ...systemActor, name: 'ardesk import' },
      bytes,
      mapping,
      entity,
      format: values.format as FileFormat | undefined,
      sheet: values.sheet,
      dryRun: values['dry-run'] ?? false,
    });
    console.log(values.json ? JSON.stringify(report, null, 2) : summary(basename(values.file), report));
    return report.errors.length ? 1 : 0;
  } finally {
    await engine.close();
  }
}
