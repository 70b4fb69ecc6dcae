import { useState } from 'react';
import type { Schemas } from '../api/client';
import { FormError, useSave } from '../components/useSave';
import { formatDate, formatTimestamp } from '../desk/format';
import { api } from '../state/session';
import { readingWords } from './reading-words';

type Reading = NonNullable<Schemas['ReplyReading']>;
type Correction = Schemas['ReplyReadingCorrection'];

/**
 * How a reply from the customer was read, the sentence it was read from, and one click to correct
 * it: not a promise, a dispute (opens it on the reply's invoice), or a promise with another date.
 */
export function ReplyReading({ companyId, communicationId, reading, currency, canWrite, onChanged }: { companyId: string; communicationId: string; reading: Reading; currency: string; canWrite: boolean; onChanged: () => void }) {
  const save = useSave();
  const [dating, setDating] = useState(false);
  const [date, setDate] = useState(reading.promise_date ?? '');
  const correct = async (body: Correction, done: string) => {
    const path = { company_id: companyId, communication_id: communicationId };
    if (await save.run(() => api.post('/api/companies/{company_id}/communications/{communication_id}/reading', { path, body }), done)) {
      setDating(false);
      onChanged();
    }
  };
  const who = reading.automatic ? 'Read by ardesk' : `Corrected by ${reading.corrected_by ?? 'a team member'}${reading.corrected_at ? ` on ${formatTimestamp(reading.corrected_at)}` : ''}`;
  return (
    <div className={`reply-reading reading-${reading.kind}`} data-testid="reply-reading" data-kind={reading.kind}>
      <div className="small">
        <strong>{readingWords(reading, currency)}</strong> <span className="muted">· {who}</span>
      </div>
      {reading.sentence && (
        <blockquote className="small reading-sentence" data-testid="reading-sentence">
          “{reading.sentence}”
        </blockquote>
      )}
      {canWrite && (
        <div className="reading-actions">
          {reading.kind === 'promise' && (
            <button type="button" className="btn btn-small" disabled={save.busy} onClick={() => correct({ kind: 'none' }, 'Marked as not a promise.')}>
              Not a promise
            </button>
          )}
          {reading.kind !== 'dispute' && (
            <button type="button" className="btn btn-small" disabled={save.busy} onClick={() => correct({ kind: 'dispute' }, 'Marked as a dispute.')}>
              It is a dispute
            </button>
          )}
          {reading.kind === 'dispute' && (
            <button type="button" className="btn btn-small" disabled={save.busy} onClick={() => correct({ kind: 'none' }, 'Marked as not a dispute.')}>
              Not a dispute
            </button>
          )}
          {!dating && (
            <button type="button" className="btn btn-small" disabled={save.busy} onClick={() => setDating(true)}>
              {reading.kind === 'promise' ? 'Change the date…' : 'It is a promise…'}
            </button>
          )}
        </div>
      )}
      {canWrite && dating && (
        <form
          className="toolbar-row"
          onSubmit={(e) => {
            e.preventDefault();
            void correct({ kind: 'promise', promise_date: date || null, promise_amount: reading.kind === 'promise' ? reading.promise_amount : null }, `Promise recorded for ${formatDate(date)}.`);
          }}
        >
          <label className="form-row">
            Promised for
            <input type="date" value={date} required onChange={(e) => setDate(e.target.value)} />
          </label>
          <button type="submit" className="btn btn-small btn-primary" disabled={save.busy || !date}>
            Save the promise
          </button>
          <button type="button" className="btn btn-small" onClick={() => setDating(false)}>
            Cancel
          </button>
        </form>
      )}
      <FormError error={save.error} />
    </div>
  );
}
