import { runBench } from '../../bench/run';
import { intOption, parse } from '../options';


/** npm run bench: the invoice API's latency over real HTTP at scale (see core/bench/run.ts). */
export async function benchCommand(args: string[]): Promise<number> {
  const { values } = parse(args, {
    invoices: { type: 'string' },
    customers: { type: 'string' },
    samples: { type: 'string' },
    warmup: { type: 'string' },
    db: { type: 'string' },
    keep: { type: 'boolean' },
  });
  return runBench({
    invoices: intOption(values.invoices, 'invoices', 1_000_000, 1),
    customers: intOption(values.customers, 'customers', 50_000, 1),
    samples: Math.min(intOption(values.samples, 'samples', 50, 1), 10_000),
    warmup: Math.min(intOption(values.warmup, 'warmup', 5, 1), 1_000),
    db: values.db,
    keep: values.keep ?? false,
  });
}
