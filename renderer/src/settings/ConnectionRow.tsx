import { useEffect, useRef, useState } from 'react';
import type { Schemas } from '../api/client';
import { describeError } from '../components/ErrorBox';
import { formatTimestamp } from '../desk/format';
import { api } from '../state/session';
import { replyReadProgress } from './reply-read';

type Connection = Schemas['EmailConnection'];
type Outcome = { ok: boolean; text: string };

/** How often a reading of replies is asked where it stands, and for how long at most. */
const POLL_MS = 1000;
const POLL_LIMIT = 120;

/** Whether and how replies are read from the connection's mailbox: server, last reading and its error. */
function RepliesCell({ c }: { c: Connection }) {
  if (!c.imap_host) return <span className="muted">Not read (no IMAP server)</span>;
  return (
    <>
      <div>
        {c.imap_host}:{c.imap_port}
        {c.imap_secure ? ' (TLS)' : ''} · {c.imap_mailbox}
      </div>
      <div className="muted small">{c.replies_checked_at ? `Last read ${formatTimestamp(c.replies_checked_at)}` : 'Not read yet'}</div>
      {c.replies_error && <div className="small bad">Last reading failed: {c.replies_error}</div>}
    </>
  );
}

function OutcomeLine({ label, outcome }: { label: string; outcome: Outcome }) {
  return (
    <li className={outcome.ok ? 'outcome-ok' : 'outcome-bad'}>
      <strong>
        {label}: {outcome.ok ? 'works' : 'failed'}.
      </strong>{' '}
      {outcome.text}
    </li>
  );
}

/**
 * One connection in the table, with "Test connection" (each server's outcome in words) and "Read
 * replies now" (the reading job followed until it ends, then the table reloads its last read time).
 */
export function ConnectionRow({
  companyId,
  c,
  canWrite,
  busy,
  onEdit,
  onMakeDefault,
  onChanged,
}: {
  companyId: string;
  c: Connection;
  canWrite: boolean;
  busy: boolean;
  onEdit: () => void;
  onMakeDefault: () => void;
  onChanged: () => void;
}) {
  const [testing, setTesting] = useState(false);
  const [check, setCheck] = useState<{ smtp: Outcome; imap: Outcome | null } | null>(null);
  const [reading, setReading] = useState<{ done: boolean; ok: boolean; text: string } | null>(null);
  const alive = useRef(true);
  useEffect(() => {
    alive.current = true;
    return () => {
      alive.current = false;
    };
  }, []);
  const path = { company_id: companyId, connection_id: c.id };

  async function test() {
    setTesting(true);
    setCheck(null);
    try {
      const result = await api.post('/api/companies/{company_id}/email-connections/{connection_id}/test', { path });
      if (!alive.current) return;
      setCheck({
        smtp: { ok: result.smtp.ok, text: result.smtp.message },
        imap: result.imap ? { ok: result.imap.ok, text: result.imap.message } : null,
      });
    } catch (err) {
      if (alive.current) setCheck({ smtp: { ok: false, text: describeError(err) }, imap: null });
    } finally {
      if (alive.current) setTesting(false);
    }
  }

  async function readReplies() {
    setReading({ done: false, ok: true, text: 'Asking for a reading of the mailbox…' });
    try {
      const queued = await api.post('/api/companies/{company_id}/email-connections/{connection_id}/sync-replies', { path });
      for (let n = 0; n < POLL_LIMIT && alive.current; n++) {
        const job = await api.get('/api/companies/{company_id}/jobs/{job_id}', { path: { company_id: companyId, job_id: queued.job_id } });
        const progress = replyReadProgress(job);
        if (!alive.current) return;
        setReading(progress);
        if (progress.done) {
          onChanged();
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
      if (alive.current) setReading({ done: true, ok: false, text: 'The reading is taking long; it goes on in the background and its outcome will show under Replies.' });
    } catch (err) {
      if (alive.current) setReading({ done: true, ok: false, text: describeError(err) });
    }
  }

  const readBusy = reading !== null && !reading.done;
  return (
    <>
      <tr>
        <td>
          {c.name} {c.is_default && <span className="pill">default</span>}
          <div className={c.is_active ? 'muted small' : 'small bad'}>{c.is_active ? (c.has_password ? 'Active' : 'Active, no password') : 'Switched off'}</div>
        </td>
        <td className="break-anywhere">{c.from_name ? `${c.from_name} <${c.from_email}>` : c.from_email}</td>
        <td className="break-anywhere">
          {c.smtp_host}:{c.smtp_port}
          {c.smtp_secure ? ' (TLS)' : ''}
        </td>
        <td className="break-anywhere">
          <RepliesCell c={c} />
        </td>
        <td className="num">
          <div className="row-buttons">
            {canWrite && (
              <>
                {!c.is_default && (
                  <button type="button" className="btn btn-small" disabled={busy} onClick={onMakeDefault}>
                    Make default
                  </button>
                )}
                <button type="button" className="btn btn-small" aria-label={`Edit ${c.name}`} onClick={onEdit}>
                  Edit
                </button>
              </>
            )}
            <button type="button" className="btn btn-small" aria-label={`Test connection ${c.name}`} disabled={testing} onClick={test}>
              {testing ? 'Testing…' : 'Test connection'}
            </button>
            {c.imap_host && c.is_active && (
              <button type="button" className="btn btn-small" aria-label={`Read replies now from ${c.name}`} disabled={readBusy} onClick={readReplies}>
                {readBusy ? 'Reading…' : 'Read replies now'}
              </button>
            )}
          </div>
        </td>
      </tr>
      {(testing || check || reading) && (
        <tr className="row-detail">
          <td colSpan={5}>
            <div role="status" aria-live="polite" data-testid="connection-outcomes">
              <ul className="outcomes">
                {testing && <li>Signing in to the servers…</li>}
                {check && <OutcomeLine label="Sending (SMTP)" outcome={check.smtp} />}
                {check && (check.imap ? <OutcomeLine label="Reading replies (IMAP)" outcome={check.imap} /> : <li className="muted">Reading replies (IMAP): no IMAP server set, replies are not read.</li>)}
                {reading && <li className={reading.done ? (reading.ok ? 'outcome-ok' : 'outcome-bad') : undefined}>{reading.text}</li>}
              </ul>
            </div>
          </td>
        </tr>
      )}
    </>
  );
}
