import { useState } from 'react';
import type { Schemas } from '../api/client';
import { formatTimestamp } from '../desk/format';
import { DEFAULT_FILTERS, type DeskFilters, toSearch } from '../desk/filters';
import { describeInsight, evidenceLine, type InsightWords } from '../insights/describe';
import { companyPath, useRoute } from '../state/route';
import { api } from '../state/session';
import { toast } from '../state/toasts';
import { describeError } from './ErrorBox';

export type Insight = Schemas['Insight'];

/** Links to the invoice desk listing the invoices a statement rests on (every owner's, closed ones too). */
function InvoiceLinks({ companyId, links }: { companyId: string; links: NonNullable<InsightWords['links']> }) {
  const navigate = useRoute((s) => s.navigate);
  return (
    <ul className="small">
      {links.map((link) => {
        const href = companyPath(companyId, 'invoices', null, toSearch({ ...DEFAULT_FILTERS, work: false, ar_owner: '', ...link.filters } as DeskFilters));
        return (
          <li key={link.label}>
            <a
              href={href}
              onClick={(e) => {
                e.preventDefault();
                navigate(href);
              }}
            >
              {link.label}
            </a>
          </li>
        );
      })}
    </ul>
  );
}

function TargetLink({ companyId, insight }: { companyId: string; insight: Insight }) {
  const navigate = useRoute((s) => s.navigate);
  const entity = (insight.payload_json.entity ?? {}) as { name?: unknown; number?: unknown };
  const named = typeof entity.name === 'string' ? entity.name : typeof entity.number === 'string' ? entity.number : null;
  const target =
    insight.target_type === 'invoice' && insight.invoice
      ? { href: companyPath(companyId, 'invoices', insight.invoice), text: named ? `Invoice ${named}` : 'Open the invoice' }
      : insight.target_type === 'customer' && insight.customer
        ? { href: companyPath(companyId, 'customers', insight.customer), text: named ?? 'Open the customer' }
        : null;
  if (!target) return <span>Whole portfolio</span>;
  return (
    <a
      href={target.href}
      onClick={(e) => {
        e.preventDefault();
        navigate(target.href);
      }}
    >
      {target.text}
    </a>
  );
}

function Feedback({ companyId, insight, onSaved }: { companyId: string; insight: Insight; onSaved: (feedback: Insight['my_feedback']) => void }) {
  const mine = insight.my_feedback;
  const [rating, setRating] = useState<'up' | 'down' | null>(mine?.rating ?? null);
  const [comment, setComment] = useState(mine?.comment ?? '');
  const [busy, setBusy] = useState(false);
  const changed = rating !== null && (rating !== mine?.rating || comment.trim() !== (mine?.comment ?? ''));
  const save = async (next: 'up' | 'down') => {
    setBusy(true);
    try {
      const saved = await api.post('/api/companies/{company_id}/intelligence/insights/{pk}/feedback', {
        path: { company_id: companyId, pk: insight.id },
        body: { rating: next, comment: comment.trim() || null },
      });
      onSaved({ rating: saved.rating, comment: saved.comment, updated_at: saved.updated_at });
      toast.success(next === 'up' ? 'Thanks: marked as useful.' : 'Thanks: marked as not useful.');
    } catch (err) {
      toast.error(`Feedback not saved: ${describeError(err)}`);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="feedback" role="group" aria-label="Was this useful?">
      <span className="muted small">Useful?</span>
      <button type="button" className="btn btn-small" aria-pressed={rating === 'up'} disabled={busy} onClick={() => (setRating('up'), void save('up'))}>
        Yes
      </button>
      <button type="button" className="btn btn-small" aria-pressed={rating === 'down'} disabled={busy} onClick={() => (setRating('down'), void save('down'))}>
        No
      </button>
      {rating !== null && (
        <>
          <input aria-label="Comment on this insight" placeholder="Why? (optional)" value={comment} maxLength={2000} onChange={(e) => setComment(e.target.value)} />
          <button type="button" className="btn btn-small" disabled={busy || !changed} onClick={() => void save(rating)}>
            Save comment
          </button>
        </>
      )}
    </div>
  );
}

/**
 * One insight as a card: what kind, about what (linked), the payload in words, its evidence,
 * and thumbs up or down with a comment. The Insights feed, the invoice panel and the customer
 * page all show insights with this card.
 */
export function InsightCard({ companyId, insight, showTarget = true, headingLevel = 3 }: { companyId: string; insight: Insight; showTarget?: boolean; headingLevel?: 2 | 3 | 4 }) {
  const [current, setCurrent] = useState(insight);
  const words: InsightWords = describeInsight(current as Insight & { evidence?: unknown });
  const Heading = (['h2', 'h3', 'h4'] as const)[headingLevel - 2];
  return (
    <article className={`insight-card${words.severity ? ` sev-${words.severity}` : ''}`} data-testid="insight-card" data-insight-type={current.insight_type}>
      <div className="meta">
        {words.kind}
        {words.severity ? ` · ${words.severity} severity` : ''} · {formatTimestamp(current.valid_from)}
        {showTarget && (
          <>
            {' · '}
            <TargetLink companyId={companyId} insight={current} />
          </>
        )}
      </div>
      <Heading>{words.title}</Heading>
      {words.lines.length > 0 && (
        <ul>
          {words.lines.map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      )}
      {words.links && words.links.length > 0 && <InvoiceLinks companyId={companyId} links={words.links} />}
      {words.evidence.length > 0 && (
        <div className="small">
          <strong>Evidence</strong>
          <ul>
            {words.evidence.map((e, i) => (
              <li key={i}>{evidenceLine(e)}</li>
            ))}
          </ul>
        </div>
      )}
      <Feedback companyId={companyId} insight={current} onSaved={(my_feedback) => setCurrent({ ...current, my_feedback })} />
    </article>
  );
}
