import { type ReactNode, useEffect, useRef, useState } from 'react';
import { AppLink } from '../components/AppLink';
import { describeError, ErrorBox } from '../components/ErrorBox';
import { useLoad } from '../components/useLoad';
import { formatDate, formatMoney, formatTimestamp } from '../desk/format';
import { companyPath } from '../state/route';
import { api } from '../state/session';
import { toast } from '../state/toasts';
import { SplitForm } from './SplitForm';
import { type BankCandidate, type BankTransactionDetail, candidatesOf, confidenceWords, STATE_PILL } from './words';

/**
 * One bank entry: what the bank says about it, its ranked candidates with their reasons, and what
 * a collector does with it: apply the top suggestion, split it over invoices (a short payment may
 * open a dispute or write the rest off; an overpayment stays as unapplied cash), set it aside, or
 * undo an application.
 */
export function CreditPanel({
  companyId,
  transactionId,
  applyAsked,
  splitAsked,
  onChanged,
  onClose,
}: {
  companyId: string;
  transactionId: string;
  /** Bumped by the page's "a" key: apply the top suggestion. */
  applyAsked: number;
  /** Bumped by the page's "s" key: open the split form. */
  splitAsked: number;
  onChanged: () => void;
  onClose: () => void;
}) {
  const [version, setVersion] = useState(0);
  const loaded = useLoad(
    (signal) => api.get('/api/companies/{company_id}/bank-transactions/{transaction_id}', { path: { company_id: companyId, transaction_id: transactionId }, signal }),
    [companyId, transactionId, version],
  );
  const entry = loaded.data;
  const candidates = entry ? candidatesOf(entry) : [];
  const [splitting, setSplitting] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [ignoreNote, setIgnoreNote] = useState('');
  const [ignoring, setIgnoring] = useState(false);
  const panel = useRef<HTMLElement>(null);
  const path = { company_id: companyId, transaction_id: transactionId };
  const reviewable = entry !== null && entry.direction === 'credit' && (entry.state === 'suggested' || entry.state === 'unmatched');

  const done = (message: string) => {
    toast.success(message);
    setSplitting(false);
    setIgnoring(false);
    setVersion((v) => v + 1);
    onChanged();
  };

  async function run(action: () => Promise<unknown>, message: string) {
    setBusy(true);
    setError(null);
    try {
      await action();
      done(message);
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  }

  const applyTop = () => {
    const proposal = entry?.proposal;
    if (!entry || !proposal || !reviewable) return;
    void run(
      () => api.post('/api/companies/{company_id}/bank-transactions/{transaction_id}/apply', { path, body: { allocations: proposal.allocations, unapplied_amount: proposal.unapplied_amount, customer_id: proposal.customer_id } }),
      `Applied ${formatMoney(entry.amount, entry.currency)} from ${entry.counterparty_name ?? 'the payer'}`,
    );
  };

  // The page's keys reach the panel as counters, so a key press is one request, however often the panel renders.
  const seenApply = useRef(applyAsked);
  const seenSplit = useRef(splitAsked);
  useEffect(() => {
    if (applyAsked === seenApply.current || !entry) return;
    seenApply.current = applyAsked;
    if (entry.proposal && reviewable) applyTop();
    else setError(reviewable ? 'There is no suggestion to apply: split it over the invoices it pays (s).' : 'Only a credit to review can be applied.');
  });
  useEffect(() => {
    if (splitAsked === seenSplit.current || !entry) return;
    seenSplit.current = splitAsked;
    if (reviewable) setSplitting(true);
  });

  return (
    <aside ref={panel} className="side-panel" aria-label="Bank entry" tabIndex={-1} data-testid="credit-panel">
      <header className="panel-header">
        <div>
          <div className="muted small">{entry ? `${entry.direction === 'credit' ? 'Credit' : 'Debit'} booked ${formatDate(entry.booked_on)}` : 'Bank entry'}</div>
          <h2>
            {entry ? formatMoney(entry.amount, entry.currency) : '…'} {entry?.counterparty_name ? <span className="muted">from {entry.counterparty_name}</span> : null}
          </h2>
        </div>
        {entry && (
          <span className="pill" data-testid="credit-state">
            {STATE_PILL[entry.state]}
          </span>
        )}
        <span className="spacer" />
        <button type="button" className="btn btn-ghost" aria-label="Close the entry" title="Close (Esc)" onClick={onClose}>
          ✕
        </button>
      </header>
      <div className="panel-body">
        {loaded.error !== null && <ErrorBox what="the bank entry" error={loaded.error} onRetry={loaded.reload} />}
        {entry && (
          <>
            <EntryFacts entry={entry} />
            {error && (
              <div className="error-box" role="alert" data-testid="credit-error">
                <span>{error}</span>
              </div>
            )}
            {reviewable && !splitting && (
              <section className="panel-section" data-testid="candidates">
                <h3>Candidates</h3>
                {candidates.length === 0 ? (
                  <p className="muted">No open invoice fits this credit. Split it to choose the invoices yourself, or set it aside if it is not a customer's payment.</p>
                ) : (
                  <ol className="candidates">
                    {candidates.map((c) => (
                      <Candidate key={c.invoice_id} companyId={companyId} candidate={c} currency={entry.currency} />
                    ))}
                  </ol>
                )}
                {entry.proposal && (
                  <p className="small" data-testid="proposal">
                    Applying the top suggestion puts{' '}
                    {entry.proposal.allocations
                      .map((a) => `${formatMoney(a.amount, entry.currency)} on ${candidates.find((c) => c.invoice_id === a.invoice_id)?.invoice_number ?? 'an invoice'}`)
                      .join(', ')}
                    {entry.proposal.unapplied_amount > 0 ? ` and keeps ${formatMoney(entry.proposal.unapplied_amount, entry.currency)} as unapplied cash` : ''}.
                  </p>
                )}
                <div className="toolbar-row">
                  <button type="button" className="btn btn-primary" disabled={busy || !entry.proposal} onClick={applyTop}>
                    Apply top suggestion
                  </button>
                  <button type="button" className="btn" disabled={busy} onClick={() => setSplitting(true)}>
                    Split or choose invoices
                  </button>
                  <button type="button" className="btn" disabled={busy} onClick={() => setIgnoring((v) => !v)} aria-expanded={ignoring}>
                    Set aside
                  </button>
                </div>
                {ignoring && (
                  <div className="stack">
                    <label className="wide-field">
                      Why it is not a customer's payment (optional)
                      <input type="text" value={ignoreNote} placeholder="Interest, a refund, a transfer between our accounts…" onChange={(e) => setIgnoreNote(e.target.value)} />
                    </label>
                    <button
                      type="button"
                      className="btn"
                      disabled={busy}
                      onClick={() => void run(() => api.post('/api/companies/{company_id}/bank-transactions/{transaction_id}/ignore', { path, body: { note: ignoreNote.trim() || null } }), 'Set aside')}
                    >
                      Set it aside
                    </button>
                  </div>
                )}
              </section>
            )}
            {reviewable && splitting && (
              <SplitForm
                companyId={companyId}
                entry={entry}
                busy={busy}
                onCancel={() => setSplitting(false)}
                onApply={(body) => run(() => api.post('/api/companies/{company_id}/bank-transactions/{transaction_id}/apply', { path, body }), `Applied ${formatMoney(entry.amount, entry.currency)}`)}
              />
            )}
            {entry.direction === 'debit' && <p className="muted panel-section">Money out of the account: listed for the record, never applied to invoices.</p>}
            <Applications
              companyId={companyId}
              entry={entry}
              busy={busy}
              onUndo={() => void run(() => api.post('/api/companies/{company_id}/bank-transactions/{transaction_id}/unapply', { path }), 'Application undone: the invoices are open again')}
            />
          </>
        )}
      </div>
    </aside>
  );
}

function Row({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="field">
      <dt>{label}</dt>
      <dd>{children === null || children === undefined || children === '' ? <span className="muted">—</span> : children}</dd>
    </div>
  );
}

/** What the bank file says about the entry. */
function EntryFacts({ entry }: { entry: BankTransactionDetail }) {
  return (
    <section className="panel-section" data-testid="entry-facts">
      {entry.flag === 'foreign_currency' && (
        <p className="notice-warn">This credit is in {entry.currency}, not the company's currency: it is never applied by itself. Apply it by hand if it pays an invoice.</p>
      )}
      <dl className="fields">
        <Row label="Remittance">{entry.remittance_text || null}</Row>
        <Row label="Creditor reference">{entry.structured_reference}</Row>
        <Row label="Payer account">{entry.counterparty_account ? <span className="mono">{entry.counterparty_account}</span> : null}</Row>
        <Row label="Value date">{entry.value_on ? formatDate(entry.value_on) : null}</Row>
        <Row label="Bank reference">{entry.bank_reference ? <span className="mono">{entry.bank_reference}</span> : null}</Row>
        {entry.note && <Row label="Note">{entry.note}</Row>}
      </dl>
    </section>
  );
}

function Candidate({ companyId, candidate: c, currency }: { companyId: string; candidate: BankCandidate; currency: string }) {
  return (
    <li className="candidate" data-testid="candidate">
      <div className="candidate-head">
        <AppLink to={companyPath(companyId, 'invoices', c.invoice_id)}>
          <span className="mono">{c.invoice_number}</span>
        </AppLink>
        <span>{c.customer_name}</span>
        <span className="spacer" />
        <span className="small">{confidenceWords(c.confidence)}</span>
      </div>
      <div className="small muted">
        Open {formatMoney(c.open_balance, currency)}; would apply {formatMoney(c.amount, currency)}
      </div>
      <ul className="reasons small">
        {c.reasons.map((r) => (
          <li key={r}>{r}</li>
        ))}
      </ul>
    </li>
  );
}

const SHORT_WORDS = { dispute: 'a dispute opened', write_off: 'the rest written off' } as const;

/** What the entry was applied to, and the undo. */
function Applications({ companyId, entry, busy, onUndo }: { companyId: string; entry: BankTransactionDetail; busy: boolean; onUndo: () => void }) {
  const current = entry.applications.filter((a) => a.reversed_at === null);
  const undone = entry.applications.filter((a) => a.reversed_at !== null);
  if (entry.applications.length === 0) return null;
  return (
    <section className="panel-section" data-testid="applications">
      <h3>Applied</h3>
      {current.length > 0 && (
        <ul className="stack">
          {current.map((a) => (
            <li key={a.id}>
              {formatMoney(a.amount, entry.currency)}{' '}
              {a.kind === 'invoice' && a.invoice_id ? (
                <>
                  to{' '}
                  <AppLink to={companyPath(companyId, 'invoices', a.invoice_id)}>
                    <span className="mono">{a.invoice_number}</span>
                  </AppLink>
                </>
              ) : (
                'kept as unapplied cash on the customer'
              )}
              {a.short_action ? `, ${SHORT_WORDS[a.short_action]}` : ''}
              <span className="muted small">
                {' '}
                · {a.automatic ? 'automatically' : `by ${a.applied_by ?? 'a person'}`} on {formatTimestamp(a.created_at)}
              </span>
            </li>
          ))}
        </ul>
      )}
      {undone.length > 0 && <p className="muted small">{undone.length === 1 ? 'One earlier application was undone.' : `${undone.length} earlier applications were undone.`}</p>}
      {entry.state === 'applied' && (
        <button type="button" className="btn" disabled={busy} onClick={onUndo}>
          Undo application
        </button>
      )}
    </section>
  );
}
