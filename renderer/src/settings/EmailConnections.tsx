import { useState } from 'react';
import type { Schemas } from '../api/client';
import { ErrorBox } from '../components/ErrorBox';
import { useLoad } from '../components/useLoad';
import { api, useSession } from '../state/session';
import { FormError, useSave } from '../components/useSave';
import { ConnectionRow } from './ConnectionRow';

type Connection = Schemas['EmailConnection'];
type ConnectionInput = Schemas['NewEmailConnection'];

/**
 * The IMAP part of a request: only what was filled in (the server defaults the port, user name and
 * mailbox); an emptied server on a connection that had one stops the reading of replies.
 */
function imapFields(
  v: { imap_port: string; imap_secure: boolean; imap_username: string; imap_password: string; imap_mailbox: string },
  host: string,
  hadImap: boolean,
): Partial<ConnectionInput> {
  if (!host) return hadImap ? { imap_host: null } : {};
  return {
    imap_host: host,
    imap_secure: v.imap_secure,
    imap_mailbox: v.imap_mailbox.trim() || 'INBOX',
    ...(v.imap_port ? { imap_port: Number(v.imap_port) } : {}),
    ...(v.imap_username.trim() ? { imap_username: v.imap_username.trim() } : {}),
    ...(v.imap_password ? { imap_password: v.imap_password } : {}),
  };
}

/** A server on this machine (a local relay), which may be used without TLS. */
function isLoopback(host: string): boolean {
  const h = host.trim().toLowerCase().replace(/^\[(.*)\]$/, '$1');
  return h === 'localhost' || h === '::1' || /^127\./.test(h);
}

