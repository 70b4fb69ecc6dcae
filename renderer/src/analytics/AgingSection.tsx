import { useCallback, useEffect, useState } from 'react';
import { addDays } from '../../../core/dates';
import type { Schemas } from '../api/client';
import { type ChartOption, Chart, cssVar } from '../components/Chart';
import { ScrollRegion } from '../components/ScrollRegion';
import { describeError, ErrorBox } from '../components/ErrorBox';
import { Pager } from '../components/SortHeader';
import { useLoad } from '../components/useLoad';
import { BUCKET_LABELS, BUCKETS, type Bucket, DEFAULT_FILTERS, toSearch } from '../desk/filters';
import { formatCount, formatDate, formatMoney, formatMoneyShort, localToday } from '../desk/format';
import { companyPath, useRoute } from '../state/route';
import { api } from '../state/session';
import { toast } from '../state/toasts';
import { downloadAgingReport } from './download';

export const BUCKET_COLOR_VARS: Record<Bucket, string> = { current: '--b-current', '1_30': '--b-1-30', '31_60': '--b-31-60', '61_90': '--b-61-90', '91_over': '--b-90p' };
const DETAIL_PAGE = 50;

type Snapshot = Schemas['AgingSnapshot'];
type Report = Schemas['AgingReport'];

function axisStyle() {
  const muted = cssVar('--muted');
  return { axisLabel: { color: muted }, axisLine: { lineStyle: { color: cssVar('--border') } }, splitLine: { lineStyle: { color: cssVar('--border') } } };
}

/** The aging of the chosen date: totals, one bar per bucket (a click picks the bucket for the details). */
function Summary({ report, selected, onBucket }: { report: Report; selected: Bucket | null; onBucket: (b: Bucket | null) => void }) {
  const option = useCallback((): ChartOption => {
    const rows = report.rows;
    return {
      animationDuration: 200,
      grid: { left: 8, right: 8, top: 10, bottom: 8, containLabel: true },
      tooltip: { trigger: 'item', formatter: (p: { dataIndex: number }) => `${rows[p.dataIndex].label}: ${rows[p.dataIndex].balance_display} (${formatCount(rows[p.dataIndex].invoice_count)} invoices)` },
      xAxis: { type: 'category', data: rows.map((r) => r.label), axisTick: { show: false }, ...axisStyle() },
      yAxis: { type: 'value', ...axisStyle(), axisLabel: { color: cssVar('--muted'), formatter: (v: number) => formatMoneyShort(v, report.currency) } },
      series: [
        {
          type: 'bar',
          barMaxWidth: 56,
          data: rows.map((r) => ({
            value: r.balance,
            itemStyle: { color: cssVar(BUCKET_COLOR_VARS[r.bucket as Bucket]), opacity: selected && selected !== r.bucket ? 0.35 : 1 },
          })),
        },
      ],
    };
  }, [report, selected]);
  return (
    <div className="two-col">
      <div>
        <div className="figures">
          <div className="figure">
            <div className="label">Open receivables</div>
            <div className="value" data-testid="aging-total">{report.total.balance_display}</div>
            <div className="muted small">{formatCount(report.total.invoice_count)} invoices</div>
          </div>
          <div className="figure">
            <div className="label">Past due</div>
            <div className="value bad">{report.overdue.balance_display}</div>
            <div className="muted small">{report.overdue.percent_display} of the total</div>
          </div>
        </div>
        <Chart option={option} label={`Open balance per aging bucket on ${formatDate(report.as_of)}; click a bar to list its invoices`} onClick={(i) => onBucket(BUCKETS[i] ?? null)} testId="aging-summary-chart" />
      </div>
      <table className="data-table" data-testid="aging-buckets">
        <caption className="sr-only">Aging by bucket</caption>
        <thead>
          <tr>
            <th scope="col">Bucket</th>
            <th scope="col" className="num">
              Balance
            </th>
            <th scope="col" className="num">
              Invoices
            </th>
            <th scope="col" className="num">
              Share
            </th>
          </tr>
        </thead>
        <tbody>
          {report.rows.map((r) => (
            <tr key={r.bucket} className={selected === r.bucket ? 'selected' : undefined}>
              <td>
                <button type="button" className="linkish" aria-pressed={selected === r.bucket} onClick={() => onBucket(selected === r.bucket ? null : (r.bucket as Bucket))}>
                  <span className="swatch" style={{ background: `var(${BUCKET_COLOR_VARS[r.bucket as Bucket]})` }} aria-hidden="true" />
                  {r.label}
                </button>
              </td>
              <td className="num">{r.balance_display}</td>
              <td className="num">{formatCount(r.invoice_count)}</td>
              <td className="num">{r.percent_display}</td>
            </tr>
          ))}
        </tbody>
        <tfoot>
          <tr>
            <td>Total</td>
            <td className="num">{report.total.balance_display}</td>
            <td className="num">{formatCount(report.total.invoice_count)}</td>
            <td className="num">100%</td>
          </tr>
        </tfoot>
      </table>
    </div>
  );
}

