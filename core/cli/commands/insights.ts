import { type Engine } from '../../engine';
import { openEngine } from '../../runtime/engine';
import { refreshIntelligence } from '../../intelligence/runner';
import { findCompany } from '../company';
import { CLI_WRITE_WAIT, DB_OPTIONS, databaseFile, parse, subcommand, UsageError } from '../options';
import { progressPrinter } from '../progress';
import { USAGE } from '../usage.cjs';


/** Why no customer needed the models: the ledger's state in words. */
async function whyNothing(engine: Engine, companyId: string): Promise<string> {
  const row = await engine.db
    .selectFrom('invoices')
    .select((eb) => [eb.fn.countAll<number>().as('invoices'), eb.fn.sum<number>(eb.case().when('closing_reason', 'is', null).then(1).else(0).end()).as('open')])
    .where('company_id', '=', companyId)
    .executeTakeFirstOrThrow();
  if (!row.invoices) return 'it has no invoices yet';
  if (!Number(row.open)) return `every invoice is paid or closed (${row.invoices} invoices) and no customer has a conversation`;
  return 'no customer has an open balance or a conversation';
}

/** Recomputes a company's insights and recommended actions now, in this process. */
export async function insightsCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  subcommand('insights', sub, ['refresh'], USAGE.insights);
  const { values } = parse(rest, { ...DB_OPTIONS, company: { type: 'string' }, json: { type: 'boolean' } });
  if (!values.company) throw new UsageError(USAGE.insights);
  const engine = await openEngine({ file: databaseFile(values), writeWait: CLI_WRITE_WAIT });
  try {
    const company = await findCompany(engine, values.company);
    const started = performance.now();
    const printer = values.json ? undefined : progressPrinter(process.stderr, 'customers');
    // A bar only when there are customers to go through (the company's own figures are the last step).
    const report = await refreshIntelligence(engine, company.id, { onProgress: printer && ((p) => p.total > 1 && printer(p)) });
    const seconds = (performance.now() - started) / 1000;
    if (values.json) {
      console.log(JSON.stringify({ ...report, seconds: Math.round(seconds * 100) / 100 }));
      return 0;
    }
    if (!report.customers) {
      console.log(`Nothing to recompute for ${company.name}: ${await whyNothing(engine, company.id)}. Its company-wide figures are up to date.`);
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
