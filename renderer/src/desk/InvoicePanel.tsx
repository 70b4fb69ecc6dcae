import { type FormEvent, type ReactNode, useEffect, useRef, useState } from 'react';
import { ApiError, type Schemas } from '../api/client';
import { AppLink } from '../components/AppLink';
import { describeError, ErrorBox } from '../components/ErrorBox';
import { signalLine } from '../insights/describe';
import { LogContactButton } from '../components/LogContact';
import { InvoicePdfButton } from '../documents/DocumentButtons';
import { communicationKind } from '../customers/communication-words';
import { EmailThreads } from '../customers/EmailThreads';
import { ReplyReading } from '../customers/ReplyReading';
import { InsightCard } from '../components/InsightCard';
import { type Loaded, useLoad } from '../components/useLoad';
import { useConnection } from '../state/connection';
import { companyPath } from '../state/route';
import { api, useSession } from '../state/session';
import { usePageTitle } from '../state/title';
import { toast } from '../state/toasts';
import { BucketText, CustomerLink, LabelChip, StatusBadge } from './cells';
import { billingContact, formatDate, formatMoney, formatTimestamp } from './format';
import { balanceTooltip } from './InvoiceGrid';
import { Payments, RecordPayment } from './PanelPayments';
import { ChaseStatus, Disputes } from './PanelDisputes';
import { Reminders } from './PanelReminders';
import { coveredWords, latestCustomerEvent, nextStepWords } from './glance-words';
import { useDesk } from './store';
import type { InvoiceDetail } from './types';

function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="field">
      <dt>{label}</dt>
      <dd>{children === null || children === undefined || children === '' ? <span className="muted">—</span> : children}</dd>
    </div>
  );
}

function Section({ title, children, testId }: { title: string; children: ReactNode; testId?: string }) {
  return (
    <section className="panel-section" data-testid={testId}>
      <h3>{title}</h3>
      {children}
    </section>
  );
}

/** The panel's one-key shortcuts (listed on the "?" screen), for the control marked data-shortcut. */
export const PANEL_SHORTCUTS = [
  { key: 'p', target: 'payment', what: 'Record a payment' },
  { key: 'l', target: 'label', what: 'Add a label' },
  { key: 'f', target: 'follow-up', what: 'Set the next follow-up date' },
  { key: 'r', target: 'reminder', what: 'Send a reminder' },
  { key: 'c', target: 'call', what: 'Log a call or note' },
] as const;

/** The shortcut a key press asks for: a plain letter, not typed into a field and not under a dialog. */
function panelShortcut(e: KeyboardEvent): string | null {
  if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || document.querySelector('.modal')) return null;
  const el = e.target as HTMLElement | null;
  if (el && (el.isContentEditable || ['INPUT', 'SELECT', 'TEXTAREA'].includes(el.tagName))) return null;
  return PANEL_SHORTCUTS.find((s) => s.key === e.key.toLowerCase())?.target ?? null;
}