/** One stacked bar per snapshot; a click on a period opens the aging of that date. */
function History({ snapshots, currency, asOf, onDate }: { snapshots: Snapshot[]; currency: string; asOf: string; onDate: (date: string) => void }) {
  const option = useCallback(
    (): ChartOption => ({
      animationDuration: 200,
      grid: { left: 8, right: 8, top: 34, bottom: 8, containLabel: true },
      legend: { top: 0, textStyle: { color: cssVar('--text') } },
      tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' }, valueFormatter: (v: number) => formatMoney(v, currency) },
      xAxis: {
        type: 'category',
        data: snapshots.map((s) => formatDate(s.snapshot_date)),
        ...axisStyle(),
        axisLabel: { color: cssVar('--muted'), fontWeight: (_: string, i: number) => (snapshots[i]?.snapshot_date === asOf ? 'bold' : 'normal') },
      },
      yAxis: { type: 'value', ...axisStyle(), axisLabel: { color: cssVar('--muted'), formatter: (v: number) => formatMoneyShort(v, currency) } },
      series: BUCKETS.map((b) => ({
        name: BUCKET_LABELS[b],
        type: 'bar',
        stack: 'aging',
        barMaxWidth: 40,
        itemStyle: { color: cssVar(BUCKET_COLOR_VARS[b]) },
        data: snapshots.map((s) => s.buckets[b]),
      })),
    }),
    [snapshots, currency, asOf],
  );
  return (
    <Chart
      option={option}
      label={`Aging over time: ${snapshots.length} snapshots from ${formatDate(snapshots[0]?.snapshot_date)} to ${formatDate(snapshots.at(-1)?.snapshot_date)}; click a period to open that date`}
      onClick={(i) => snapshots[i] && onDate(snapshots[i].snapshot_date)}
      testId="aging-history-chart"
    />
  );
}

