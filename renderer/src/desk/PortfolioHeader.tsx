import { BarChart } from 'echarts/charts';
import { GridComponent, TooltipComponent } from 'echarts/components';
import * as echarts from 'echarts/core';
import { SVGRenderer } from 'echarts/renderers';
import { useEffect, useMemo, useRef } from 'react';
import { useConnection } from '../state/connection';
import { companyPath, useRoute } from '../state/route';
import { ErrorBox } from '../components/ErrorBox';
import { useLoad } from '../components/useLoad';
import { api } from '../state/session';
import { BUCKET_LABELS, BUCKETS, type Bucket } from './filters';
import { formatCount, formatMoney, formatMoneyShort } from './format';
import { useDesk } from './store';
import type { Summary } from './types';

echarts.use([BarChart, GridComponent, TooltipComponent, SVGRenderer]);

interface PortfolioFigures {
  currency: string;
  totalOpen: number;
  overdue: number;
  openCount: number;
  overdueCount: number;
  buckets: Array<{ bucket: Bucket; balance: number; count: number }>;
}

function portfolioFigures(summary: Summary): PortfolioFigures {
  return {
    currency: summary.currency,
    totalOpen: summary.total_open_balance,
    overdue: summary.overdue_balance,
    openCount: summary.open_invoice_count,
    overdueCount: summary.overdue_invoice_count,
    buckets: BUCKETS.map((bucket) => ({ bucket, balance: summary.aging[bucket].balance, count: summary.aging[bucket].invoice_count })),
  };
}

function cssVar(name: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
}

const BUCKET_VARS: Record<Bucket, string> = { current: '--b-current', '1_30': '--b-1-30', '31_60': '--b-31-60', '61_90': '--b-61-90', '91_over': '--b-90p' };

function AgingChart({ figures, selected, onBucket }: { figures: PortfolioFigures; selected: Bucket[]; onBucket: (b: Bucket) => void }) {
  const host = useRef<HTMLDivElement>(null);
  const chart = useRef<echarts.ECharts | null>(null);
  const onBucketRef = useRef(onBucket);
  onBucketRef.current = onBucket;
  const selectedKey = selected.join();

  useEffect(() => {
    const el = host.current!;
    // SVG: five bars draw as cheaply, and their labels are text a screen reader or a test can find.
    const instance = echarts.init(el, undefined, { renderer: 'svg' });
    chart.current = instance;
    instance.on('click', (params) => onBucketRef.current(BUCKETS[params.dataIndex as number]));
    const resize = new ResizeObserver(() => instance.resize());
    resize.observe(el);
    return () => {
      resize.disconnect();
      instance.dispose();
      chart.current = null;
    };
  }, []);

  // Repainted when the chosen buckets change, not the array: every filter change parses a new one,
  // and a repaint replays the bars' animation while the grid repaints.
  useEffect(() => {
    const paint = () => {
      const muted = cssVar('--muted');
      chart.current?.setOption(
        {
          animationDuration: 250,
          grid: { left: 8, right: 8, top: 8, bottom: 22, containLabel: true },
          tooltip: {
            trigger: 'item',
            formatter: (p: { dataIndex: number }) => {
              const b = figures.buckets[p.dataIndex];
              return `${BUCKET_LABELS[b.bucket]}: ${formatMoney(b.balance, figures.currency)} (${formatCount(b.count)} invoices)<br/>Click to filter`;
            },
          },
          xAxis: {
            type: 'category',
            data: figures.buckets.map((b) => BUCKET_LABELS[b.bucket]),
            axisTick: { show: false },
            axisLine: { lineStyle: { color: cssVar('--border') } },
            // Every bucket keeps its label at laptop widths: a label wider than its bar's room wraps ("1-30 / days") instead of being dropped.
            axisLabel: { color: muted, fontSize: 11, lineHeight: 12, interval: 0, hideOverlap: false, overflow: 'break', width: Math.max(36, Math.floor((host.current?.clientWidth ?? 400) / figures.buckets.length) - 14) },
          },
          yAxis: {
            type: 'value',
            splitNumber: 3,
            axisLabel: { color: muted, fontSize: 10, formatter: (v: number) => formatMoneyShort(v, figures.currency) },
            splitLine: { lineStyle: { color: cssVar('--border'), opacity: 0.6 } },
          },
          series: [
            {
              type: 'bar',
              barMaxWidth: 38,
              cursor: 'pointer',
              data: figures.buckets.map((b) => ({
                value: b.balance,
                itemStyle: {
                  color: cssVar(BUCKET_VARS[b.bucket]),
                  opacity: selected.length === 0 || selected.includes(b.bucket) ? 1 : 0.35,
                  borderRadius: [3, 3, 0, 0],
                },
              })),
            },
          ],
        },
        { notMerge: true },
      );
    };
    paint();
    const scheme = window.matchMedia('(prefers-color-scheme: dark)');
    scheme.addEventListener('change', paint);
    return () => scheme.removeEventListener('change', paint);
  }, [figures, selectedKey]);

  return <div ref={host} className="aging-chart" data-testid="aging-chart" role="img" aria-label="Open balance per aging bucket; click a bar to filter" />;
}