/** The invoice detail side panel: its own URL, Esc closes it, every write refreshes the desk. */
export function InvoicePanel({ companyId, invoiceId, onClose, onCustomer }: { companyId: string; invoiceId: string; onClose: () => void; onCustomer: (id: string) => void }) {
  const version = useDesk((s) => s.version);
  const changed = useDesk((s) => s.changed);
  const panel = useRef<HTMLElement>(null);
  const path = { company_id: companyId, invoice_id: invoiceId };
  const detail = useLoad((signal) => api.get('/api/companies/{company_id}/invoices/{invoice_id}', { path, signal }), [companyId, invoiceId, version]);

  const server = useConnection((s) => s.server);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      // A popover or dialog that handled Esc closes itself, not the panel.
      if (e.key === 'Escape' && !e.defaultPrevented && !document.querySelector('.modal')) onClose();
      const target = panelShortcut(e);
      const control = target && panel.current?.querySelector<HTMLElement>(`[data-shortcut="${target}"]`);
      if (!control || (control as HTMLButtonElement).disabled) return;
      e.preventDefault();
      if (control instanceof HTMLButtonElement) control.click();
      else control.focus();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [onClose]);

  // Focus into the panel when it opens on another invoice (Enter on a row), after the grid has
  // finished handling the key that opened it.
  useEffect(() => {
    const frame = requestAnimationFrame(() => panel.current?.focus());
    return () => cancelAnimationFrame(frame);
  }, [invoiceId]);

  const activity = useLoad((signal) => api.get('/api/companies/{company_id}/invoices/{invoice_id}/activity', { path, signal }), [companyId, invoiceId, version]);
  const invoice = detail.data;
  usePageTitle(invoice?.invoice_number);
  const customerId = invoice?.customer ?? null;
  const customer = useLoad(
    (signal) => (customerId ? api.get('/api/companies/{company_id}/customers/{customer_id}', { path: { company_id: companyId, customer_id: customerId }, signal }) : Promise.resolve(null)),
    [companyId, customerId],
  );
  const location = customer.data?.locations.find((l) => l.id === invoice?.customer_location);
  const billing = customer.data ? billingContact(customer.data.contacts) : null;
  return (
    <aside ref={panel} className="side-panel" aria-label="Invoice detail" tabIndex={-1} data-testid="invoice-panel">
      <header className="panel-header">
        <div>
          <div className="muted small">Invoice</div>
          <h2 className="mono" data-testid="panel-invoice-number">
            {invoice?.invoice_number ?? '…'}
          </h2>
        </div>
        {invoice && <StatusBadge status={invoice.status} label={invoice.status_display} />}
        <span className="spacer" />
        <button type="button" className="btn btn-ghost" aria-label="Close detail" title="Close (Esc)" onClick={onClose}>
          ✕
        </button>
      </header>
      <div className="panel-body">
        {detail.error instanceof ApiError && detail.error.status === 404 ? (
          // Nothing to retry: the link names an invoice this company does not have (deleted, or another company's).
          <p className="notice" role="status" data-testid="invoice-missing">
            This invoice is not in this company: it may have been deleted, or the link belongs to another company.
          </p>
        ) : (
          detail.error !== null && <ErrorBox what="the invoice" error={detail.error} onRetry={detail.reload} />
        )}
        {!invoice && detail.error === null && <p className="muted">Loading…</p>}
        {invoice && (
          <>
            <div className="amounts">
              <div>
                <div className="muted small">Total</div>
                <div className="amount">{formatMoney(invoice.total_amount, invoice.currency)}</div>
              </div>
              <div>
                <div className="muted small">Paid</div>
                <div className="amount">{formatMoney(invoice.paid_amount, invoice.currency)}</div>
              </div>
              <div title={balanceTooltip(invoice)}>
                <div className="muted small">{invoice.status.startsWith('closed_') ? 'Owed' : 'Open balance'}</div>
                <div className="amount strong" data-testid="panel-balance">
                  {formatMoney(invoice.open_balance, invoice.currency)}
                </div>
              </div>
              {invoice.pending_amount > 0 && (
                <div>
                  <div className="muted small">Pending</div>
                  <div className="amount pending" data-testid="panel-pending">
                    {formatMoney(invoice.pending_amount, invoice.currency)}
                  </div>
                </div>
              )}
            </div>
            <Glance companyId={companyId} invoice={invoice} activity={activity.data?.data ?? null} version={version} onCustomer={onCustomer} />
            <ChaseStatus companyId={companyId} customerId={invoice.customer} version={version} />
            {!!invoice.balance_at_closing && (
              <p className="muted small" data-testid="closed-note">
                {invoice.status_display}: {formatMoney(Math.abs(invoice.balance_at_closing), invoice.currency)} {invoice.balance_at_closing > 0 ? 'was left unpaid at closing' : 'was paid beyond the total'}. A closed invoice owes
                nothing and counts in no open balance.
              </p>
            )}
            <fieldset className="writes" disabled={!server} title={server ? undefined : 'The local server is not answering: changes are paused'}>
              <legend className="sr-only">Changes to this invoice</legend>
              <div className="form-actions panel-actions">
                <RecordPayment companyId={companyId} invoice={invoice} onSaved={changed} />
                <LogContactButton companyId={companyId} customerId={invoice.customer} customerName={invoice.customer_name} invoiceId={invoice.id} invoiceNumber={invoice.invoice_number} onLogged={changed} />
                <InvoicePdfButton companyId={companyId} invoiceId={invoice.id} invoiceNumber={invoice.invoice_number} />
              </div>
              <Reminders companyId={companyId} invoice={invoice} version={version} onSaved={changed} />
              <Disputes companyId={companyId} invoiceId={invoice.id} invoiceNumber={invoice.invoice_number} closed={invoice.status.startsWith('closed_')} version={version} onSaved={changed} />
              <LabelsEditor companyId={companyId} invoice={invoice} onSaved={changed} />
              <FollowUpEditor companyId={companyId} invoice={invoice} onSaved={changed} />
              <Payments companyId={companyId} invoice={invoice} version={version} onSaved={changed} />
            </fieldset>
            <details className="panel-more" data-testid="panel-details">
              <summary>Invoice details</summary>
              <dl className="fields">
                <Field label="Customer">
                  <CustomerLink companyId={companyId} customerId={invoice.customer} name={invoice.customer_name} onOpen={onCustomer} />
                </Field>
                <Field label="Invoice date">{formatDate(invoice.invoice_date)}</Field>
                <Field label="Due date">{formatDate(invoice.due_date)}</Field>
                <Field label="Days past due">{invoice.days_past_due}</Field>
                <Field label="Days outstanding">{invoice.days_outstanding}</Field>
                <Field label="Aging">
                  <BucketText bucket={invoice.aging_bucket} />
                </Field>
                <Field label="AR owner">{invoice.ar_owner}</Field>
                <Field label="Last touch">{invoice.last_touch_date ? `${formatTimestamp(invoice.last_touch_date)}${invoice.last_touched_by ? ` by ${invoice.last_touched_by}` : ''}` : null}</Field>
                <Field label="Transaction type">{invoice.transaction_type}</Field>
                <Field label="Progress billing">
                  {invoice.is_progress_invoice ? `${invoice.progress_percentage ?? '?'}% of parent ${invoice.parent_invoice ?? ''}` : 'No'}
                </Field>
                <Field label="Location">{invoice.customer_location ? (location ? [location.name, location.city].filter(Boolean).join(', ') : '…') : null}</Field>
                <Field label="Billing contact">{billing ? `${billing.name}${billing.email ? ` <${billing.email}>` : ''}` : customer.data ? null : '…'}</Field>
                <Field label="Next follow-up">{invoice.next_follow_up_date ? formatDate(invoice.next_follow_up_date) : null}</Field>
                <Field label="Reference">{invoice.remote_id}</Field>
                <Field label="Closed">{invoice.closing_reason ? `${invoice.closing_reason.replace('_', ' ')}${invoice.closed_date ? ` on ${formatDate(invoice.closed_date)}` : ''}` : null}</Field>
                <Field label="Created">{formatTimestamp(invoice.created_at)}</Field>
                <Field label="Updated">{formatTimestamp(invoice.updated_at)}</Field>
              </dl>
            </details>
            {customer.error !== null && <ErrorBox what="the customer's location and billing contact" error={customer.error} onRetry={customer.reload} />}
            <DunningPlan invoice={invoice} />
            <Signals companyId={companyId} invoice={invoice} version={version} />
            <Section title="Email threads" testId="panel-threads">
              <EmailThreads companyId={companyId} invoiceId={invoice.id} version={version} onChanged={changed} />
            </Section>
            <Activity companyId={companyId} currency={invoice.currency} activity={activity} onChanged={changed} />
          </>
        )}
      </div>
    </aside>
  );
}

