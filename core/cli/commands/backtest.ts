import { openEngine } from '../../runtime/engine';
import { backtest } from '../../intelligence/backtest';
import { forecastBacktest, type HorizonScore } from '../../intelligence/cash-forecast';
import { loadCashHistory } from '../../intelligence/cash-history';
import { loadBacktestHistory } from '../../intelligence/facts';
import { findCompany } from '../company';
import { DB_OPTIONS, databaseFile, parse, UsageError } from '../options';
import { USAGE } from '../usage.cjs';


type Report = ReturnType<typeof backtest>;

/**
 * The report for scripts: where no invoice was there to score (no paid invoices, an age none
 * reached), the scores are null, not 0, which would read as a perfect prediction.
 */
export function withNulls(report: Report): unknown {
  const scores = <T extends object>(o: T, none: boolean, keys: string[]) => (none ? { ...o, ...Object.fromEntries(keys.filter((k) => k in o).map((k) => [k, null])) } : o);
  const SCORES = ['mae_days', 'median_ae_days', 'late_accuracy', 'interval_coverage', 'brier_90d'];
  const empty = report.invoices === 0;
  return {
    ...scores(report, empty, SCORES),
    ...(report.intervals === 0 ? { interval_coverage: null } : {}),
    baselines: Object.fromEntries(Object.entries(report.baselines).map(([k, b]) => [k, scores(b, empty, SCORES)])),
    conditional: report.conditional.map((c) => ({
      ...scores(c, c.dated === 0, SCORES),
      baselines: Object.fromEntries(Object.entries(c.baselines).map(([k, b]) => [k, scores(b, c.dated === 0, SCORES)])),
    })),
  };
}

/** Replays the company's paid invoices through the pay-date model and two baselines, and prints the scores. */
export async function backtestCommand(args: string[]): Promise<number> {
  const { values } = parse(args, { ...DB_OPTIONS, company: { type: 'string' }, json: { type: 'boolean' } });
  if (!values.company) throw new UsageError(USAGE.backtest);
  const engine = await openEngine({ file: databaseFile(values) });
  try {
    const company = await findCompany(engine, values.company);
    const report = backtest(loadBacktestHistory(engine, company.id));
    const forecast = forecastBacktest(loadCashHistory(engine, company.id));
    if (values.json) {
      console.log(JSON.stringify({ ...(withNulls(report) as object), forecast }));
      return 0;
    }
    const { due_date: due, customer_mean: mean } = report.baselines;
    const pct = (v: number) => `${(v * 100).toFixed(1)}%`;
    console.log(
      [
        `Backtest of ${company.name}: ${report.invoices} paid invoices replayed, each predicted at its invoice date from what was settled before`,
        '',
        `${'predictor'.padEnd(28)}${'MAE (days)'.padStart(12)}${'late/on-time accuracy'.padStart(24)}`,
        `${'pay-date model'.padEnd(28)}${report.mae_days.toFixed(2).padStart(12)}${pct(report.late_accuracy).padStart(24)}`,
        `${'due date'.padEnd(28)}${due.mae_days.toFixed(2).padStart(12)}${pct(due.late_accuracy).padStart(24)}`,
        `${'customer running mean'.padEnd(28)}${mean.mae_days.toFixed(2).padStart(12)}${pct(mean.late_accuracy).padStart(24)}`,
        '',
        `median absolute error: ${report.median_ae_days} days`,
        `80% interval coverage: ${report.intervals ? pct(report.interval_coverage) : 'n/a'} (of the ${report.intervals} predictions made once something was settled; before that there is no interval)`,
        '',
        'Given still unpaid at an age past due, each invoice predicted at that moment (MAE: model / due date / customer mean):',
        `${'age'.padEnd(8)}${'unpaid'.padStart(8)}${'dated'.padStart(8)}${'MAE'.padStart(22)}${'80% coverage'.padStart(14)}${'Brier 90d'.padStart(11)}`,
        ...report.conditional.map((c) =>
          c.dated
            ? `${`${c.age_days} days`.padEnd(8)}${String(c.invoices).padStart(8)}${String(c.dated).padStart(8)}${`${c.mae_days.toFixed(2)} / ${c.baselines.due_date.mae_days.toFixed(2)} / ${c.baselines.customer_mean.mae_days.toFixed(2)}`.padStart(22)}${pct(c.interval_coverage).padStart(14)}${c.brier_90d.toFixed(3).padStart(11)}`
            : `${`${c.age_days} days`.padEnd(8)}${String(c.invoices).padStart(8)}${String(c.dated).padStart(8)}${'(too few reached this age to date)'.padStart(36)}`,
        ),
        '',
        'The weekly cash-in forecast, made every week from what was known then, against what came in (WAPE: model / due date / run rate):',
        ...forecastLines(forecast),
      ].join('\n'),
    );
    return 0;
  } finally {
    await engine.close();
  }
}

function forecastLines(forecast: HorizonScore[]): string[] {
  const pct = (v: number | null) => (v === null ? 'n/a' : `${(v * 100).toFixed(1)}%`);
  return [
    `${'weeks ahead'.padEnd(12)}${'forecasts'.padStart(10)}${'WAPE'.padStart(30)}${'bias'.padStart(9)}`,
    ...forecast.map((f) => `${String(f.horizon_weeks).padEnd(12)}${String(f.weeks).padStart(10)}${`${pct(f.wape)} / ${pct(f.baselines.due_date.wape)} / ${pct(f.baselines.run_rate.wape)}`.padStart(30)}${pct(f.bias).padStart(9)}`),
  ];
}
