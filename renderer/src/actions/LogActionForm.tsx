import { type FormEvent, useState } from 'react';
import { CallFields } from '../components/LogContact';
import { type CallOutcome, promiseAmountValue } from '../components/callOutcomes';
import { describeError } from '../components/ErrorBox';
import { api } from '../state/session';
import { toast } from '../state/toasts';

/**
 * Doing an approved call or task: log the call (outcome, promise to pay, what was said) or, for a
 * task done without a call, a note. Logging it completes the action.
 */
export function LogActionForm({
  companyId,
  actionId,
  actionType,
  customerName,
  onLogged,
}: {
  companyId: string;
  actionId: string;
  actionType: 'call' | 'task' | 'email';
  customerName: string;
  onLogged: () => void;
}) {
  const [kind, setKind] = useState<'call' | 'note'>(actionType === 'task' ? 'note' : 'call');
  const [outcome, setOutcome] = useState<CallOutcome | ''>('');
  const [promiseDate, setPromiseDate] = useState('');
  const [promiseAmount, setPromiseAmount] = useState('');
  const [body, setBody] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    const promised = kind === 'call' && outcome === 'promised_to_pay';
    try {
      await api.post('/api/companies/{company_id}/actions/{action_id}/log', {
        path: { company_id: companyId, action_id: actionId },
        body: {
          kind,
          outcome: kind === 'call' && outcome ? outcome : undefined,
          body: body.trim() || undefined,
          promise_date: promised && promiseDate ? promiseDate : undefined,
          promise_amount: promised ? promiseAmountValue(promiseAmount) : undefined,
        },
      });
      toast.success(kind === 'call' ? `Call with ${customerName} logged; the action is done` : `Task for ${customerName} done`);
      onLogged();
    } catch (err) {
      setError(describeError(err));
      setBusy(false);
    }
  }

  return (
    <form className="stack" aria-label={`Log the ${actionType === 'task' ? 'task' : 'call'} for ${customerName}`} onSubmit={submit} data-testid="log-action">
      {actionType === 'task' && (
        <fieldset className="toolbar-row" style={{ border: 'none', padding: 0, margin: 0 }}>
          <legend className="sr-only">What to log</legend>
          <label className="check">
            <input type="radio" name={`log-kind-${actionId}`} checked={kind === 'note'} onChange={() => setKind('note')} /> Done (a note)
          </label>
          <label className="check">
            <input type="radio" name={`log-kind-${actionId}`} checked={kind === 'call'} onChange={() => setKind('call')} /> A call
          </label>
        </fieldset>
      )}
      {kind === 'call' && (
        <CallFields
          outcome={outcome}
          promiseDate={promiseDate}
          promiseAmount={promiseAmount}
          onChange={(p) => {
            if (p.outcome !== undefined) setOutcome(p.outcome);
            if (p.promiseDate !== undefined) setPromiseDate(p.promiseDate);
            if (p.promiseAmount !== undefined) setPromiseAmount(p.promiseAmount);
          }}
        />
      )}
      <label className="wide-field">
        {kind === 'call' ? 'What was said' : 'What was done'}
        <textarea value={body} onChange={(e) => setBody(e.target.value)} required={kind === 'note'} />
      </label>
      {error && (
        <div className="error-box" role="alert">
          <span>{error}</span>
        </div>
      )}
      <div className="form-actions">
        <button type="submit" className="btn btn-primary" disabled={busy}>
          {kind === 'call' ? 'Log the call and complete' : 'Mark done'}
        </button>
      </div>
    </form>
  );
}
