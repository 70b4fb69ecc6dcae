import { useState } from 'react';
import { ConfirmDialog } from '../components/Dialog';
import { ErrorBox } from '../components/ErrorBox';
import { useLoad } from '../components/useLoad';
import { FormError, useSave } from '../components/useSave';
import { api } from '../state/session';

type Stop = 'paused' | 'do_not_contact';

/**
 * A person's stop on writing to the customer (the contact rule holds every channel while it
 * stands, and the chase above says so in its words): the way to lift it, or "Stop contact…" asking
 * which stop and why. Owners and collectors
 * set it; a viewer reads it.
 */
export function ContactStop({ companyId, customerId, customerName, canWrite, onChanged }: { companyId: string; customerId: string; customerName: string; canWrite: boolean; onChanged: () => void }) {
  const path = { company_id: companyId, customer_id: customerId };
  const current = useLoad((signal) => api.get('/api/companies/{company_id}/customers/{customer_id}/contact-stop', { path, signal }), [companyId, customerId]);
  const [asking, setAsking] = useState(false);
  const [stop, setStop] = useState<Stop>('paused');
  const [reason, setReason] = useState('');
  const save = useSave();
  const put = (body: { stop: Stop | null; reason?: string }, done: string) =>
    void save.run(() => api.put('/api/companies/{company_id}/customers/{customer_id}/contact-stop', { path, body }), done).then((ok) => {
      if (!ok) return;
      setAsking(false);
      setReason('');
      current.reload();
      onChanged();
    });
  if (current.error !== null) return <ErrorBox what="whether contact is stopped" error={current.error} onRetry={current.reload} />;
  const s = current.data;
  if (!s) return null;
  return (
    <div className="contact-stop" data-testid="contact-stop">
      {s.stop ? (
        // Its words are the chase's first line (ChaseStatus): here only the way to lift it.
        canWrite && (
          <button type="button" className="btn btn-small" data-testid="contact-stop-lift" disabled={save.busy} onClick={() => put({ stop: null }, `Contact with ${customerName} may go on`)}>
            {s.stop === 'paused' ? 'Resume contact' : 'Lift "do not contact"'}
          </button>
        )
      ) : (
        canWrite && (
          <button type="button" className="btn btn-small" onClick={() => setAsking(true)}>
            Stop contact…
          </button>
        )
      )}
      {!asking && <FormError error={save.error} />}
      {asking && (
        <ConfirmDialog
          title={`Stop contact with ${customerName}`}
          confirmLabel="Stop contact"
          busy={save.busy}
          disabled={reason.trim() === ''}
          focusConfirm={false}
          onCancel={() => setAsking(false)}
          onConfirm={() => put({ stop, reason }, stop === 'paused' ? `Contact with ${customerName} paused` : `${customerName} marked do not contact`)}
        >
          <fieldset className="stop-kind">
            <legend>Nothing goes to {customerName} from any channel until it is lifted</legend>
            <label>
              <input type="radio" name="stop" checked={stop === 'paused'} onChange={() => setStop('paused')} /> Pause contact
            </label>
            <label>
              <input type="radio" name="stop" checked={stop === 'do_not_contact'} onChange={() => setStop('do_not_contact')} /> Do not contact
            </label>
          </fieldset>
          <label className="stacked">
            Why (shown wherever the hold is)
            <textarea rows={3} maxLength={500} autoFocus value={reason} onChange={(e) => setReason(e.target.value)} />
          </label>
          <FormError error={save.error} />
        </ConfirmDialog>
      )}
    </div>
  );
}
