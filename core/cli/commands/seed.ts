import { statSync } from 'node:fs';
import { openEngine } from '../../runtime/engine';
import { type SeedProgress, seedDatabase } from '../../seed';
import { defaultDataDir } from '../../paths';
import { CLI_WRITE_WAIT, DB_OPTIONS, databaseFile, intOption, parse, UsageError } from '../options';
import { progressPrinter } from '../progress';


/** Progress on stderr, a printer per phase (invoices written, then indexes rebuilt). */
function seedProgress() {
  const printers = { invoices: progressPrinter(process.stderr, 'invoices'), indexes: progressPrinter(process.stderr, 'indexes') };
  return (step: SeedProgress) => printers[step.phase](step);
}

/** Customers for a ledger of `invoices` when --customers is not given: about one per 20 invoices. */
export function customersFor(invoices: number): number {
  return Math.max(1, Math.round(invoices / INVOICES_PER_CUSTOMER));
}

const INVOICES_PER_CUSTOMER = 20;

/**
 * Fills a database with generated data, the same for the same seed and date. With --demo: the
 * demo workspace (the database must have no users), N invoices over M customers in its first
 * company. Without: one new company holding the generated ledger.
 */
export async function seedCommand(args: string[]): Promise<number> {
  const { values } = parse(args, {
    ...DB_OPTIONS,
    demo: { type: 'boolean' },
    invoices: { type: 'string' },
    customers: { type: 'string' },
    seed: { type: 'string' },
  });
  // Generated data never lands in the workspace the desktop app uses unless a file or folder is named.
  if (!values.db && !values['data-dir'] && !values.demo) {
    throw new UsageError(`seed writes generated data: give --db FILE (or --data-dir DIR), or --demo for the demo folder; it never writes into your data folder (${defaultDataDir()}) unless told`);
  }
  const file = databaseFile(values, Boolean(values.demo), true);
  const invoices = values.invoices === undefined ? undefined : intOption(values.invoices, 'invoices', 0);
  const options = {
    demo: values.demo ?? false,
    invoices,
    // A ledger of N invoices has about N / 20 customers unless told (the generator's own default is the demo's size).
    customers: values.customers === undefined ? (invoices === undefined ? undefined : customersFor(invoices)) : intOption(values.customers, 'customers', 1, 1),
    seed: intOption(values.seed, 'seed', 1),
    // This process owns the file while it seeds: the fast settings are safe here.
    exclusive: true,
    // The CLI runs on tsx, so a large ledger can be generated in a worker thread while this one writes.
    worker: true,
    onProgress: seedProgress(),
  };
  const engine = await openEngine({ file, writeWait: CLI_WRITE_WAIT });
  const started = performance.now();
  try {
    const report = await seedDatabase(engine, options);
    const seconds = (performance.now() - started) / 1000;
    for (const c of report.companies) {
      const l = c.ledger;
      console.log(`${c.name} (${c.id}): ${l.customers} customers, ${l.invoices} invoices, ${l.payments} payments, ${l.labels} invoice labels`);
      if (options.demo && !c.insights) console.log(`  insights: not computed at this size; \`ardesk insights refresh --company ${c.id}\` or the server's daily refresh computes them`);
    }
    if (report.users.length) console.log(`users: ${report.users.map((u) => `${u} / ${u}`).join(', ')}`);
    console.log(`seeded ${file} with seed ${report.seed} in ${seconds.toFixed(1)} s`);
  } finally {
    await engine.close();
  }
  console.log(`database size: ${(statSync(file).size / 1_048_576).toFixed(0)} MB`);
  return 0;
}
