import { useEffect, useRef, useState } from 'react';
import type { Schemas } from '../api/client';
import { describeError } from '../components/ErrorBox';
import { formatTimestamp } from '../desk/format';
import { api } from '../state/session';
import { replyReadProgress } from './reply-read';

type Connection = Schemas['EmailConnection'];
type Check = Schemas['EmailConnectionCheck']['smtp'];
type Server = 'smtp' | 'imap';
type Outcome = { ok: boolean; text: string; check?: Check };

/** How often a reading of replies is asked where it stands, and for how long at most. */
const POLL_MS = 1000;
const POLL_LIMIT = 120;

const SERVER_WORDS: Record<Server, string> = { smtp: 'sending (SMTP)', imap: 'replies (IMAP)' };

/** The full fingerprint, to compare with the server's own; it may wrap anywhere in a narrow cell. */
function Fingerprint({ sha256 }: { sha256: string }) {
  return <code className="break-anywhere">{sha256}</code>;
}

/** The certificate an owner trusted for one server, and (owners) the way to stop trusting it. */
function TrustedCertificate({ c, server, isOwner, onRevoke }: { c: Connection; server: Server; isOwner: boolean; onRevoke: (server: Server) => void }) {
  const cert = server === 'smtp' ? c.smtp_trusted_certificate : c.imap_trusted_certificate;
  if (!cert) return null;
  return (
    <div className="small" data-testid={`trusted-${server}`}>
      Trusted certificate: {cert.subject}, SHA-256 <Fingerprint sha256={cert.sha256} />
      {isOwner && (
        <div>
          <button type="button" className="btn btn-small" aria-label={`Stop trusting the ${SERVER_WORDS[server]} certificate of ${c.name}`} onClick={() => onRevoke(server)}>
            Stop trusting
          </button>
        </div>
      )}
    </div>
  );
}

/** Whether and how replies are read from the connection's mailbox: server, last reading and its error. */
function RepliesCell({ c, isOwner, onRevoke }: { c: Connection; isOwner: boolean; onRevoke: (server: Server) => void }) {
  if (!c.imap_host) return <span className="muted">Not read (no IMAP server)</span>;
  return (
    <>
      <div>
        {c.imap_host}:{c.imap_port}
        {c.imap_secure ? ' (TLS)' : ''} · {c.imap_mailbox}
      </div>
      <TrustedCertificate c={c} server="imap" isOwner={isOwner} onRevoke={onRevoke} />
      <div className="muted small">{c.replies_checked_at ? `Last read ${formatTimestamp(c.replies_checked_at)}` : 'Not read yet'}</div>
      {c.replies_error && <div className="small bad">Last reading failed: {c.replies_error}</div>}
    </>
  );
}

const TLS_WORDS: Record<NonNullable<Check['tls']>, string> = {
  none: 'No secure connection: the server offers no TLS.',
  verified: 'Secure: the certificate is signed by a known authority for this server.',
  pinned: 'Secure: the certificate is the one an owner trusted.',
  untrusted: 'The certificate is not trusted.',
};

/**
 * One server's outcome, with the certificate it showed. When it was refused only for not being
 * known, an owner can trust exactly this certificate (by its fingerprint); others are told who can.
 */