function Details({ companyId, asOf, deskDate, bucket, currency }: { companyId: string; asOf: string; deskDate: string; bucket: Bucket | null; currency: string }) {
  const navigate = useRoute((s) => s.navigate);
  const [groupBy, setGroupBy] = useState<'customer' | 'invoice'>('customer');
  const [page, setPage] = useState(1);
  const details = useLoad(
    (signal) =>
      api.get('/api/companies/{company_id}/ar-aging/details', {
        path: { company_id: companyId },
        query: { as_of: asOf, group_by: groupBy, bucket: bucket ?? undefined, page, page_size: DETAIL_PAGE },
        signal,
      }),
    [companyId, asOf, groupBy, bucket, page],
  );
  // The invoice desk ages from its own date (the company's as-of date, else today): the bucket carries over only when the report is of that date.
  // Everyone's invoices of the customer, as the aging counts them: not the desk's "my work" view.
  const deskSearch = (customerId: string) =>
    toSearch({ ...DEFAULT_FILTERS, work: false, ar_owner: '', customer_id: customerId, aging_bucket: bucket && asOf === deskDate ? [bucket] : [] });
  const open = (href: string) => (e: React.MouseEvent) => {
    e.preventDefault();
    navigate(href);
  };
  const data = details.data;
  return (
    <section className="card" aria-labelledby="details-title">
      <div className="card-header">
        <h2 id="details-title">
          Details{bucket ? `: ${BUCKET_LABELS[bucket]}` : ''} on {formatDate(asOf)}
        </h2>
        <div className="segmented" role="group" aria-label="Group the details">
          {(['customer', 'invoice'] as const).map((g) => (
            <button
              key={g}
              type="button"
              aria-pressed={groupBy === g}
              onClick={() => {
                setGroupBy(g);
                setPage(1);
              }}
            >
              By {g}
            </button>
          ))}
        </div>
      </div>
      {details.error !== null && <ErrorBox what="the aging details" error={details.error} onRetry={details.reload} />}
      {!data && details.error === null && (
        <p className="muted" role="status">
          Loading the details…
        </p>
      )}
      {data && (
        <ScrollRegion label="Aging details">
          <table className="data-table" data-testid="aging-details" aria-busy={details.loading}>
            {groupBy === 'customer' ? (
              <>
                <thead>
                  <tr>
                    <th scope="col">Customer</th>
                    <th scope="col" className="num">
                      Invoices
                    </th>
                    {BUCKETS.map((b) => (
                      <th key={b} scope="col" className="num">
                        {BUCKET_LABELS[b]}
                      </th>
                    ))}
                    <th scope="col" className="num">
                      Total
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {data.data.map((row) =>
                    'total' in row ? (
                      <tr key={row.customer}>
                        <td>
                          <a href={companyPath(companyId, 'invoices', null, deskSearch(row.customer))} onClick={open(companyPath(companyId, 'invoices', null, deskSearch(row.customer)))}>
                            {row.customer_name}
                          </a>
                        </td>
                        <td className="num">{formatCount(row.invoice_count)}</td>
                        {BUCKETS.map((b) => (
                          <td key={b} className="num">
                            {row[b] ? formatMoney(row[b], currency) : ''}
                          </td>
                        ))}
                        <td className="num">{formatMoney(row.total, currency)}</td>
                      </tr>
                    ) : null,
                  )}
                </tbody>
              </>
            ) : (
              <>
                <thead>
                  <tr>
                    <th scope="col">Invoice</th>
                    <th scope="col">Customer</th>
                    <th scope="col">Due</th>
                    <th scope="col" className="num">
                      Days past due
                    </th>
                    <th scope="col">Bucket</th>
                    <th scope="col" className="num">
                      Balance
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {data.data.map((row) =>
                    'invoice' in row ? (
                      <tr key={row.invoice}>
                        <td>
                          <a href={companyPath(companyId, 'invoices', row.invoice, deskSearch(row.customer))} onClick={open(companyPath(companyId, 'invoices', row.invoice, deskSearch(row.customer)))}>
                            {row.invoice_number}
                          </a>
                        </td>
                        <td>{row.customer_name}</td>
                        <td>{formatDate(row.due_date)}</td>
                        <td className="num">{row.days_past_due > 0 ? formatCount(row.days_past_due) : ''}</td>
                        <td>{BUCKET_LABELS[row.aging_bucket]}</td>
                        <td className="num">{formatMoney(row.balance, currency)}</td>
                      </tr>
                    ) : null,
                  )}
                </tbody>
              </>
            )}
          </table>
          {data.data.length === 0 && <p className="muted">Nothing open{bucket ? ' in this bucket' : ''} on this date.</p>}
          <Pager offset={(page - 1) * DETAIL_PAGE} limit={DETAIL_PAGE} count={data.count} onOffset={(o) => setPage(o / DETAIL_PAGE + 1)} what={groupBy === 'customer' ? 'customers' : 'invoices'} />
        </ScrollRegion>
      )}
    </section>
  );
}

