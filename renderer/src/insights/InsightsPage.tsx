import { useMemo, useState } from 'react';
import { ErrorBox } from '../components/ErrorBox';
import { InsightCard } from '../components/InsightCard';
import { Pager } from '../components/SortHeader';
import { useLoad } from '../components/useLoad';
import { api } from '../state/session';
import { StaleLedgerBanner } from '../analytics/StaleLedgerBanner';
import { describeInsight, feedOrder, INSIGHT_KIND, type InsightTarget, INSIGHT_TARGET_WORDS, INSIGHT_TARGETS } from './describe';

type Target = '' | InsightTarget;
const PAGE = 50;

/** The feed of active insights with something to report, most severe and newest first, filtered by type and target. */
export default function InsightsPage({ companyId }: { companyId: string }) {
  const [type, setType] = useState('');
  const [target, setTarget] = useState<Target>('');
  const [offset, setOffset] = useState(0);
  const feed = useLoad(
    (signal) =>
      api.get('/api/intelligence/insights', {
        // A signal that found nothing or a plan to only monitor says nothing: not in the feed.
        query: { company_id: companyId, insight_type: type || undefined, target_type: target || undefined, reportable_only: true, limit: PAGE, offset },
        signal,
      }),
    [companyId, type, target, offset],
  );
  const items = useMemo(() => (feed.data ? feedOrder(feed.data.results.map((i) => ({ ...i, words: describeInsight(i) }))) : []), [feed.data]);

  return (
    <div className="page">
      <header className="page-header">
        <h1>Insights</h1>
        <label className="form-row">
          Type
          <select
            value={type}
            onChange={(e) => {
              setType(e.target.value);
              setOffset(0);
            }}
          >
            <option value="">All types</option>
            {Object.entries(INSIGHT_KIND).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
                {value.startsWith('customer_') && label.startsWith('Conversation') ? ' (customer)' : value.startsWith('invoice_') && label.startsWith('Conversation') ? ' (invoice)' : ''}
              </option>
            ))}
          </select>
        </label>
        <label className="form-row">
          About
          <select
            value={target}
            onChange={(e) => {
              setTarget(e.target.value as Target);
              setOffset(0);
            }}
          >
            <option value="">Everything</option>
            {INSIGHT_TARGETS.map((t) => (
              <option key={t} value={t}>
                {INSIGHT_TARGET_WORDS[t]}
              </option>
            ))}
          </select>
        </label>
      </header>
      <StaleLedgerBanner companyId={companyId} />
      {feed.error !== null && <ErrorBox what="the insights" error={feed.error} onRetry={feed.reload} />}
      {!feed.data && feed.error === null && <p className="muted" role="status">Loading…</p>}
      {feed.data && (
        <>
          {items.length === 0 && <p className="muted">No active insights{type || target ? ' match these filters' : ' yet'}.</p>}
          <div className="insight-feed" data-testid="insight-feed" aria-busy={feed.loading}>
            {items.map((insight) => (
              <InsightCard key={insight.id} companyId={companyId} insight={insight} headingLevel={2} />
            ))}
          </div>
          <Pager offset={offset} limit={PAGE} count={feed.data.count} onOffset={setOffset} what="insights" />
        </>
      )}
    </div>
  );
}
