import { type ReactNode, useEffect, useRef, useState } from 'react';
import { ApiError } from '../api/client';

export type OnEnrolled = 'keep' | 'restart' | 'ask';

/**
 * Enrolling customers already in the sequence asks the person first: the enrollment goes with
 * `on_enrolled: ask` (the API's 409 already_enrolled, nothing written, when someone is enrolled),
 * never with the API's silent default. `withChoice` runs an enrollment; asked, it shows the dialog
 * and runs it again with the answer, keep or restart (null when cancelled).
 */
export function useEnrollChoice(): { withChoice: <T>(call: (onEnrolled: OnEnrolled) => Promise<T>) => Promise<T | null>; dialog: ReactNode } {
  const [asking, setAsking] = useState<{ detail: string; answer: (choice: OnEnrolled | null) => void } | null>(null);
  async function withChoice<T>(call: (onEnrolled: OnEnrolled) => Promise<T>): Promise<T | null> {
    try {
      return await call('ask');
    } catch (err) {
      if (!(err instanceof ApiError) || err.problem?.code !== 'already_enrolled') throw err;
      const choice = await new Promise<OnEnrolled | null>((answer) => setAsking({ detail: err.problem?.detail ?? err.message, answer }));
      setAsking(null);
      return choice ? call(choice) : null;
    }
  }
  return { withChoice, dialog: asking ? <AlreadyEnrolledDialog detail={asking.detail} onAnswer={asking.answer} /> : null };
}

function AlreadyEnrolledDialog({ detail, onAnswer }: { detail: string; onAnswer: (choice: OnEnrolled | null) => void }) {
  const keep = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    // Keeping changes nothing: the safe answer has the focus, so Enter never restarts a chase.
    keep.current?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') {
        e.stopPropagation();
        onAnswer(null);
      }
    };
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, [onAnswer]);
  return (
    <div className="modal-backdrop" role="presentation" onClick={() => onAnswer(null)}>
      <div className="modal" role="alertdialog" aria-modal="true" aria-labelledby="enrolled-title" aria-describedby="enrolled-detail" data-testid="already-enrolled" onClick={(e) => e.stopPropagation()}>
        <h2 id="enrolled-title">Already enrolled</h2>
        <div className="modal-body">
          <p id="enrolled-detail">{detail}</p>
          <p className="muted small">Keep leaves the steps as they are. Restart ends the current enrollment and schedules every step again from the start date.</p>
        </div>
        <div className="modal-actions">
          <button type="button" className="btn" onClick={() => onAnswer(null)}>
            Cancel
          </button>
          <button ref={keep} type="button" className="btn" onClick={() => onAnswer('keep')}>
            Keep the enrollment
          </button>
          <button type="button" className="btn btn-primary" onClick={() => onAnswer('restart')}>
            Restart the sequence
          </button>
        </div>
      </div>
    </div>
  );
}

/** A bulk enrollment's counts in words. */
export function enrolledWords(r: { enrolled_count: number; updated_count: number; kept_count: number; skipped_count: number }): string {
  const parts = [`${r.enrolled_count} enrolled`];
  if (r.updated_count) parts.push(`${r.updated_count} restarted`);
  if (r.kept_count) parts.push(`${r.kept_count} kept as they were`);
  if (r.skipped_count) parts.push(`${r.skipped_count} not found`);
  return parts.join(', ');
}
