import { useCallback } from 'react';
import { type ChartOption, Chart, cssVar } from '../components/Chart';
import { ErrorBox } from '../components/ErrorBox';
import { useLoad } from '../components/useLoad';
import { formatDate, formatMonth } from '../desk/format';
import { api } from '../state/session';

const DAYS = [
  { key: 'dso', label: 'DSO', color: '--accent' },
  { key: 'best_possible_dso', label: 'Best possible DSO', color: '--ok' },
  { key: 'average_days_delinquent', label: 'Average days delinquent', color: '--bad' },
] as const;
const RATES = [
  { key: 'cei', label: 'Collection effectiveness (CEI)' },
  { key: 'promise_kept_rate', label: 'Promises kept' },
] as const;

const days = (v: number | null) => (v === null ? 'Not enough data' : `${v.toFixed(1)} days`);
const rate = (v: number | null) => (v === null ? 'Not enough data' : `${v.toFixed(1)}%`);

/** DSO, best possible DSO, average days delinquent, CEI and promise-kept rate: now, and month by month for a year. */
export function MetricsSection({ companyId, asOf, waiting }: { companyId: string; asOf: string; /** True until the aging has answered: then this asks. */ waiting: boolean }) {
  const metrics = useLoad(
    async (signal) => (waiting ? null : api.get('/api/companies/{company_id}/analytics/metrics', { path: { company_id: companyId }, query: { as_of: asOf, months: 12 }, signal })),
    [companyId, asOf, waiting],
  );
  const data = metrics.data;
  const option = useCallback((): ChartOption => {
    const trend = data?.trend ?? [];
    const axis = { axisLabel: { color: cssVar('--muted') }, axisLine: { lineStyle: { color: cssVar('--border') } }, splitLine: { lineStyle: { color: cssVar('--border') } } };
    return {
      animationDuration: 200,
      grid: { left: 8, right: 8, top: 34, bottom: 8, containLabel: true },
      legend: { top: 0, textStyle: { color: cssVar('--text') } },
      tooltip: { trigger: 'axis', valueFormatter: (v: number | null) => days(v) },
      xAxis: { type: 'category', data: trend.map((t) => formatMonth(t.month)), ...axis },
      yAxis: { type: 'value', name: 'days', nameTextStyle: { color: cssVar('--muted') }, ...axis },
      series: DAYS.map((m) => ({ name: m.label, type: 'line', connectNulls: false, itemStyle: { color: cssVar(m.color) }, lineStyle: { color: cssVar(m.color) }, data: trend.map((t) => t[m.key]) })),
    };
  }, [data]);
  return (
    <section className="card" aria-labelledby="metrics-title">
      <h2 id="metrics-title">Collection metrics on {formatDate(asOf)}</h2>
      {metrics.error !== null && <ErrorBox what="the metrics" error={metrics.error} onRetry={metrics.reload} />}
      {!data && metrics.error === null && (
        <p className="muted" role="status">
          {waiting ? 'The metrics load after the aging…' : 'Loading the metrics…'}
        </p>
      )}
      {data && (
        <>
          <div className="figures" data-testid="metrics">
            {DAYS.map((m) => (
              <div key={m.key} className="figure">
                <div className="label">{m.label}</div>
                <div className="value">{days(data.current[m.key])}</div>
              </div>
            ))}
            {/* CEI over a whole month leads; the month so far is labelled as such (two days in, it says little). */}
            <div className="figure" data-testid="cei-headline">
              <div className="label">CEI, {formatMonth(data.headline_cei.month)}</div>
              <div className="value">{rate(data.headline_cei.cei)}</div>
            </div>
            <div className="figure" data-testid="cei-month-to-date">
              <div className="label">CEI, {formatMonth(data.as_of.slice(0, 7))} to date</div>
              <div className="value">{rate(data.current.cei)}</div>
            </div>
            <div className="figure">
              <div className="label">Promises kept, {formatMonth(data.as_of.slice(0, 7))} to date</div>
              <div className="value">{rate(data.current.promise_kept_rate)}</div>
            </div>
          </div>
          <Chart option={option} label="DSO, best possible DSO and average days delinquent per month over the last 12 months; the table below gives the same figures" testId="metrics-chart" />
          <details>
            <summary>Month by month</summary>
            <table className="data-table" data-testid="metrics-months">
              <thead>
                <tr>
                  <th scope="col">Month</th>
                  {[...DAYS, ...RATES].map((m) => (
                    <th key={m.key} scope="col" className="num">
                      {m.label}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {data.trend.map((t) => (
                  <tr key={t.month}>
                    <td>{formatMonth(t.month)}</td>
                    {DAYS.map((m) => (
                      <td key={m.key} className="num">
                        {days(t[m.key])}
                      </td>
                    ))}
                    {RATES.map((m) => (
                      <td key={m.key} className="num">
                        {rate(t[m.key])}
                      </td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </details>
        </>
      )}
    </section>
  );
}
