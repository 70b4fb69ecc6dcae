import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { systemActor } from '../../engine';
import { type ImportSummary, importStatement } from '../../bank/import';
import { readUpload } from '../../bank/upload';
import { openEngine } from '../../runtime/engine';
import { findCompany } from '../company';
import { CLI_WRITE_WAIT, DB_OPTIONS, databaseFile, parse, UsageError } from '../options';
import { USAGE } from '../usage.cjs';

function plural(n: number, one: string): string {
  return `${n.toLocaleString('en-US')} ${one}${n === 1 ? '' : 's'}`;
}

/** What the import did, in words. */
export function bankSummary(file: string, s: ImportSummary): string {
  const period = s.period_start && s.period_end ? `, ${s.period_start} to ${s.period_end}` : '';
  const lines = [
    s.dry_run ? `Dry run of ${file} (${s.format}, account ${s.account}${period}): nothing was written` : `Imported ${file} (${s.format}, account ${s.account}${period})`,
    `entries:    ${s.entries.toLocaleString('en-US')} (${plural(s.credits, 'credit')}, ${plural(s.debits, 'debit')})${s.duplicates ? `; ${plural(s.duplicates, 'duplicate')} already imported, not added` : ''}`,
    `credits:    ${s.applied.toLocaleString('en-US')} applied automatically, ${s.suggested.toLocaleString('en-US')} to review with suggestions, ${s.unmatched.toLocaleString('en-US')} unmatched`,
  ];
  for (const w of s.warnings) lines.push(`warning:    ${w}`);
  return lines.join('\n');
}

/** `ardesk bank import`: reads a bank statement file into a company and matches its credits. */
export async function bankCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== 'import') throw new UsageError(sub === undefined || sub.startsWith('-') ? USAGE.bank : `unknown subcommand "bank ${sub}"\n${USAGE.bank}`);
  const { values } = parse(rest, { ...DB_OPTIONS, company: { type: 'string' }, file: { type: 'string' }, mapping: { type: 'string' }, 'dry-run': { type: 'boolean' }, json: { type: 'boolean' } });
  if (!values.company || !values.file) throw new UsageError(USAGE.bank);
  const read = (path: string, option: string): Buffer => {
    try {
      return readFileSync(path);
    } catch (err) {
      throw new UsageError(`cannot read ${option} ${path}: ${(err as Error).message}`);
    }
  };
  const bytes = read(values.file, '--file');
  // A mapping as JSON text, or @FILE holding it.
  const mapping = values.mapping?.startsWith('@') ? read(values.mapping.slice(1), '--mapping').toString('utf8') : values.mapping;
  const engine = await openEngine({ file: databaseFile(values), writeWait: CLI_WRITE_WAIT });
  try {
    const company = await findCompany(engine, values.company);
    const actor = { ...systemActor, name: 'ardesk bank import' };
    const dryRun = values['dry-run'] ?? false;
    const { statement, keep } = await readUpload(engine.db, company.id, bytes, basename(values.file), mapping);
    const summary = await importStatement(engine, { companyId: company.id, actor, statement, fileName: basename(values.file), dryRun });
    if (!dryRun) await keep(engine, { companyId: company.id, actor });
    console.log(values.json ? JSON.stringify(summary, null, 2) : bankSummary(basename(values.file), summary));
    return 0;
  } finally {
    await engine.close();
  }
}
