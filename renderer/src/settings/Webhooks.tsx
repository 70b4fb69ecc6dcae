import { useState } from 'react';
import type { Schemas } from '../api/client';
import { ConfirmDialog } from '../components/Dialog';
import { ErrorBox } from '../components/ErrorBox';
import { SecretOnce } from '../components/SecretOnce';
import { useLoad } from '../components/useLoad';
import { FormError, useSave } from '../components/useSave';
import { formatTimestamp } from '../desk/format';
import { api } from '../state/session';

type EventType = Exclude<Schemas['NewWebhook']['events'][number], '*'>;
type Webhook = Schemas['Webhook'];
type Delivery = Schemas['WebhookDelivery'];

/** Every event a script can receive, in words; keyed by the API's own list so none is missed. */
const EVENT_WORDS: Record<EventType, string> = {
  'invoice.created': 'An invoice is created',
  'invoice.updated': 'An invoice changes',
  'invoice.closed': 'An invoice is closed',
  'payment.created': 'A payment is recorded',
  'action.proposed': 'An action is proposed',
  'action.approved': 'An action is approved',
  'action.completed': 'An action is done',
  'action.failed': "An approved email could not be sent",
  'promise.created': 'A customer promises to pay',
  'promise.kept': 'A promise is kept',
  'promise.broken': 'A promise is broken',
  'dispute.opened': 'A dispute is opened',
  'dispute.resolved': 'A dispute is resolved',
  'reply.received': 'A customer replies by email',
  'portal.submission': 'A customer writes via the portal',
  'bank_statement.imported': 'A bank statement is imported',
  'sync.rejected': "The team server refuses a desktop's change",
};
const EVENTS = Object.keys(EVENT_WORDS) as EventType[];

function eventsInWords(events: string[]): string {
  if (events.includes('*')) return 'All events';
  return events.map((e) => EVENT_WORDS[e as EventType] ?? e).join('; ');
}

function stateInWords(w: Webhook): { text: string; tone: 'ok' | 'warn' | 'bad' } {
  if (w.disabled_at) return { text: `Turned off ${formatTimestamp(w.disabled_at)}: ${w.disabled_reason ?? ''}`, tone: 'bad' };
  if (w.failing_since) return { text: `Failing since ${formatTimestamp(w.failing_since)}; retried with backoff`, tone: 'warn' };
  return { text: 'Delivering', tone: 'ok' };
}

function deliveryInWords(d: Delivery): string {
  if (d.status === 'delivered') return `Delivered${d.response_ms !== null ? ` in ${d.response_ms} ms` : ''}`;
  if (d.status === 'failed') return `Gave up: ${d.error ?? 'no answer'}`;
  return d.attempts === 0 ? 'Waiting to be sent' : `Failed ${d.attempts} time${d.attempts === 1 ? '' : 's'} (${d.error ?? 'no answer'}); next try ${d.next_attempt_at ? formatTimestamp(d.next_attempt_at) : 'soon'}`;
}