/** What happened and what happens next, before anything else: who, how late, the customer's latest word, the next step. */
function Glance({ companyId, invoice, activity, version, onCustomer }: { companyId: string; invoice: InvoiceDetail; activity: ActivityEntry[] | null; version: number; onCustomer: (id: string) => void }) {
  // A dispute opened after the last reply is the latest word, so the glance reads the disputes too.
  const disputes = useLoad(
    (signal) => api.get('/api/companies/{company_id}/disputes', { path: { company_id: companyId }, query: { invoice_id: invoice.id }, signal }),
    [companyId, invoice.id, version],
  );
  const loaded = activity !== null && (disputes.data !== null || disputes.error !== null);
  const latest = loaded ? latestCustomerEvent(activity, disputes.data?.data ?? [], invoice.currency) : null;
  const next = nextStepWords(invoice.dunning_plan ?? []);
  const closed = invoice.status.startsWith('closed_');
  return (
    <ul className="panel-glance" data-testid="panel-glance">
      <li>
        <CustomerLink companyId={companyId} customerId={invoice.customer} name={invoice.customer_name} onOpen={onCustomer} />
      </li>
      <li data-testid="glance-due">
        {closed
          ? `${invoice.status_display}${invoice.closed_date ? ` on ${formatDate(invoice.closed_date)}` : ''}`
          : invoice.days_past_due > 0
            ? `${invoice.days_past_due} ${invoice.days_past_due === 1 ? 'day' : 'days'} past due (due ${formatDate(invoice.due_date)})`
            : `Due ${formatDate(invoice.due_date)}`}
      </li>
      <li data-testid="glance-latest">
        <span className="muted">Latest from the customer: </span>
        {!loaded ? '…' : latest ? `${latest.text} · ${formatTimestamp(latest.at)}` : 'nothing yet'}
      </li>
      <li data-testid="glance-next">
        <span className="muted">Next step: </span>
        {next ?? (invoice.next_follow_up_date ? `follow up on ${formatDate(invoice.next_follow_up_date)}` : 'none planned')}
      </li>
      {invoice.covered_by && (
        <li data-testid="glance-decision">
          <span className="muted">{coveredWords(invoice.covered_by).lead}</span>
          <AppLink to={companyPath(companyId, 'actions', invoice.covered_by.action)}>{invoice.covered_by.description}</AppLink>
          <span className="muted"> · {coveredWords(invoice.covered_by).state}</span>
        </li>
      )}
    </ul>
  );
}

