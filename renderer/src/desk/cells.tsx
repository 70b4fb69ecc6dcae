import type { Schemas } from '../api/client';
import { companyPath } from '../state/route';
import { BUCKET_LABELS, type Bucket, STATUS_LABELS, type Status } from './filters';
import { followUpState, formatDate, formatMoney, localToday } from './format';
import type { Invoice } from './types';

function statusTone(status: string): string {
  if (status === 'current') return 'current';
  if (status.startsWith('closed_')) return 'closed';
  return status.replace('past_due_', 'd');
}

export function StatusBadge({ status, label }: { status: string; label?: string }) {
  return (
    <span className={`badge badge-${statusTone(status)}`} data-status={status}>
      {label ?? STATUS_LABELS[status as Status] ?? status}
    </span>
  );
}

export function BucketText({ bucket }: { bucket: string }) {
  return <span className={`bucket bucket-${bucket}`}>{BUCKET_LABELS[bucket as Bucket] ?? bucket}</span>;
}

/**
 * A customer's name as a link to its page: a real address (copy link, screen readers say where it
 * goes); a click opens the page in place through `onOpen`.
 */
export function CustomerLink({ companyId, customerId, name, className, onOpen }: { companyId: string; customerId: string; name: string; className?: string; onOpen: (id: string) => void }) {
  return (
    <a
      className={className}
      href={companyPath(companyId, 'customers', customerId)}
      onClick={(e) => {
        e.preventDefault();
        onOpen(customerId);
      }}
    >
      {name}
    </a>
  );
}

export interface LabelLike {
  id: string;
  name: string;
  color?: string;
}

/** A label as a chip in its own color; `onRemove` adds the × of the labels editor. */
export function LabelChip({ label, onRemove }: { label: LabelLike; onRemove?: () => void }) {
  const color = label.color ?? '#6B7280';
  return (
    <span className="chip" style={{ '--chip': color } as React.CSSProperties} data-label={label.name}>
      <span className="chip-dot" aria-hidden="true" />
      {label.name}
      {onRemove && (
        <button type="button" className="chip-x" aria-label={`Remove label ${label.name}`} onClick={onRemove}>
          ×
        </button>
      )}
    </span>
  );
}

export function LabelChips({ labels }: { labels: LabelLike[] }) {
  return (
    <span className="chips">
      {labels.map((l) => (
        <LabelChip key={l.id} label={l} />
      ))}
    </span>
  );
}

/** Why an invoice is in My work: the most pressing reason, and how many more. */
export function AttentionCell({ notes }: { notes: Array<Schemas['AttentionNote']> }) {
  if (notes.length === 0) return null;
  const [first, ...rest] = notes;
  return (
    <span className={`why why-${first.reason}`} data-reason={first.reason}>
      {first.label}
      {rest.length > 0 && <span className="muted"> +{rest.length}</span>}
    </span>
  );
}

/**
 * The open balance (a closed invoice owes nothing: the closed-invoice balance rule), with a
 * marker when payments are pending.
 */
export function BalanceCell({ invoice }: { invoice: Pick<Invoice, 'open_balance' | 'pending_amount' | 'currency'> }) {
  return (
    <span className="balance-cell">
      {invoice.pending_amount > 0 && (
        <span className="pending-mark" data-testid="pending-mark" aria-label={`${formatMoney(invoice.pending_amount, invoice.currency)} pending`}>
          ◔
        </span>
      )}
      {formatMoney(invoice.open_balance, invoice.currency)}
    </span>
  );
}

/** A follow-up date, marked when it is due today or overdue. */
export function FollowUpCell({ date, closed }: { date: string; closed: boolean }) {
  const state = closed ? 'later' : followUpState(date, localToday());
  return (
    <span className={`follow-up follow-up-${state}`} data-state={state}>
      {formatDate(date)}
      {state === 'overdue' && <span className="sr-only"> (overdue)</span>}
      {state === 'today' && <span className="sr-only"> (today)</span>}
    </span>
  );
}