/** Whose figures the header shows: the caller's (Mine), one AR owner's, or the whole company's. */
function scopeWords(arOwner: string): string {
  if (arOwner === 'me') return 'your customers';
  return arOwner ? "this AR owner's customers" : 'the whole company';
}

/**
 * Total open and overdue balance, and the open balance per aging bucket (click a bar to filter), of
 * the portfolio the list shows (Mine, one AR owner, or everyone). Mine with no customer assigned
 * says so and offers the whole company instead of an empty list under company figures.
 */
export function PortfolioHeader({
  companyId,
  arOwner,
  selected,
  onBucket,
  onEveryone,
}: {
  companyId: string;
  arOwner: string;
  selected: Bucket[];
  onBucket: (b: Bucket) => void;
  onEveryone: () => void;
}) {
  const version = useDesk((s) => s.version);
  const navigate = useRoute((s) => s.navigate);
  const summary = useLoad(
    (signal) => api.get('/api/companies/{company_id}/invoices/summary', { path: { company_id: companyId }, query: { ar_owner: arOwner || undefined }, signal }),
    [companyId, arOwner, version],
  );
  // Memoised: the chart repaints when the figures change, not on every render of the desk.
  const figures = useMemo(() => (summary.data ? portfolioFigures(summary.data) : null), [summary.data]);
  const stale = useConnection((s) => !s.server);
  const unassigned = arOwner === 'me' && summary.data?.customer_count === 0;
  return (
    <>
      {unassigned && (
        <div className="notice mine-empty" role="status" data-testid="mine-empty">
          <span>No customers are assigned to you yet, so Mine is empty.</span>
          <button type="button" className="btn btn-small" onClick={onEveryone}>
            Show everyone
          </button>
          <a
            href={companyPath(companyId, 'customers')}
            onClick={(e) => {
              e.preventDefault();
              navigate(companyPath(companyId, 'customers'));
            }}
          >
            Assign AR owners in Customers
          </a>
        </div>
      )}
      <section className={stale ? 'portfolio stale' : 'portfolio'} aria-label={`Portfolio of ${scopeWords(arOwner)}`} title={stale ? 'Figures from before the server stopped answering' : undefined}>
        {summary.error !== null && !figures ? (
          <ErrorBox what="the portfolio summary" error={summary.error} onRetry={summary.reload} />
        ) : (
          <>
            <div className="kpis">
              <div className="kpi">
                <div className="kpi-label">
                  Total open <span className="kpi-scope" data-testid="kpi-scope">· {scopeWords(arOwner)}</span>
                  {stale && <span className="stale-note"> · may be out of date</span>}
                </div>
                <div className="kpi-value" data-testid="kpi-open">
                  {figures ? formatMoney(figures.totalOpen, figures.currency) : '…'}
                </div>
                <div className="kpi-sub muted">{figures ? `${formatCount(figures.openCount)} open invoices` : ''}</div>
              </div>
              <div className="kpi">
                <div className="kpi-label">Overdue</div>
                <div className="kpi-value bad" data-testid="kpi-overdue">
                  {figures ? formatMoney(figures.overdue, figures.currency) : '…'}
                </div>
                <div className="kpi-sub muted">
                  {figures ? `${formatCount(figures.overdueCount)} invoices · ${figures.totalOpen ? Math.round((figures.overdue / figures.totalOpen) * 100) : 0}% of open` : ''}
                </div>
              </div>
            </div>
            {figures && <AgingChart figures={figures} selected={selected} onBucket={onBucket} />}
            {summary.error !== null && figures && <ErrorBox what="the latest summary" error={summary.error} onRetry={summary.reload} />}
          </>
        )}
      </section>
    </>
  );
}
