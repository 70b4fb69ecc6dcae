import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { systemActor } from '../../engine';
import { type ImportSummary, importStatement } from '../../bank/import';
import { readStatement } from '../../bank/read/detect';
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
  const { values } = parse(rest, { ...DB_OPTIONS, company: { type: 'string' }, file: { type: 'string' }, 'dry-run': { type: 'boolean' }, json: { type: 'boolean' } });
  if (!values.company || !values.file) throw new UsageError(USAGE.bank);
  let bytes: Buffer;
  try {
    bytes = readFileSync(values.file);
  } catch (err) {
    throw new UsageError(`cannot read --file ${values.file}: ${(err as Error).message}`);
  }
  const statement = readStatement(bytes, basename(values.file));
  const engine = await openEngine({ file: databaseFile(values), writeWait: CLI_WRITE_WAIT });
  try {
    const company = await findCompany(engine, values.company);
    const summary = await importStatement(engine, {
      companyId: company.id,
      actor: { ...systemActor, name: 'ardesk bank import' },
      statement,
      fileName: basename(values.file),
      dryRun: values['dry-run'] ?? false,
    });
    console.log(values.json ? JSON.stringify(summary, null, 2) : bankSummary(basename(values.file), summary));
    return 0;
  } finally {
    await engine.close();
  }
}