/** The SMTP and IMAP settings of a connection; the password fields are empty and only sent when typed (it is never returned). */
function ConnectionForm({
  initial,
  submitLabel,
  onSubmit,
  onCancel,
  error = null,
  errors = {},
}: {
  initial?: Connection;
  submitLabel: string;
  onSubmit: (body: ConnectionInput) => Promise<boolean>;
  onCancel?: () => void;
  /** The server's refusal of this form's last save, and its words per field (shown beside each field). */
  error?: string | null;
  errors?: Record<string, string[]>;
}) {
  const [v, setV] = useState({
    name: initial?.name ?? '',
    from_email: initial?.from_email ?? '',
    from_name: initial?.from_name ?? '',
    smtp_host: initial?.smtp_host ?? '',
    smtp_port: String(initial?.smtp_port ?? 587),
    smtp_secure: initial?.smtp_secure ?? false,
    smtp_username: initial?.smtp_username ?? '',
    smtp_password: '',
    // A new connection to a server on this machine need not use TLS; any other requires it.
    require_tls: initial?.require_tls ?? null,
    allow_shared_sending: initial?.allow_shared_sending ?? true,
    is_default: initial?.is_default ?? false,
    imap_host: initial?.imap_host ?? '',
    imap_port: initial?.imap_port ? String(initial.imap_port) : '',
    imap_secure: initial?.imap_secure ?? true,
    imap_username: initial?.imap_username ?? '',
    imap_password: '',
    imap_mailbox: initial?.imap_mailbox ?? 'INBOX',
  });
  const set = <K extends keyof typeof v>(key: K, value: (typeof v)[K]) => setV((old) => ({ ...old, [key]: value }));
  const formId = initial?.id ?? 'new';
  /** The field's own error, under it, and the attributes that tie it to the input. */
  const invalid = (key: string) => (errors[key] ? { 'aria-invalid': true, 'aria-describedby': `${formId}-${key}-error` } : {});
  const fieldError = (key: string) =>
    errors[key] ? (
      <span className="field-error" id={`${formId}-${key}-error`} data-testid={`field-error-${key}`}>
        {errors[key].join(' ')}
      </span>
    ) : null;
  const text = (key: 'name' | 'from_email' | 'from_name' | 'smtp_host' | 'smtp_username' | 'imap_host' | 'imap_username' | 'imap_mailbox', label: string, type = 'text', required = false) => (
    <label className="form-row">
      {label}
      <input type={type} value={v[key]} required={required} onChange={(e) => set(key, e.target.value)} {...invalid(key)} />
      {fieldError(key)}
    </label>
  );
  const imapHost = v.imap_host.trim();
  return (
    <form
      className="form-cols"
      data-testid="email-connection-form"
      onSubmit={async (e) => {
        e.preventDefault();
        const body: ConnectionInput = {
          name: v.name.trim(),
          from_email: v.from_email.trim(),
          from_name: v.from_name.trim() || null,
          smtp_host: v.smtp_host.trim(),
          smtp_port: Number(v.smtp_port),
          smtp_secure: v.smtp_secure,
          smtp_username: v.smtp_username.trim() || null,
          ...(v.require_tls === null ? {} : { require_tls: v.require_tls }),
          allow_shared_sending: v.allow_shared_sending,
          is_default: v.is_default,
          ...(v.smtp_password ? { smtp_password: v.smtp_password } : {}),
          ...imapFields(v, imapHost, Boolean(initial?.imap_host)),
        };
        if ((await onSubmit(body)) && !initial) setV((old) => ({ ...old, name: '', from_email: '', smtp_password: '', imap_password: '' }));
      }}
    >
      {text('name', 'Name', 'text', true)}
      {text('from_email', 'From address', 'email', true)}
      {text('from_name', 'From name')}
      {text('smtp_host', 'SMTP server', 'text', true)}
      <label className="form-row">
        Port
        <input type="number" min={1} max={65535} value={v.smtp_port} required onChange={(e) => set('smtp_port', e.target.value)} {...invalid('smtp_port')} />
        {fieldError('smtp_port')}
      </label>
      {text('smtp_username', 'SMTP user name')}
      <label className="form-row">
        SMTP password
        <input
          type="password"
          autoComplete="new-password"
          value={v.smtp_password}
          placeholder={initial?.has_password ? 'Stored; type to replace' : ''}
          onChange={(e) => set('smtp_password', e.target.value)}
          {...invalid('smtp_password')}
        />
        {fieldError('smtp_password')}
      </label>
      <label className="check">
        <input type="checkbox" checked={v.smtp_secure} onChange={(e) => set('smtp_secure', e.target.checked)} /> SMTP: TLS from the start (port 465)
      </label>
      <label className="check">
        <input type="checkbox" checked={v.require_tls ?? !isLoopback(v.smtp_host)} onChange={(e) => set('require_tls', e.target.checked)} /> Require a secure (TLS) connection: refuse a server that
        stops offering it
      </label>
      <fieldset className="form-fieldset">
        <legend>Reading replies (IMAP)</legend>
        <p className="muted small">Leave the IMAP server empty and customers' replies are not read from this mailbox.</p>
        {text('imap_host', 'IMAP server')}
        <label className="form-row">
          IMAP port
          <input type="number" min={1} max={65535} value={v.imap_port} placeholder={v.imap_secure ? '993' : '143'} onChange={(e) => set('imap_port', e.target.value)} {...invalid('imap_port')} />
          {fieldError('imap_port')}
        </label>
        {text('imap_username', 'IMAP user name')}
        <label className="form-row">
          IMAP password
          <input
            type="password"
            autoComplete="new-password"
            value={v.imap_password}
            placeholder={initial?.has_imap_password ? 'Stored; type to replace' : ''}
            onChange={(e) => set('imap_password', e.target.value)}
            {...invalid('imap_password')}
          />
          {fieldError('imap_password')}
        </label>
        {text('imap_mailbox', 'Mailbox')}
        <label className="check">
          <input type="checkbox" checked={v.imap_secure} onChange={(e) => set('imap_secure', e.target.checked)} /> IMAP: TLS from the start (port 993)
        </label>
      </fieldset>
      <label className="check">
        <input type="checkbox" checked={v.allow_shared_sending} onChange={(e) => set('allow_shared_sending', e.target.checked)} /> Everyone in the company may send with it
      </label>
      <label className="check">
        <input type="checkbox" checked={v.is_default} onChange={(e) => set('is_default', e.target.checked)} /> Default connection
      </label>
      <FormError error={error} />
      <div className="form-actions">
        {onCancel && (
          <button type="button" className="btn" onClick={onCancel}>
            Cancel
          </button>
        )}
        <button type="submit" className="btn btn-primary">
          {submitLabel}
        </button>
      </div>
    </form>
  );
}

