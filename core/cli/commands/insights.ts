import { createEngine } from '../../engine';
import { refreshIntelligence } from '../../intelligence/runner';
import { findCompany } from '../company';
import { CLI_WRITE_WAIT, DB_OPTIONS, databaseFile, parse, UsageError } from '../options';
import { progressPrinter } from '../progress';

export const INSIGHTS_HELP = 'ardesk insights refresh --company NAME_OR_ID [--json] [--db FILE | --data-dir DIR]';

/** Recomputes a company's insights and recommended actions now, in this process. */
export async function insightsCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== 'refresh') throw new UsageError(INSIGHTS_HELP);
  const { values } = parse(rest, { ...DB_OPTIONS, company: { type: 'string' }, json: { type: 'boolean' } });
  if (!values.company) throw new UsageError(INSIGHTS_HELP);
  const engine = await createEngine({ file: databaseFile(values), writeWait: CLI_WRITE_WAIT });
  try {
    const company = await findCompany(engine, values.company);
    const started = performance.now();
    const report = await refreshIntelligence(engine, company.id, { onProgress: values.json ? undefined : progressPrinter(process.stderr, 'customers') });
    const seconds = (performance.now() - started) / 1000;
    if (values.json) {
      console.log(JSON.stringify({ ...report, seconds: Math.round(seconds * 100) / 100 }));
      return 0;
    }
    console.log(
      [
        `Refreshed the intelligence of ${company.name} in ${seconds.toFixed(1)} s: ${report.customers} customers`,
        `insights: ${report.insights_opened} new or changed, ${report.insights_unchanged} unchanged, ${report.insights_closed} closed`,
        `actions:  ${report.actions_proposed} proposed, ${report.actions_cancelled} withdrawn`,
      ].join('\n'),
    );
    return 0;
  } finally {
    await engine.close();
  }
}