/** Aging of a chosen date, aging over time from the snapshots, details, and the export. */
export function AgingSection({
  companyId,
  asOf,
  deskDate,
  onAsOf,
  onCurrency,
  onAnswered,
  canWrite,
}: {
  companyId: string;
  asOf: string;
  /** The date the invoice desk ages from: the company's as-of date, else today. */
  deskDate: string;
  onAsOf: (date: string) => void;
  onCurrency: (currency: string) => void;
  /** Called once the summary has answered (data or error), so the slower sections may ask. */
  onAnswered: () => void;
  canWrite: boolean;
}) {
  const [bucket, setBucket] = useState<Bucket | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [version, setVersion] = useState(0);
  const report = useLoad((signal) => api.get('/api/companies/{company_id}/ar-aging/report-summary', { path: { company_id: companyId }, query: { as_of: asOf }, signal }), [companyId, asOf]);
  const answered = report.data !== null || report.error !== null;
  // The history and the details ask after the summary, which is the page's first data.
  const history = useLoad(
    async (signal) =>
      answered ? api.get('/api/companies/{company_id}/ar-aging/history', { path: { company_id: companyId }, query: { date_from: addDays(localToday(), -365) }, signal }) : null,
    [companyId, version, answered],
  );
  useEffect(() => {
    if (answered) onAnswered();
  }, [answered, onAnswered]);
  const currency = report.data?.currency ?? 'USD';
  // The company's currency arrives with the report; the forecast beside it formats in it too.
  useEffect(() => onCurrency(currency), [currency, onCurrency]);

  const exportAs = async (format: 'csv' | 'xlsx') => {
    setBusy(format);
    try {
      const name = await downloadAgingReport(companyId, format, asOf);
      toast.success(`Saved ${name}.`);
    } catch (err) {
      toast.error(`Export failed: ${describeError(err)}`);
    } finally {
      setBusy(null);
    }
  };
  const snapshot = async () => {
    setBusy('snapshot');
    try {
      await api.post('/api/companies/{company_id}/ar-aging/snapshots', { path: { company_id: companyId }, body: { snapshot_date: asOf } });
      toast.success(`Snapshot of ${formatDate(asOf)} saved.`);
      setVersion((v) => v + 1);
    } catch (err) {
      toast.error(`Snapshot not taken: ${describeError(err)}`);
    } finally {
      setBusy(null);
    }
  };

  return (
    <>
      <section className="card" aria-labelledby="aging-title">
        <div className="card-header">
          <h2 id="aging-title">Aging on {formatDate(asOf)}</h2>
          <div className="toolbar-row">
            <label>
              As of
              <input type="date" value={asOf} max={localToday()} required onChange={(e) => e.target.value && onAsOf(e.target.value)} />
            </label>
            <button type="button" className="btn" disabled={busy !== null} onClick={() => void exportAs('csv')}>
              Export CSV
            </button>
            <button type="button" className="btn" disabled={busy !== null} onClick={() => void exportAs('xlsx')}>
              Export XLSX
            </button>
          </div>
        </div>
        {report.error !== null && <ErrorBox what="the aging" error={report.error} onRetry={report.reload} />}
        {!answered && (
          <p className="muted" role="status">
            Loading the aging…
          </p>
        )}
        {report.data && <Summary report={report.data} selected={bucket} onBucket={setBucket} />}
      </section>
      <section className="card" aria-labelledby="history-title">
        <div className="card-header">
          <h2 id="history-title">Aging over time</h2>
          {canWrite && (
            <button type="button" className="btn" disabled={busy !== null} onClick={() => void snapshot()}>
              Take a snapshot of {formatDate(asOf)}
            </button>
          )}
        </div>
        {history.error !== null && <ErrorBox what="the aging history" error={history.error} onRetry={history.reload} />}
        {!history.data && history.error === null && (
          <p className="muted" role="status">
            Loading the aging history…
          </p>
        )}
        {history.data && history.data.data.length === 0 && <p className="muted">No snapshots yet. One is taken every day; take one now to start the history.</p>}
        {history.data && history.data.data.length > 0 && <History snapshots={history.data.data} currency={currency} asOf={asOf} onDate={onAsOf} />}
      </section>
      {answered ? (
        <Details companyId={companyId} asOf={asOf} deskDate={deskDate} bucket={bucket} currency={currency} />
      ) : (
        <section className="card" aria-labelledby="details-title">
          <h2 id="details-title">Details on {formatDate(asOf)}</h2>
          <p className="muted" role="status">
            The details load after the aging…
          </p>
        </section>
      )}
    </>
  );
}