/** The mailboxes reminders and sequences send from and replies are read from: created, edited, made the default, tested, read now. */
export function EmailConnections({ companyId, canWrite }: { companyId: string; canWrite: boolean }) {
  // Trusting a mail server's certificate is a company owner's decision.
  const isOwner = useSession((s) => s.companies.find((c) => c.id === companyId)?.role) === 'owner';
  const [version, setVersion] = useState(0);
  const [editing, setEditing] = useState<string | null>(null);
  // Which form (a connection's id, 'new') or the table ('rows') made the last save: its refusal shows there.
  const [savedFrom, setSavedFrom] = useState<string>('rows');
  const connections = useLoad((signal) => api.get('/api/companies/{company_id}/email-connections', { path: { company_id: companyId }, signal }), [companyId, version]);
  const save = useSave();
  const reload = () => setVersion((n) => n + 1);
  const patch = (c: Connection, body: Schemas['EmailConnectionPatch'], done: string) =>
    save.run(() => api.patch('/api/companies/{company_id}/email-connections/{connection_id}', { path: { company_id: companyId, connection_id: c.id }, body }), done);
  return (
    <section className="card" aria-labelledby="email-title">
      <h2 id="email-title">Email connections</h2>
      {!canWrite && (
        <p className="muted small" data-testid="email-owner-only">
          Only an owner of this company can add or change email connections.
        </p>
      )}
      {connections.error !== null && <ErrorBox what="the email connections" error={connections.error} onRetry={connections.reload} />}
      {connections.data && connections.data.data.length === 0 && <p className="muted">No email connection yet: reminders cannot be sent until one exists.</p>}
      {connections.data && connections.data.data.length > 0 && (
        <table className="data-table" data-testid="email-connections">
          <thead>
            <tr>
              <th scope="col">Name and status</th>
              <th scope="col">Sends as</th>
              <th scope="col">Sending server</th>
              <th scope="col">Replies</th>
              <th scope="col">
                <span className="sr-only">Changes</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {connections.data.data.map((c) =>
              editing === c.id ? (
                <tr key={c.id}>
                  <td colSpan={5}>
                    <ConnectionForm
                      initial={c}
                      submitLabel="Save connection"
                      onCancel={() => setEditing(null)}
                      error={savedFrom === c.id ? save.error : null}
                      errors={savedFrom === c.id ? save.fields : {}}
                      onSubmit={async (body) => {
                        setSavedFrom(c.id);
                        const ok = await patch(c, body, `${body.name} saved.`);
                        if (ok) {
                          setEditing(null);
                          reload();
                        }
                        return ok;
                      }}
                    />
                  </td>
                </tr>
              ) : (
                <ConnectionRow
                  key={c.id}
                  companyId={companyId}
                  c={c}
                  canWrite={canWrite}
                  isOwner={isOwner}
                  busy={save.busy}
                  onEdit={() => setEditing(c.id)}
                  onMakeDefault={async () => {
                    setSavedFrom('rows');
                    if (await patch(c, { is_default: true }, `${c.name} is now the default.`)) reload();
                  }}
                  onChanged={reload}
                />
              ),
            )}
          </tbody>
        </table>
      )}
      <FormError error={savedFrom === 'rows' ? save.error : null} />
      {canWrite && (
        <>
          <h3>Add a connection</h3>
          <ConnectionForm
            submitLabel="Add connection"
            error={savedFrom === 'new' ? save.error : null}
            errors={savedFrom === 'new' ? save.fields : {}}
            onSubmit={async (body) => {
              setSavedFrom('new');
              const ok = await save.run(() => api.post('/api/companies/{company_id}/email-connections', { path: { company_id: companyId }, body }), `${body.name} added.`);
              if (ok) reload();
              return ok;
            }}
          />
        </>
      )}
    </section>
  );
}
