import { companyPath } from '../state/route';
import { BUCKET_LABELS, type Bucket, STATUS_LABELS, type Status } from './filters';

/** The badge's colour class of a status (closed statuses share one). */
export function statusTone(status: string): string {
  if (status === 'current') return 'current';
  if (status.startsWith('closed_')) return 'closed';
  return status.replace('past_due_', 'd');
}

export const statusLabel = (status: string) => STATUS_LABELS[status as Status] ?? status;
export const bucketLabel = (bucket: string) => BUCKET_LABELS[bucket as Bucket] ?? bucket;
/** A label without a colour of its own. */
export const LABEL_GREY = '#6B7280';

export function StatusBadge({ status, label }: { status: string; label?: string }) {
  return (
    <span className={`badge badge-${statusTone(status)}`} data-status={status}>
      {label ?? statusLabel(status)}
    </span>
  );
}

export function BucketText({ bucket }: { bucket: string }) {
  return <span className={`bucket bucket-${bucket}`}>{bucketLabel(bucket)}</span>;
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
  const color = label.color ?? LABEL_GREY;
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