type Patch = { next_follow_up_date?: string | null; payment_link?: string | null; label_ids?: string[] };

async function patchInvoice(companyId: string, invoiceId: string, body: Patch): Promise<boolean> {
  try {
    await api.patch('/api/companies/{company_id}/invoices/{invoice_id}', { path: { company_id: companyId, invoice_id: invoiceId }, body });
    return true;
  } catch (err) {
    toast.error(`Not saved: ${describeError(err)}`);
    return false;
  }
}

function FollowUpEditor({ companyId, invoice, onSaved }: { companyId: string; invoice: InvoiceDetail; onSaved: () => void }) {
  const [date, setDate] = useState(invoice.next_follow_up_date ?? '');
  const [link, setLink] = useState(invoice.payment_link ?? '');
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    setDate(invoice.next_follow_up_date ?? '');
    setLink(invoice.payment_link ?? '');
  }, [invoice.next_follow_up_date, invoice.payment_link]);

  const dirty = date !== (invoice.next_follow_up_date ?? '') || link !== (invoice.payment_link ?? '');
  async function save(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    if (await patchInvoice(companyId, invoice.id, { next_follow_up_date: date || null, payment_link: link || null })) {
      toast.success('Follow-up and payment link saved');
      onSaved();
    }
    setBusy(false);
  }

  return (
    <Section title="Follow-up">
      <form className="form-grid" onSubmit={save}>
        <label>
          Next follow-up date
          <input type="date" data-shortcut="follow-up" aria-keyshortcuts="F" value={date} onChange={(e) => setDate(e.target.value)} />
        </label>
        <label>
          Payment link
          <input type="url" placeholder="https://…" value={link} onChange={(e) => setLink(e.target.value)} />
        </label>
        <div className="form-actions">
          {invoice.payment_link && (
            <a className="btn btn-ghost" href={invoice.payment_link} target="_blank" rel="noreferrer noopener">
              Open link ↗
            </a>
          )}
          <button type="submit" className="btn" disabled={busy || !dirty}>
            Save
          </button>
        </div>
      </form>
    </Section>
  );
}

function LabelsEditor({ companyId, invoice, onSaved }: { companyId: string; invoice: InvoiceDetail; onSaved: () => void }) {
  const labels = useDesk((s) => s.labels);
  const [busy, setBusy] = useState(false);
  const current = invoice.labels;
  const available = labels.filter((l) => !current.some((c) => c.id === l.id));

  async function replace(ids: string[], message: string) {
    setBusy(true);
    if (await patchInvoice(companyId, invoice.id, { label_ids: ids })) {
      toast.success(message);
      onSaved();
    }
    setBusy(false);
  }

  return (
    <Section title="Labels" testId="panel-labels">
      <div className="chips editable">
        {current.length === 0 && <span className="muted">No labels.</span>}
        {current.map((l) => (
          <LabelChip
            key={l.id}
            label={l}
            onRemove={
              busy
                ? undefined
                : () =>
                    void replace(
                      current.filter((c) => c.id !== l.id).map((c) => c.id),
                      `Removed “${l.name}”`,
                    )
            }
          />
        ))}
        {available.length > 0 && (
          <select
            data-shortcut="label"
            aria-keyshortcuts="L"
            aria-label="Add a label"
            value=""
            disabled={busy}
            onChange={(e) => {
              const label = labels.find((l) => l.id === e.target.value);
              if (label) void replace([...current.map((c) => c.id), label.id], `Added “${label.name}”`);
            }}
          >
            <option value="">+ Add label</option>
            {available.map((l) => (
              <option key={l.id} value={l.id}>
                {l.name}
              </option>
            ))}
          </select>
        )}
      </div>
    </Section>
  );
}

