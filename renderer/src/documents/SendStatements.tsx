import { useEffect, useState } from 'react';
import type { Schemas } from '../api/client';
import { describeError } from '../components/ErrorBox';
import { api, useSession } from '../state/session';

type Run = Schemas['StatementRun'];
type Preview = Schemas['StatementPreview'];

/** "Sent 18 of 20; 2 not sent" while and after a run. */
export function runSummary(run: Run): string {
  const sent = `${run.sent} of ${run.total} statement${run.total === 1 ? '' : 's'} sent`;
  if (!run.finished) return `Sending: ${sent} so far…`;
  return run.not_sent ? `${sent}; ${run.not_sent} not sent` : sent;
}

const POLL_MS = 1000;

/**
 * Emails each customer its statement of account, as of today, to its billing contact: a background
 * job on the server; this follows it, then lists what could not be sent and why. Nothing goes on one
 * click: the first says who the contact rule holds and why, and how many will go; Send confirms.
 */
export function SendStatements({ companyId, customers, label }: { companyId: string; customers: Array<{ id: string; name: string }>; label: string }) {
  const [run, setRun] = useState<Run | null>(null);
  const [preview, setPreview] = useState<Preview | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [reason, setReason] = useState('');
  const path = { company_id: companyId };
  const body = { customer_ids: customers.map((c) => c.id) };

  async function ask(step: () => Promise<void>) {
    setBusy(true);
    setError(null);
    try {
      await step();
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  }

  useEffect(() => {
    if (!run || run.finished) return;
    const timer = setTimeout(async () => {
      try {
        setRun(await api.get('/api/companies/{company_id}/statement-runs/{run_id}', { path: { company_id: companyId, run_id: run.id } }));
      } catch (err) {
        setError(describeError(err));
      }
    }, POLL_MS);
    return () => clearTimeout(timer);
  }, [companyId, run]);

  const notSent = run?.items.filter((i) => i.status === 'not_sent') ?? [];
  return (
    <div className="send-statements" data-testid="send-statements">
      <button
        type="button"
        className="btn btn-small"
        disabled={busy || preview !== null || (run !== null && !run.finished) || customers.length === 0}
        onClick={() =>
          void ask(async () => {
            setRun(null);
            setPreview(await api.post('/api/companies/{company_id}/statement-runs/preview', { path, body }));
          })
        }
      >
        {label}
      </button>
      {preview && (
        <div className="statement-preview small" role="group" aria-label="Before sending statements" data-testid="statement-preview">
          <p>
            {preview.will_send === preview.total
              ? `${preview.total === 1 ? 'The statement goes' : `All ${preview.total} statements go`} to the billing contact${preview.total === 1 ? '' : 's'}, as of today.`
              : `${preview.will_send} of ${preview.total} statement${preview.total === 1 ? '' : 's'} will go; ${preview.held.length} on hold:`}
          </p>
          {preview.held.length > 0 && (
            <>
              <ul aria-label="Statements on hold">
                {preview.held.map((h) => (
                  <li key={h.customer_id}>
                    {h.customer_name}: {h.reason.replace(/^Held: /, '')}
                  </li>
                ))}
              </ul>
              <label className="stacked">
                To send {preview.held.length === 1 ? 'it' : 'them'} anyway, say why (kept in the change log)
                <input data-testid="override-reason" maxLength={500} value={reason} onChange={(e) => setReason(e.target.value)} />
              </label>
            </>
          )}
          <div className="form-actions">
            {preview.will_send > 0 && (
              <button
                type="button"
                className="btn btn-primary btn-small"
                disabled={busy}
                onClick={() =>
                  void ask(async () => {
                    setRun(await api.post('/api/companies/{company_id}/statement-runs', { path, body }));
                    setPreview(null);
                  })
                }
              >
                {preview.will_send === 1 ? 'Send the statement' : `Send ${preview.will_send} statements`}
              </button>
            )}
            {preview.held.length > 0 && (
              <button
                type="button"
                className="btn btn-small"
                disabled={busy || !reason.trim()}
                onClick={() =>
                  void ask(async () => {
                    setRun(await api.post('/api/companies/{company_id}/statement-runs', { path, body: { ...body, override_reason: reason.trim() } }));
                    setPreview(null);
                    setReason('');
                  })
                }
              >
                {preview.total === 1 ? 'Send it anyway' : `Send all ${preview.total} anyway`}
              </button>
            )}
            <button type="button" className="btn btn-small" disabled={busy} onClick={() => setPreview(null)}>
              Cancel
            </button>
          </div>
        </div>
      )}
      {run && (
        <div role="status" className="small">
          {run.total > 1 && !run.finished && <progress max={run.total} value={run.done} aria-label="Statements handled" />} {runSummary(run)}
        </div>
      )}
      {run?.finished && notSent.length > 0 && (
        <ul className="small" aria-label="Statements not sent">
          {notSent.map((i) => (
            <li key={i.customer_id}>
              {i.customer_name}: {i.reason}
            </li>
          ))}
        </ul>
      )}
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

/** Whether the signed-in user may send (viewers read only). */
export function useCanSend(companyId: string): boolean {
  return useSession((s) => s.companies.find((c) => c.id === companyId)?.role) !== 'viewer';
}