/** The delivery log of one webhook, newest first, with a replay per delivery. */
function Deliveries({ companyId, webhook }: { companyId: string; webhook: Webhook }) {
  const [version, setVersion] = useState(0);
  const log = useLoad((signal) => api.get('/api/companies/{company_id}/webhooks/{webhook_id}/deliveries', { path: { company_id: companyId, webhook_id: webhook.id }, query: { limit: 20 }, signal }), [companyId, webhook.id, version]);
  const save = useSave();
  if (log.error !== null) return <ErrorBox what="the delivery log" error={log.error} onRetry={log.reload} />;
  if (!log.data) return <p className="muted">Loading the delivery log…</p>;
  if (log.data.data.length === 0) return <p className="muted">Nothing sent yet: deliveries appear here as events happen.</p>;
  return (
    <>
      <table className="data-table" data-testid="webhook-deliveries">
        <caption className="sr-only">Last deliveries to {webhook.url}</caption>
        <thead>
          <tr>
            <th scope="col">Event</th>
            <th scope="col">When</th>
            <th scope="col">Outcome</th>
            <th scope="col">Answer</th>
            <th scope="col">
              <span className="sr-only">Send again</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {log.data.data.map((d) => (
            <tr key={d.id}>
              <td>{EVENT_WORDS[d.event_type as EventType] ?? d.event_type}</td>
              <td>{formatTimestamp(d.last_attempt_at ?? d.created_at)}</td>
              <td>{deliveryInWords(d)}</td>
              <td>{d.response_status !== null ? `HTTP ${d.response_status}` : '—'}</td>
              <td className="num">
                {d.status !== 'pending' && (
                  <button
                    type="button"
                    className="btn btn-small"
                    disabled={save.busy}
                    aria-label={`Send again: ${EVENT_WORDS[d.event_type as EventType] ?? d.event_type}`}
                    onClick={async () => {
                      if (await save.run(() => api.post('/api/companies/{company_id}/webhooks/{webhook_id}/deliveries/{delivery_id}/replay', { path: { company_id: companyId, webhook_id: webhook.id, delivery_id: d.id } }), 'Queued to be sent again.')) setVersion((v) => v + 1);
                    }}
                  >
                    Send again
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <FormError error={save.error} />
    </>
  );
}

/** Webhooks: an owner sends the company's events to a script's address, sees each delivery, and fixes what fails. */
export function Webhooks({ companyId, isOwner }: { companyId: string; isOwner: boolean }) {
  const [version, setVersion] = useState(0);
  const hooks = useLoad((signal) => (isOwner ? api.get('/api/companies/{company_id}/webhooks', { path: { company_id: companyId }, signal }) : Promise.resolve(null)), [companyId, isOwner, version]);
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [all, setAll] = useState(true);
  const [chosen, setChosen] = useState<EventType[]>([]);
  const [secret, setSecret] = useState<{ url: string; secret: string } | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<Webhook | null>(null);
  const save = useSave();
  const reload = () => setVersion((v) => v + 1);
  const path = (id: string) => ({ company_id: companyId, webhook_id: id });

  if (!isOwner) {
    return (
      <section className="card stack" aria-labelledby="webhooks-title">
        <h2 id="webhooks-title">Webhooks</h2>
        <p className="muted">Only an owner of this company can see and change where its events are sent.</p>
      </section>
    );
  }
  return (
    <section className="card stack" aria-labelledby="webhooks-title">
      <h2 id="webhooks-title">Webhooks</h2>
      <p className="muted">
        ardesk sends each event (a payment, a reply, a broken promise…) to your script’s address as it happens, signed with a secret so the script can check it came from here. Failed
        deliveries are retried for a day.
      </p>
      {secret && (
        <SecretOnce secret={secret.secret} testId="webhook-secret" onDone={() => setSecret(null)}>
          Signing secret for <strong>{secret.url}</strong>: copy it now; it will not be shown again.
        </SecretOnce>
      )}
      {hooks.error !== null && <ErrorBox what="the webhooks" error={hooks.error} onRetry={hooks.reload} />}
      {hooks.data && hooks.data.data.length === 0 && <p className="muted">No webhooks yet.</p>}
      {hooks.data?.data.map((w) => {
        const state = stateInWords(w);
        return (
          <article key={w.id} className="card stack" aria-label={`Webhook to ${w.url}`} data-testid="webhook">
            <div className="toolbar-row">
              <strong className="secret">{w.url}</strong>
              <span className={`badge badge-${state.tone}`}>{state.text}</span>
            </div>
            {w.description && <p>{w.description}</p>}
            <p className="muted">Sends: {eventsInWords(w.events)}</p>
            <div className="form-actions">
              <button type="button" className="btn btn-small" aria-expanded={open === w.id} onClick={() => setOpen(open === w.id ? null : w.id)}>
                {open === w.id ? 'Hide deliveries' : 'Show deliveries'}
              </button>
              {w.disabled_at && (
                <button
                  type="button"
                  className="btn btn-small"
                  disabled={save.busy}
                  onClick={async () => {
                    if (await save.run(() => api.patch('/api/companies/{company_id}/webhooks/{webhook_id}', { path: path(w.id), body: { enabled: true } }), 'Turned on again.')) reload();
                  }}
                >
                  Turn on again
                </button>
              )}
              <button
                type="button"
                className="btn btn-small"
                disabled={save.busy}
                onClick={async () => {
                  await save.run(async () => {
                    const made = await api.post('/api/companies/{company_id}/webhooks/{webhook_id}/rotate-secret', { path: path(w.id) });
                    setSecret({ url: w.url, secret: made.secret });
                  }, 'New secret made.');
                }}
              >
                New secret
              </button>
              <button type="button" className="btn btn-small btn-danger" onClick={() => setDeleting(w)}>
                Delete
              </button>
            </div>
            {open === w.id && <Deliveries companyId={companyId} webhook={w} />}
          </article>
        );
      })}
      {deleting && (
        <ConfirmDialog
          title={`Delete the webhook to ${deleting.url}?`}
          confirmLabel="Delete webhook"
          busy={save.busy}
          onCancel={() => setDeleting(null)}
          onConfirm={async () => {
            const target = deleting;
            setDeleting(null);
            if (await save.run(() => api.delete('/api/companies/{company_id}/webhooks/{webhook_id}', { path: path(target.id) }), 'Webhook deleted.')) reload();
          }}
        >
          Events stop going there at once; deliveries not yet sent are dropped.
        </ConfirmDialog>
      )}
      <form
        className="stack"
        aria-labelledby="webhook-add-title"
        onSubmit={async (e) => {
          e.preventDefault();
          await save.run(async () => {
            const made = await api.post('/api/companies/{company_id}/webhooks', { path: { company_id: companyId }, body: { url: url.trim(), events: all ? ['*'] : chosen, description: description.trim() || undefined } });
            setSecret({ url: made.url, secret: made.secret });
            setUrl('');
            setDescription('');
            reload();
          }, 'Webhook added.');
        }}
      >
        <h3 id="webhook-add-title">Add a webhook</h3>
        <div className="toolbar-row">
          <label>
            Address (https://…)
            <input type="url" value={url} required maxLength={2048} onChange={(e) => setUrl(e.target.value)} placeholder="https://hooks.example.com/ardesk" />
          </label>
          <label>
            What it is for (optional)
            <input value={description} maxLength={200} onChange={(e) => setDescription(e.target.value)} />
          </label>
        </div>
        <fieldset className="stack">
          <legend>Events to send</legend>
          <label className="check">
            <input type="checkbox" checked={all} onChange={(e) => setAll(e.target.checked)} /> All events, including ones added later
          </label>
          {!all && (
            <div className="check-grid">
              {EVENTS.map((type) => (
                <label key={type} className="check">
                  <input type="checkbox" checked={chosen.includes(type)} onChange={(e) => setChosen(e.target.checked ? [...chosen, type] : chosen.filter((t) => t !== type))} /> {EVENT_WORDS[type]}
                </label>
              ))}
            </div>
          )}
        </fieldset>
        <div className="form-actions">
          <button type="submit" className="btn btn-primary" disabled={save.busy || !url.trim() || (!all && chosen.length === 0)}>
            Add webhook
          </button>
        </div>
      </form>
      <FormError error={save.error} />
    </section>
  );
}
