import type { Schemas } from '../api/client';
import { humanize, inWords } from '../insights/describe';
import { companyPath, type Section } from '../state/route';
import { AppLink } from './AppLink';
import './outreach.css';

type EvidenceItem = Schemas['EvidenceItem'];

const LINKED: Partial<Record<NonNullable<EvidenceItem['ref']>['type'], Section>> = { invoice: 'invoices', customer: 'customers', action: 'actions' };

/** Why the engine recommends something: each fact in words, its value, where it comes from, and a link to the record when there is one. */
export function Evidence({ companyId, items }: { companyId: string; items: EvidenceItem[] }) {
  if (items.length === 0) return null;
  return (
    <ul className="evidence" data-testid="evidence">
      {items.map((item, i) => {
        const section = item.ref ? LINKED[item.ref.type] : undefined;
        // In the words of the Insights page: dates as dates, sources without underscores.
        const value = inWords(item.value);
        const fact = (
          <>
            {item.fact}
            {value ? `: ${value}` : ''}
          </>
        );
        return (
          <li key={i}>
            {section && item.ref ? <AppLink to={companyPath(companyId, section, item.ref.id)}>{fact}</AppLink> : fact}
            <span className="muted small"> · {humanize(item.source).toLowerCase()}</span>
          </li>
        );
      })}
    </ul>
  );
}