type PlanEntry = Record<string, unknown>;

function DunningPlan({ invoice }: { invoice: InvoiceDetail }) {
  const plan = (invoice.dunning_plan ?? []) as PlanEntry[];
  return (
    <Section title="Dunning plan" testId="panel-dunning">
      {plan.length === 0 ? (
        <p className="muted">No collection program is active on this invoice.</p>
      ) : (
        <ol className="timeline">
          {plan.map((step, i) => {
            const status = String(step.status ?? '');
            return (
              <li key={String(step.id ?? i)} className={`timeline-item t-${status}`}>
                <span className="timeline-dot" aria-hidden="true" />
                <div>
                  <strong>{`Step ${String(step.step ?? i + 1)}${step.label ? `: ${String(step.label)}` : ''}`}</strong>
                  <div className="muted small">
                    {formatDate(String(step.scheduled_date ?? ''))} · {String(step.channel ?? '')} · {status}
                  </div>
                </div>
              </li>
            );
          })}
        </ol>
      )}
    </Section>
  );
}

function Signals({ companyId, invoice, version }: { companyId: string; invoice: InvoiceDetail; version: number }) {
  const insights = useLoad(
    (signal) => api.get('/api/intelligence/insights', { query: { company_id: companyId, invoice_id: invoice.id }, signal }),
    [companyId, invoice.id, version],
  );
  const signals = invoice.signals;
  return (
    <Section title="Signals and insights" testId="panel-insights">
      {signals.length > 0 && (
        <ul className="signal-list">
          {signals.map((s) => (
            <li key={s.insight_id}>{signalLine(s)}</li>
          ))}
        </ul>
      )}
      {insights.error !== null && <ErrorBox what="insights" error={insights.error} onRetry={insights.reload} />}
      {insights.data && insights.data.results.length === 0 && signals.length === 0 && <p className="muted">No active signals or insights.</p>}
      {insights.data?.results.map((insight) => (
        <InsightCard key={insight.id} companyId={companyId} insight={insight} showTarget={false} headingLevel={4} />
      ))}
    </Section>
  );
}

type ActivityEntry = Schemas['ActivityEntry'];

/** Newest first by when it happened (the server's order follows when it was recorded). */
export function newestFirst<T extends { at: string }>(entries: readonly T[]): T[] {
  return [...entries].sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0));
}

function Activity({ companyId, currency, activity, onChanged }: { companyId: string; currency: string; activity: Loaded<Schemas['ActivityList']>; onChanged: () => void }) {
  const canWrite = useSession((s) => s.companies.find((c) => c.id === companyId)?.role) !== 'viewer';
  return (
    <Section title="Activity" testId="panel-activity">
      {activity.error !== null && <ErrorBox what="the activity history" error={activity.error} onRetry={activity.reload} />}
      {activity.data && activity.data.data.length === 0 && <p className="muted">No communications or actions yet.</p>}
      {activity.data && activity.data.data.length > 0 && (
        <ol className="timeline">
          {newestFirst(activity.data.data).map((entry) => {
            const said = entry.kind === 'communication' ? communicationKind(entry.type, entry.direction) : null;
            return (
              <li key={entry.id} className={`timeline-item k-${entry.kind}${said?.isReply ? ' is-reply' : ''}`} data-reply={said?.isReply || undefined}>
                <span className="timeline-dot" aria-hidden="true" />
                <div>
                  {said?.isReply && <span className="pill pill-reply">Reply</span>} <strong>{entry.title}</strong>
                  <div className="muted small">
                    {formatTimestamp(entry.at)} · {said ? said.kind : `${entry.type} action, ${entry.status}`}
                    {entry.by ? ` · ${entry.by}` : ''}
                  </div>
                  {entry.detail && <div className="small clamp">{entry.detail}</div>}
                  {entry.reading && <ReplyReading companyId={companyId} communicationId={entry.id} reading={entry.reading} currency={currency} canWrite={canWrite} onChanged={onChanged} />}
                </div>
              </li>
            );
          })}
        </ol>
      )}
    </Section>
  );
}
