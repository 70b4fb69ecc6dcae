import { type FormEvent, useEffect, useRef, useState } from 'react';
import { api } from '../state/session';
import { toast } from '../state/toasts';
import { CALL_OUTCOME_WORDS, CALL_OUTCOMES, type CallOutcome, promiseAmountValue } from './callOutcomes';
import { describeError } from './ErrorBox';
import './outreach.css';

/** The fields a call shares between the log dialog and the queue's call step: outcome, promise to pay. */
export function CallFields({
  outcome,
  promiseDate,
  promiseAmount,
  onChange,
}: {
  outcome: CallOutcome | '';
  promiseDate: string;
  promiseAmount: string;
  onChange: (patch: { outcome?: CallOutcome | ''; promiseDate?: string; promiseAmount?: string }) => void;
}) {
  return (
    <>
      <label className="wide-field">
        Outcome
        <select value={outcome} onChange={(e) => onChange({ outcome: e.target.value as CallOutcome | '' })}>
          <option value="">Not recorded</option>
          {CALL_OUTCOMES.map((o) => (
            <option key={o} value={o}>
              {CALL_OUTCOME_WORDS[o]}
            </option>
          ))}
        </select>
      </label>
      {outcome === 'promised_to_pay' && (
        <div className="form-grid">
          <label>
            Promised payment date
            <input type="date" value={promiseDate} onChange={(e) => onChange({ promiseDate: e.target.value })} />
          </label>
          <label>
            Promised amount
            <input type="number" min="0.01" step="0.01" inputMode="decimal" value={promiseAmount} onChange={(e) => onChange({ promiseAmount: e.target.value })} />
          </label>
        </div>
      )}
    </>
  );
}

/**
 * Log a call (outcome, note, promise to pay) or a note about a customer, optionally about one of
 * its invoices. It becomes a communication: the invoice's last touch and what summaries read.
 */
export function LogContactDialog({
  companyId,
  customerId,
  customerName,
  invoiceId,
  invoiceNumber,
  onClose,
  onLogged,
}: {
  companyId: string;
  customerId: string;
  customerName: string;
  invoiceId?: string | null;
  invoiceNumber?: string | null;
  onClose: () => void;
  onLogged: () => void;
}) {
  const [kind, setKind] = useState<'call' | 'note'>('call');
  const [outcome, setOutcome] = useState<CallOutcome | ''>('');
  const [promiseDate, setPromiseDate] = useState('');
  const [promiseAmount, setPromiseAmount] = useState('');
  const [body, setBody] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const first = useRef<HTMLInputElement>(null);

  useEffect(() => {
    first.current?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') {
        e.stopPropagation();
        onClose();
      }
    };
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, [onClose]);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    const promised = kind === 'call' && outcome === 'promised_to_pay';
    try {
      await api.post('/api/companies/{company_id}/communications', {
        path: { company_id: companyId },
        body: {
          customer_id: customerId,
          invoice_id: invoiceId ?? undefined,
          kind,
          outcome: kind === 'call' && outcome ? outcome : undefined,
          body: body.trim() || undefined,
          promise_date: promised && promiseDate ? promiseDate : undefined,
          promise_amount: promised ? promiseAmountValue(promiseAmount) : undefined,
        },
      });
      toast.success(kind === 'call' ? `Call with ${customerName} logged` : `Note on ${customerName} saved`);
      onLogged();
      onClose();
    } catch (err) {
      setError(describeError(err));
      setBusy(false);
    }
  }

  return (
    <div className="modal-backdrop" role="presentation" onClick={onClose}>
      <div className="modal" role="dialog" aria-modal="true" aria-labelledby="log-contact-title" onClick={(e) => e.stopPropagation()}>
        <h2 id="log-contact-title">
          Log a call or note: {customerName}
          {invoiceNumber ? `, invoice ${invoiceNumber}` : ''}
        </h2>
        <form className="stack" onSubmit={submit}>
          <fieldset className="toolbar-row" style={{ border: 'none', padding: 0, margin: 0 }}>
            <legend className="sr-only">What to log</legend>
            <label className="check">
              <input ref={first} type="radio" name="log-kind" checked={kind === 'call'} onChange={() => setKind('call')} /> A call
            </label>
            <label className="check">
              <input type="radio" name="log-kind" checked={kind === 'note'} onChange={() => setKind('note')} /> A note
            </label>
          </fieldset>
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
            {kind === 'call' ? 'What was said' : 'Note'}
            <textarea value={body} onChange={(e) => setBody(e.target.value)} required={kind === 'note'} />
          </label>
          {error && (
            <div className="error-box" role="alert">
              <span>{error}</span>
            </div>
          )}
          <div className="modal-actions">
            <button type="button" className="btn" onClick={onClose}>
              Cancel
            </button>
            <button type="submit" className="btn btn-primary" disabled={busy}>
              {kind === 'call' ? 'Log call' : 'Save note'}
            </button>
          </div>
        </form>
      </div>
    </div>
  );
}

/** The "Log call / Add note" button with its dialog, for the invoice panel and the customer page. */
export function LogContactButton(props: Omit<Parameters<typeof LogContactDialog>[0], 'onClose'>) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" className="btn" data-shortcut="call" aria-keyshortcuts="C" onClick={() => setOpen(true)}>
        Log call / Add note
      </button>
      {open && <LogContactDialog {...props} onClose={() => setOpen(false)} />}
    </>
  );
}
