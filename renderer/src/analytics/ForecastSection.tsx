import { useCallback, useState } from 'react';
import type { Schemas } from '../api/client';
import { accuracyWords } from './accuracy-words';
import { type ChartOption, Chart, cssVar } from '../components/Chart';
import { ScrollRegion } from '../components/ScrollRegion';
import { ErrorBox } from '../components/ErrorBox';
import { Pager } from '../components/SortHeader';
import { useLoad } from '../components/useLoad';
import { apiQuery, DEFAULT_FILTERS, type DeskFilters, toSearch } from '../desk/filters';
import { formatCount, formatDate, formatMoney, formatMoneyShort } from '../desk/format';
import { companyPath, useRoute } from '../state/route';
import { api } from '../state/session';

type Forecast = Schemas['CashflowForecast'];
type Week = Forecast['calendar']['weeks'][number];

export const FORECAST_WINDOWS = [4, 8, 13, 26] as const;

/** The band's two series: its invisible floor (the low end) and its height (high minus low), stacked. */
const RANGE_FLOOR = 'Likely range, low';
const RANGE = 'Likely range (80%)';
/** The forecast the note below measures (the accuracy's own), for the weeks it covers. */
const ALL_CASH_IN = 'Forecast of all cash in';

/** Bars of due and predicted inflows per week, the predicted 80% range as a band, the promised amounts and the trailing weekly average as lines; a click picks the week. */
function ForecastChart({ forecast, currency, onWeek }: { forecast: Forecast; currency: string; onWeek: (index: number) => void }) {
  const option = useCallback((): ChartOption => {
    const muted = cssVar('--muted');
    const accent = cssVar('--accent');
    const axis = { axisLabel: { color: muted }, axisLine: { lineStyle: { color: cssVar('--border') } }, splitLine: { lineStyle: { color: cssVar('--border') } } };
    const ts = forecast.time_series;
    const money = (v: number) => formatMoney(v, currency);
    return {
      animationDuration: 200,
      // Room for the legend on two lines (six series at 1024 px).
      grid: { left: 8, right: 8, top: 58, bottom: 8, containLabel: true },
      legend: { top: 0, textStyle: { color: cssVar('--text') }, data: ['Due', 'Predicted', { name: RANGE, icon: 'rect' }, ALL_CASH_IN, 'Trailing 6-month weekly average', 'Promised by customers'] },
      tooltip: {
        trigger: 'axis',
        axisPointer: { type: 'shadow' },
        // The band's series hold a floor and a height: the tooltip says the range itself.
        formatter: (params: Array<{ seriesName: string; marker: string; value: number | null; dataIndex: number; axisValueLabel: string }>) =>
          [
            params[0]?.axisValueLabel ?? '',
            ...params
              .filter((p) => p.seriesName !== RANGE_FLOOR && p.value !== null && p.value !== undefined)
              .map((p) => (p.seriesName === RANGE ? `${p.marker} Likely between ${money(ts.model_predicted_low[p.dataIndex])} and ${money(ts.model_predicted_high[p.dataIndex])}` : `${p.marker} ${p.seriesName}: ${money(p.value!)}`)),
          ].join('<br>'),
      },
      xAxis: { type: 'category', data: forecast.calendar.weeks.map((w) => w.label), ...axis },
      yAxis: { type: 'value', ...axis, axisLabel: { color: muted, formatter: (v: number) => formatMoneyShort(v, currency) } },
      series: [
        { name: 'Due', type: 'bar', barMaxWidth: 26, itemStyle: { color: muted }, data: ts.due_date_cash_inflows },
        { name: 'Predicted', type: 'bar', barMaxWidth: 26, itemStyle: { color: accent }, data: ts.model_predicted_cash_inflows },
        { name: RANGE_FLOOR, type: 'line', stack: 'range', symbol: 'none', silent: true, lineStyle: { opacity: 0 }, data: ts.model_predicted_low },
        {
          name: RANGE,
          type: 'line',
          stack: 'range',
          symbol: 'none',
          silent: true,
          lineStyle: { opacity: 0 },
          itemStyle: { color: accent },
          areaStyle: { color: accent, opacity: 0.18 },
          data: ts.model_predicted_high.map((high, i) => Math.max(0, high - ts.model_predicted_low[i])),
        },
        { name: ALL_CASH_IN, type: 'line', symbol: 'emptyCircle', symbolSize: 5, lineStyle: { color: cssVar('--text'), width: 1.5 }, itemStyle: { color: cssVar('--text') }, data: ts.forecast_all_cash_in },
        { name: 'Trailing 6-month weekly average', type: 'line', symbol: 'none', lineStyle: { type: 'dashed', color: cssVar('--ok') }, itemStyle: { color: cssVar('--ok') }, data: ts.trailing_6m_avg_weekly_inflows },
        { name: 'Promised by customers', type: 'line', symbol: 'circle', lineStyle: { color: cssVar('--warn') }, itemStyle: { color: cssVar('--warn') }, data: ts.promised_cash_inflows },
      ],
    };
  }, [forecast, currency]);
  return (
    <Chart
      option={option}
      label="Cash-flow forecast: due and predicted inflows per week, the likely range of the predicted inflows as a band, the forecast of all cash in whose accuracy is given below, what customers promised and the trailing weekly average; click a week to list its invoices"
      onClick={onWeek}
      testId="forecast-chart"
    />
  );
}

