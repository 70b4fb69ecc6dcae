import { useState } from 'react';
import { describeError } from '../components/ErrorBox';
import { useLoad } from '../components/useLoad';
import { api } from '../state/session';
import { toast } from '../state/toasts';
import { enrolledWords, useEnrollChoice } from '../sequences/AlreadyEnrolled';

/** Enroll the customers picked in the list into an active sequence (the bulk enrollment endpoint). */
export function EnrollSelected({ companyId, customers, onDone }: { companyId: string; customers: Array<{ id: string; name: string }>; onDone: () => void }) {
  const [sequenceId, setSequenceId] = useState('');
  const [startDate, setStartDate] = useState('');
  const [busy, setBusy] = useState(false);
  const { withChoice, dialog } = useEnrollChoice();
  const sequences = useLoad(
    (signal) => api.get('/api/companies/{company_id}/sequences', { path: { company_id: companyId }, query: { status: 'active', page_size: 100 }, signal }),
    [companyId],
  );
  const active = sequences.data?.data ?? [];
  const chosen = sequenceId || active[0]?.id || '';
  const count = `${customers.length} customer${customers.length === 1 ? '' : 's'}`;

  async function enroll() {
    setBusy(true);
    try {
      const result = await withChoice((onEnrolled) =>
        api.post('/api/companies/{company_id}/sequences/{sequence_id}/enrollments/bulk', {
          path: { company_id: companyId, sequence_id: chosen },
          body: { customer_ids: customers.map((c) => c.id), start_date: startDate || undefined, on_enrolled: onEnrolled },
        }),
      );
      if (!result) return;
      const name = active.find((s) => s.id === chosen)?.name ?? 'the sequence';
      toast.success(`${name}: ${enrolledWords(result)}`);
      onDone();
    } catch (err) {
      toast.error(`Not enrolled: ${describeError(err)}`);
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="bulk-bar" role="region" aria-label="Enroll the selected customers" data-testid="enroll-selected">
      {dialog}
      <strong>{count} selected</strong>
      {sequences.data && active.length === 0 ? (
        <span className="muted">No active sequence: activate one under Sequences first.</span>
      ) : (
        <>
          <label className="inline-field">
            Sequence
            <select value={chosen} onChange={(e) => setSequenceId(e.target.value)}>
              {active.map((s) => (
                <option key={s.id} value={s.id}>
                  {s.name}
                </option>
              ))}
            </select>
          </label>
          <label className="inline-field">
            Start date (empty: today)
            <input type="date" value={startDate} onChange={(e) => setStartDate(e.target.value)} />
          </label>
          <button type="button" className="btn btn-primary" disabled={busy || !chosen} onClick={() => void enroll()}>
            Enroll {count}
          </button>
        </>
      )}
      <button type="button" className="btn" onClick={onDone}>
        Clear the selection
      </button>
    </div>
  );
}
