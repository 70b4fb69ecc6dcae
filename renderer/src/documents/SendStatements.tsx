import { useEffect, useState } from 'react';
import type { Schemas } from '../api/client';
import { describeError } from '../components/ErrorBox';
import { api, useSession } from '../state/session';

type Run = Schemas['StatementRun'];

/** "Sent 18 of 20; 2 not sent" while and after a run. */
export function runSummary(run: Run): string {
  const sent = `${run.sent} of ${run.total} statement${run.total === 1 ? '' : 's'} sent`;
  if (!run.finished) return `Sending: ${sent} so far…`;
  return run.not_sent ? `${sent}; ${run.not_sent} not sent` : sent;
}

const POLL_MS = 1000;

/**
 * Emails each customer its statement of account, as of today, to its billing contact: a background
 * job on the server; this follows it, then lists what could not be sent and why.
 */
export function SendStatements({ companyId, customers, label }: { companyId: string; customers: Array<{ id: string; name: string }>; label: string }) {
  const [run, setRun] = useState<Run | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

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
        disabled={busy || (run !== null && !run.finished) || customers.length === 0}
        onClick={async () => {
          setBusy(true);
          setError(null);
          try {
            setRun(await api.post('/api/companies/{company_id}/statement-runs', { path: { company_id: companyId }, body: { customer_ids: customers.map((c) => c.id) } }));
          } catch (err) {
            setError(describeError(err));
          } finally {
            setBusy(false);
          }
        }}
      >
        {label}
      </button>
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