/** How good this forecast is: measured on the company's latest weeks, beside the two simple ways (the forecast's accuracy). */
function ForecastAccuracyNote({ accuracy }: { accuracy: Forecast['accuracy'] }) {
  const words = accuracyWords(accuracy);
  return (
    <aside className="forecast-accuracy" aria-labelledby="forecast-accuracy-title" data-testid="forecast-accuracy">
      <h3 id="forecast-accuracy-title">How good is this forecast? {words.headline}</h3>
      {words.lines.map((line) => (
        <p key={line} className="small">
          {line}
        </p>
      ))}
      {words.rows.length > 0 && (
        <p className="small">
          The chart&apos;s line &ldquo;{ALL_CASH_IN}&rdquo; is this forecast for the next 8 weeks: the invoices open today, promises and the invoices still to come, averaged with the last 4
          weeks&apos; cash in. The bars are the invoices open today alone.
        </p>
      )}
      {words.rows.length > 0 && (
        <details>
          <summary>Every week ahead</summary>
          <p className="muted small">
            Each Monday of those weeks, the weekly cash-in forecast was made again from what was known that day (open invoices by how late this company's customers pay, promises and payments customers said
            were coming, the invoices a week usually brings), averaged with the last 4 weeks' cash in, and compared with the payments that came in. The share is the misses added up over the cash in.
          </p>
          <table className="data-table" data-testid="forecast-accuracy-table">
            <thead>
              <tr>
                <th scope="col">Weeks ahead</th>
                <th scope="col" className="num">
                  Weeks measured
                </th>
                <th scope="col" className="num">
                  This forecast off by
                </th>
                <th scope="col" className="num">
                  Due dates off by
                </th>
                <th scope="col" className="num">
                  4-week average off by
                </th>
                <th scope="col">Over all weeks</th>
              </tr>
            </thead>
            <tbody>
              {words.rows.map((r) => (
                <tr key={r.ahead}>
                  <td>{r.ahead}</td>
                  <td className="num">{r.weeks}</td>
                  <td className="num">{r.forecast}</td>
                  <td className="num">{r.dueDate}</td>
                  <td className="num">{r.runRate}</td>
                  <td>{r.bias}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </details>
      )}
    </aside>
  );
}

/** The invoices due in the chosen week (the invoice list API), and the customers expected to pay in it. */
function WeekInvoices({ companyId, forecast, week, currency }: { companyId: string; forecast: Forecast; week: Week; currency: string }) {
  const navigate = useRoute((s) => s.navigate);
  // The company's whole week, like the forecast: not the desk's default "my work" view (needing
  // attention, my portfolio), which leaves out every invoice not yet due.
  const filters: DeskFilters = {
    ...DEFAULT_FILTERS,
    work: false,
    ar_owner: '',
    status: ['current', 'overdue'],
    due_date_from: week.start_date,
    due_date_to: week.end_date,
    sort: 'due_date',
    order: 'asc',
  };
  const search = toSearch(filters);
  const invoices = useLoad(
    async (signal) => {
      const page = await api.get('/api/companies/{company_id}/invoices', { path: { company_id: companyId }, query: { ...apiQuery(filters), limit: 100 }, signal });
      return page.items.filter((row) => 'invoice_number' in row);
    },
    [companyId, week.start_date, week.end_date],
  );
  const expected = forecast.week_customers.find((w) => w.code === week.code) ?? { customer_count: 0, customers: [] };
  const index = forecast.calendar.weeks.findIndex((w) => w.code === week.code);
  const deskHref = companyPath(companyId, 'invoices', null, search);
  return (
    <div className="two-col" data-testid="forecast-week">
      <div>
        <h3>
          Invoices due {formatDate(week.start_date)} – {formatDate(week.end_date)}
        </h3>
        {invoices.error !== null && <ErrorBox what="the week's invoices" error={invoices.error} onRetry={invoices.reload} />}
        {invoices.data && invoices.data.length === 0 && <p className="muted">No open invoice is due this week.</p>}
        {invoices.data && invoices.data.length > 0 && (
          <table className="data-table" data-testid="forecast-week-invoices">
            <thead>
              <tr>
                <th scope="col">Invoice</th>
                <th scope="col">Customer</th>
                <th scope="col">Due</th>
                <th scope="col" className="num">
                  Balance
                </th>
              </tr>
            </thead>
            <tbody>
              {invoices.data.map((inv) => (
                <tr key={inv.id}>
                  <td>
                    <a
                      href={companyPath(companyId, 'invoices', inv.id, search)}
                      onClick={(e) => {
                        e.preventDefault();
                        navigate(companyPath(companyId, 'invoices', inv.id, search));
                      }}
                    >
                      {inv.invoice_number}
                    </a>
                  </td>
                  <td>{inv.customer_name}</td>
                  <td>{formatDate(inv.due_date)}</td>
                  <td className="num">{formatMoney(inv.balance, inv.currency)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <p>
          <a
            href={deskHref}
            onClick={(e) => {
              e.preventDefault();
              navigate(deskHref);
            }}
          >
            Open these in the invoice desk
          </a>
        </p>
      </div>
      <div>
        <h3>Expected to pay this week</h3>
        {expected.customer_count === 0 ? (
          <p className="muted">No payment is predicted for this week.</p>
        ) : (
          <>
            <p>
              {formatMoney(forecast.time_series.model_predicted_cash_inflows[index], currency)} expected, likely between{' '}
              {formatMoney(forecast.time_series.model_predicted_low[index], currency)} and {formatMoney(forecast.time_series.model_predicted_high[index], currency)}.
            </p>
            <ul>
              {expected.customers.map((c) => (
                <li key={c.customer}>
                  {c.customer_name}: {formatMoney(c.predicted, currency)}
                </li>
              ))}
            </ul>
            {expected.customer_count > expected.customers.length && (
              <p className="muted small">
                The {formatCount(expected.customers.length)} largest of {formatCount(expected.customer_count)} customers; the table below has them all.
              </p>
            )}
          </>
        )}
      </div>
    </div>
  );
}

/** Customers per page of the table: at 50,000 customers, one table of every row froze the page for seconds. */
const TABLE_PAGE = 50;

/** The cash-flow forecast: the chart, a week's invoices on click, and the table by customer, paged. */
export function ForecastSection({ companyId, currency, waiting }: { companyId: string; currency: string; /** True until the aging has answered: then this asks. */ waiting: boolean }) {
  const [weeks, setWeeks] = useState<number>(13);
  const [weekIndex, setWeekIndex] = useState<number | null>(null);
  const [tableOffset, setTableOffset] = useState(0);
  // One page of customers per request: the week totals and each week's largest customers come with every page.
  const forecast = useLoad(
    async (signal) =>
      waiting
        ? null
        : api.get('/api/companies/{company_id}/analytics/cashflow-forecast', { path: { company_id: companyId }, query: { weeks, customer_offset: tableOffset, customer_limit: TABLE_PAGE }, signal }),
    [companyId, weeks, waiting, tableOffset],
  );
  const data = forecast.data;
  const week = data && weekIndex !== null ? data.calendar.weeks[weekIndex] : null;
  const table = data?.table_inflows_by_customer;
  return (
    <section className="card" aria-labelledby="forecast-title">
      <div className="card-header">
        <h2 id="forecast-title">Cash-flow forecast</h2>
        <div className="segmented" role="group" aria-label="Forecast window">
          {FORECAST_WINDOWS.map((n) => (
            <button
              key={n}
              type="button"
              aria-pressed={weeks === n}
              onClick={() => {
                setWeeks(n);
                setWeekIndex(null);
                setTableOffset(0);
              }}
            >
              {n} weeks
            </button>
          ))}
        </div>
        {data && (
          <label className="toolbar-row">
            Week
            <select value={weekIndex ?? ''} onChange={(e) => setWeekIndex(e.target.value === '' ? null : Number(e.target.value))}>
              <option value="">Choose a week</option>
              {data.calendar.weeks.map((w, i) => (
                <option key={w.code} value={i}>
                  {w.label} ({formatDate(w.start_date)})
                </option>
              ))}
            </select>
          </label>
        )}
      </div>
      {forecast.error !== null && <ErrorBox what="the forecast" error={forecast.error} onRetry={forecast.reload} />}
      {!data && forecast.error === null && (
        <p className="muted" role="status">
          {waiting ? 'The forecast loads after the aging…' : 'Loading the forecast…'}
        </p>
      )}
      {data && (
        <>
          <ForecastChart forecast={data} currency={currency} onWeek={setWeekIndex} />
          <ForecastAccuracyNote accuracy={data.accuracy} />
          {week && <WeekInvoices companyId={companyId} forecast={data} week={week} currency={currency} />}
          {table && (
            <ScrollRegion label="Inflows by customer and week">
              <table className="data-table" data-testid="forecast-table">
                <caption className="sr-only">Inflows by customer and week</caption>
                <thead>
                  <tr>
                    {table.columns.map((c, i) => (
                      <th key={c.key} scope="col" className={i === 0 ? undefined : 'num'}>
                        {c.label}
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {table.rows.map((row, r) => (
                    <tr key={tableOffset + r}>
                      {table.columns.map((c, i) => (
                        <td key={c.key} className={i === 0 ? undefined : 'num'}>
                          {typeof row[c.key] === 'number' ? formatMoney(row[c.key] as number, currency) : String(row[c.key] ?? '')}
                        </td>
                      ))}
                    </tr>
                  ))}
                </tbody>
                <tfoot>
                  <tr>
                    {table.columns.map((c, i) => (
                      <td key={c.key} className={i === 0 ? undefined : 'num'}>
                        {i === 0 ? 'Total' : typeof table.totals[c.key] === 'number' ? formatMoney(table.totals[c.key] as number, currency) : String(table.totals[c.key] ?? '')}
                      </td>
                    ))}
                  </tr>
                </tfoot>
              </table>
              <p className="muted small">{formatCount(data.customers_total)} customers with inflows in the window.</p>
            </ScrollRegion>
          )}
          {data.customers_total > TABLE_PAGE && <Pager offset={tableOffset} limit={TABLE_PAGE} count={data.customers_total} onOffset={setTableOffset} what="customers" />}
        </>
      )}
    </section>
  );
}
