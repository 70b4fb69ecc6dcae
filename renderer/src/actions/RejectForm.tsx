import { useState } from 'react';
import { REJECT_REASONS } from './labels';

/** Reason and comment for rejecting one or several actions. */
export function RejectForm({ count, onReject, onCancel }: { count: number; onReject: (reason: string, comment: string) => Promise<void>; onCancel: () => void }) {
  const [reason, setReason] = useState(REJECT_REASONS[0]);
  const [comment, setComment] = useState('');
  const [busy, setBusy] = useState(false);
  return (
    <form
      className="card stack"
      aria-label="Reject"
      onSubmit={async (e) => {
        e.preventDefault();
        setBusy(true);
        await onReject(reason, comment.trim());
        setBusy(false);
      }}
    >
      <strong>Reject {count === 1 ? 'this action' : `${count} actions`}</strong>
      <label className="wide-field">
        Reason
        <select value={reason} onChange={(e) => setReason(e.target.value)} autoFocus>
          {REJECT_REASONS.map((r) => (
            <option key={r}>{r}</option>
          ))}
        </select>
      </label>
      <label className="wide-field">
        Comment (optional)
        <input value={comment} onChange={(e) => setComment(e.target.value)} />
      </label>
      <div className="form-actions">
        <button type="button" className="btn" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="btn btn-danger" disabled={busy}>
          Reject
        </button>
      </div>
    </form>
  );
}