function OutcomeLine({ label, outcome, isOwner, onTrust }: { label: string; outcome: Outcome; isOwner: boolean; onTrust?: (sha256: string) => void }) {
  const check = outcome.check;
  const cert = check?.certificate;
  return (
    <li className={outcome.ok ? 'outcome-ok' : 'outcome-bad'}>
      <strong>
        {label}: {outcome.ok ? 'works' : 'failed'}.
      </strong>{' '}
      {outcome.text}
      {check?.tls && outcome.ok && <div className="small">{TLS_WORDS[check.tls]}</div>}
      {cert && (
        <div className="small">
          Certificate: {cert.subject}, issued by {cert.issuer}, valid until {formatTimestamp(cert.valid_to)}. SHA-256 <Fingerprint sha256={cert.sha256} />
        </div>
      )}
      {cert && check?.can_trust && (
        <div className="small">
          {isOwner && onTrust ? (
            <>
              If this is your own mail server and its administrator confirms this fingerprint, trust exactly this certificate:{' '}
              <button type="button" className="btn btn-small" onClick={() => onTrust(cert.sha256)}>
                Trust this certificate
              </button>
            </>
          ) : (
            'A company owner can trust this certificate here.'
          )}
        </div>
      )}
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
  isOwner,
  busy,
  onEdit,
  onMakeDefault,
  onChanged,
}: {
  companyId: string;
  c: Connection;
  canWrite: boolean;
  isOwner: boolean;
  busy: boolean;
  onEdit: () => void;
  onMakeDefault: () => void;
  onChanged: () => void;
}) {
  const [testing, setTesting] = useState(false);
  const [check, setCheck] = useState<{ smtp: Outcome; imap: Outcome | null } | null>(null);
  const [reading, setReading] = useState<{ done: boolean; ok: boolean; text: string } | null>(null);
  const [trust, setTrust] = useState<{ ok: boolean; text: string } | null>(null);
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
        smtp: { ok: result.smtp.ok, text: result.smtp.message, check: result.smtp },
        imap: result.imap ? { ok: result.imap.ok, text: result.imap.message, check: result.imap } : null,
      });
    } catch (err) {
      if (alive.current) setCheck({ smtp: { ok: false, text: describeError(err) }, imap: null });
    } finally {
      if (alive.current) setTesting(false);
    }
  }

  async function trustCertificate(server: Server, sha256: string) {
    setTrust(null);
    try {
      await api.post('/api/companies/{company_id}/email-connections/{connection_id}/trusted-certificates', { path, body: { server, sha256 } });
      if (!alive.current) return;
      setCheck(null);
      setTrust({ ok: true, text: `The certificate of the ${SERVER_WORDS[server]} server is trusted; only this certificate is accepted from now on.` });
      onChanged();
    } catch (err) {
      if (alive.current) setTrust({ ok: false, text: describeError(err) });
    }
  }

  async function revokeCertificate(server: Server) {
    setTrust(null);
    try {
      await api.delete('/api/companies/{company_id}/email-connections/{connection_id}/trusted-certificates/{server}', { path: { ...path, server } });
      if (!alive.current) return;
      setTrust({ ok: true, text: `The certificate of the ${SERVER_WORDS[server]} server is no longer trusted: only a certificate a known authority signed is accepted.` });
      onChanged();
    } catch (err) {
      if (alive.current) setTrust({ ok: false, text: describeError(err) });
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
          {c.tls_review && <div className="small bad">Mail servers' certificates are now checked: test this connection. If its server shows its own certificate, a company owner can trust it.</div>}
        </td>
        <td className="break-anywhere">{c.from_name ? `${c.from_name} <${c.from_email}>` : c.from_email}</td>
        <td className="break-anywhere">
          {c.smtp_host}:{c.smtp_port}
          {c.smtp_secure ? ' (TLS)' : ''}
          {c.require_tls && <div className="muted small">TLS required</div>}
          <TrustedCertificate c={c} server="smtp" isOwner={isOwner} onRevoke={revokeCertificate} />
        </td>
        <td className="break-anywhere">
          <RepliesCell c={c} isOwner={isOwner} onRevoke={revokeCertificate} />
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
      {(testing || check || reading || trust) && (
        <tr className="row-detail">
          <td colSpan={5}>
            <div role="status" aria-live="polite" data-testid="connection-outcomes">
              <ul className="outcomes">
                {testing && <li>Signing in to the servers…</li>}
                {check && <OutcomeLine label="Sending (SMTP)" outcome={check.smtp} isOwner={isOwner} onTrust={(sha256) => trustCertificate('smtp', sha256)} />}
                {check &&
                  (check.imap ? (
                    <OutcomeLine label="Reading replies (IMAP)" outcome={check.imap} isOwner={isOwner} onTrust={(sha256) => trustCertificate('imap', sha256)} />
                  ) : (
                    <li className="muted">Reading replies (IMAP): no IMAP server set, replies are not read.</li>
                  ))}
                {trust && <li className={trust.ok ? 'outcome-ok' : 'outcome-bad'}>{trust.text}</li>}
                {reading && <li className={reading.done ? (reading.ok ? 'outcome-ok' : 'outcome-bad') : undefined}>{reading.text}</li>}
              </ul>
            </div>
          </td>
        </tr>
      )}
    </>
  );
}
