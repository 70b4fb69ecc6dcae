import { ArOwnerFilter } from '../components/ArOwnerFilter';
import { useCallback, useEffect, useState } from 'react';
import { AppLink } from '../components/AppLink';
import { describeError, ErrorBox } from '../components/ErrorBox';
import { PageFooter, Tabs } from '../components/Tabs';
import { useLoad } from '../components/useLoad';
import { formatTimestamp } from '../desk/format';
import { companyPath, useRoute } from '../state/route';
import { api } from '../state/session';
import { toast } from '../state/toasts';
import { CompleteStepForm, EmailPreview } from './StepWork';
import type { AttachmentKind } from '../documents/AttachOptions';
import { ActionTasks } from '../actions/ActionTasks';
import { STEP_TYPE_WORDS } from '../sequences/words';
import { StepControls } from './StepControls';
import { StepDetail } from './StepDetail';
import { CHANNEL_TITLES, CHANNELS, daysWords, groupByChannel, holdWords, QUEUE_CATEGORIES, QUEUE_TABS, type QueueCategory, type QueueRow, STEP_STATUS_WORDS } from './words';

type Tab = QueueCategory;
const PAGE_SIZE = 100;

interface Filters {
  search: string;
  channel: string;
  arOwner: string;
}

function query(category: Tab, f: Filters, page: number, pageSize: number) {
  return { category, search: f.search.trim() || undefined, step_type: f.channel || undefined, ar_owner: f.arOwner || undefined, page, page_size: pageSize };
}

/** Today's outreach: ready steps by channel (send emails, log calls, complete tasks), held and upcoming steps, and history. */
export default function QueuePage({ companyId, tab: linked = null }: { companyId: string; tab?: string | null }) {
  // The tab is in the address (/queue/upcoming), so a link or a reload opens it.
  const navigate = useRoute((s) => s.navigate);
  const tab: Tab = QUEUE_CATEGORIES.find((c) => c === linked) ?? 'ready';
  const setTab = (next: Tab) => navigate(companyPath(companyId, 'queue', next === 'ready' ? null : next), { replace: true });
  const [filters, setFilters] = useState<Filters>({ search: '', channel: '', arOwner: '' });
  const [typed, setTyped] = useState('');
  const [page, setPage] = useState(1);
  const [version, setVersion] = useState(0);
  const [open, setOpen] = useState<string | null>(null);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [sending, setSending] = useState(false);
  const changed = useCallback(() => setVersion((v) => v + 1), []);
  const path = { company_id: companyId };

  useEffect(() => {
    const t = setTimeout(() => setFilters((f) => (f.search === typed ? f : { ...f, search: typed })), 250);
    return () => clearTimeout(t);
  }, [typed]);
  useEffect(() => {
    setPage(1);
    setSelected(new Set());
  }, [tab, filters]);

  const list = useLoad((signal) => api.get('/api/companies/{company_id}/sequences/queue', { path, query: query(tab, filters, page, PAGE_SIZE), signal }), [companyId, tab, filters, page, version]);
  // Held steps are due ones kept scheduled; upcoming runs soonest first, so they lead its first page.
  const held = useLoad(
    async (signal) => {
      const upcoming = await api.get('/api/companies/{company_id}/sequences/queue', { path, query: query('upcoming', filters, 1, PAGE_SIZE), signal });
      return { rows: upcoming.data.filter((r) => r.hold_reason === 'recent_contact' || r.hold_reason === 'emailed_today'), quietDays: upcoming.quiet_days };
    },
    [companyId, filters, version],
  );
  const counts = useLoad(
    async (signal) => {
      const lists = await Promise.all(QUEUE_CATEGORIES.map((c) => api.get('/api/companies/{company_id}/sequences/queue', { path, query: query(c, filters, 1, 1), signal })));
      return Object.fromEntries(QUEUE_CATEGORIES.map((c, i) => [c, lists[i].count])) as Record<Tab, number>;
    },
    [companyId, filters, version],
  );
  // Today lists the approved calls and tasks and the held emails too: its count includes them.
  const tasks = useLoad((signal) => api.get('/api/companies/{company_id}/action-tasks', { path, signal }), [companyId, version]);
  const taskCount = tasks.data?.data.length ?? 0;
  const heldCount = held.data?.rows.length ?? 0;
  const tabCount = (key: Tab) => (counts.data ? counts.data[key] + (key === 'ready' ? taskCount + heldCount : 0) : null);

  const rows = list.data?.data ?? [];
  const emails = rows.filter((r) => r.step_type === 'reminder' && r.status === 'ready');

  /** `attach`: one email's own choice of documents (the step's when absent); `overrideReason`: send through its holds, for this reason. */
  async function send(ids: string[], attach?: AttachmentKind[], overrideReason?: string) {
    setSending(true);
    let sent = 0;
    const failures: string[] = [];
    for (const id of ids) {
      const row = rows.find((r) => r.id === id);
      try {
        const result = await api.post('/api/companies/{company_id}/sequences/queue/{scheduled_step_id}/send', { path: { company_id: companyId, scheduled_step_id: id }, body: { ...(attach ? { attach } : {}), ...(overrideReason ? { override_reason: overrideReason } : {}) } });
        if (result.status === 'failed') failures.push(`${row?.customer_name ?? id}: ${result.error ?? 'the mail server refused it'}`);
        else sent++;
      } catch (err) {
        failures.push(`${row?.customer_name ?? id}: ${describeError(err)}`);
      }
    }
    if (sent) toast.success(`Sent ${sent} email${sent === 1 ? '' : 's'}`);
    if (failures.length) toast.error(`${failures.length} not sent: ${failures.join('; ')}`);
    setSending(false);
    setSelected(new Set());
    changed();
  }

  async function resume(row: QueueRow) {
    try {
      const e = await api.post('/api/companies/{company_id}/sequence-enrollments/{enrollment_id}/resume', { path: { company_id: companyId, enrollment_id: row.enrollment } });
      if (e.pause_reason) toast.error(`${row.customer_name} is still paused. ${e.pause_reason}`);
      else toast.success(`Resumed the sequence for ${row.customer_name}`);
    } catch (err) {
      toast.error(`${row.customer_name}: ${describeError(err)}`);
    }
    changed();
  }

  const toggle = (id: string) =>
    setSelected((s) => {
      const next = new Set(s);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });

  return (
    <div className="outreach">
      <div className="outreach-main">
        <header className="outreach-head">
          <h1>Queue</h1>
          <span className="muted">The sequence steps due today: send the emails, make the calls, do the tasks.</span>
        </header>
        <Tabs
          label="Queue"
          tabs={QUEUE_CATEGORIES.map((key) => ({ key, label: QUEUE_TABS[key].label, count: tabCount(key) }))}
          active={tab}
          onChange={setTab}
        />
        <div className="toolbar-row" role="search">
          <label>
            <span className="sr-only">Search the queue</span>
            <input type="search" placeholder="Search customer, sequence, step, subject…" value={typed} onChange={(e) => setTyped(e.target.value)} />
          </label>
          <label>
            Channel
            <select value={filters.channel} onChange={(e) => setFilters({ ...filters, channel: e.target.value })}>
              <option value="">All</option>
              {CHANNELS.map((c) => (
                <option key={c} value={c}>
                  {STEP_TYPE_WORDS[c]}
                </option>
              ))}
            </select>
          </label>
          <ArOwnerFilter companyId={companyId} value={filters.arOwner} onChange={(arOwner) => setFilters({ ...filters, arOwner })} />
          {tab === 'ready' && emails.length > 0 && (
            <>
              <span className="spacer" />
              <span className="muted">{selected.size} emails selected</span>
              <button type="button" className="btn btn-primary" disabled={selected.size === 0 || sending} onClick={() => void send([...selected])}>
                Send selected
              </button>
            </>
          )}
        </div>
        {list.error !== null && <ErrorBox what="the queue" error={list.error} onRetry={list.reload} />}
        {tab === 'ready' && <ActionTasks companyId={companyId} version={version} onChanged={changed} />}
        {list.data && rows.length === 0 && (tab !== 'ready' || (tasks.data && held.data && taskCount + heldCount === 0)) && <p className="muted">{QUEUE_TABS[tab].empty}</p>}
        {tab === 'ready' &&
          groupByChannel(rows).map(([channel, group]) => (
            <section key={channel} aria-labelledby={`group-${channel}`} data-testid={`queue-group-${channel}`}>
              <h2 className="group-title" id={`group-${channel}`}>
                {CHANNEL_TITLES[channel]} ({group.length})
              </h2>
              <table className="item-list">
                <thead>
                  <tr>
                    {channel === 'reminder' && (
                      <th className="check-cell">
                        <span className="sr-only">Select</span>
                      </th>
                    )}
                    <th>Customer</th>
                    <th>Invoice</th>
                    <th>Step</th>
                    <th>Sequence</th>
                    <th>Due</th>
                    <th>{channel === 'reminder' ? 'Subject' : 'AR owner'}</th>
                  </tr>
                </thead>
                <tbody>
                  {group.map((row) => (
                    <QueueItem
                      key={row.id}
                      companyId={companyId}
                      row={row}
                      open={open === row.id}
                      selected={selected.has(row.id)}
                      sending={sending}
                      onToggle={() => toggle(row.id)}
                      onOpen={() => setOpen(open === row.id ? null : row.id)}
                      onSend={(attach, overrideReason) => void send([row.id], attach, overrideReason)}
                      onDone={changed}
                    />
                  ))}
                </tbody>
              </table>
            </section>
          ))}
        {tab === 'ready' && held.data && held.data.rows.length > 0 && (
          <section aria-labelledby="group-held" data-testid="queue-held">
            <h2 className="group-title" id="group-held">
              Held ({held.data.rows.length})
            </h2>
            <p className="muted">
              These emails are due but held. A customer contacted by hand in the last {daysWords(held.data.quietDays)} hears from a sequence again once {daysWords(held.data.quietDays)} have passed; a customer who
              already got an email today gets the next one tomorrow. Each row says which.
            </p>
            <SimpleRows companyId={companyId} rows={held.data.rows} quietDays={held.data.quietDays} open={open} onOpen={setOpen} onDone={changed} />
          </section>
        )}
        {tab === 'paused' && rows.length > 0 && (
          <p className="muted">These customers' sequences wait: a reply nobody has answered, a promise to pay that stands, a dispute, a pause by a collector, or a stop on the customer. Each goes on by itself once its reason ends.</p>
        )}
        {tab !== 'ready' && rows.length > 0 && (
          <SimpleRows companyId={companyId} rows={rows} quietDays={list.data?.quiet_days} history={tab === 'history'} onResume={tab === 'paused' ? resume : undefined} open={open} onOpen={setOpen} onDone={changed} />
        )}
        {list.data && list.data.count > PAGE_SIZE && <PageFooter page={page} pageSize={PAGE_SIZE} count={list.data.count} onPage={setPage} />}
      </div>
    </div>
  );
}

function QueueItem({
  companyId,
  row,
  open,
  selected,
  sending,
  onToggle,
  onOpen,
  onSend,
  onDone,
}: {
  companyId: string;
  row: QueueRow;
  open: boolean;
  selected: boolean;
  sending: boolean;
  onToggle: () => void;
  onOpen: () => void;
  onSend: (attach?: AttachmentKind[], overrideReason?: string) => void;
  onDone: () => void;
}) {
  const email = row.step_type === 'reminder';
  const columns = email ? 7 : 6;
  return (
    <>
      <tr className={open ? 'current' : undefined} onClick={onOpen} data-queue-row={row.id}>
        {email && (
          <td className="check-cell" onClick={(e) => e.stopPropagation()}>
            <input type="checkbox" aria-label={`Select the email to ${row.customer_name}`} checked={selected} onChange={onToggle} />
          </td>
        )}
        <td>
          <button
            type="button"
            className="linkish"
            aria-expanded={open}
            onClick={(e) => {
              e.stopPropagation();
              onOpen();
            }}
          >
            {row.customer_name}
          </button>
        </td>
        <td className="mono" data-testid="queue-invoices">
          {row.covered_invoices.length > 1 ? (
            // One email for the customer's invoices of the day (a due-date sequence merges them).
            row.covered_invoices.map((i, n) => (
              <span key={i.id}>
                {n > 0 && ', '}
                <AppLink to={companyPath(companyId, 'invoices', i.id)}>{i.invoice_number}</AppLink>
              </span>
            ))
          ) : row.invoice_number ? (
            <AppLink to={companyPath(companyId, 'invoices', row.invoice)}>{row.invoice_number}</AppLink>
          ) : (
            <span className="muted">All open</span>
          )}
        </td>
        <td>
          {row.step_label}
          {row.edited_at && <div className="small muted">Edited</div>}
        </td>
        <td>{row.sequence_name}</td>
        <td className="small">{formatTimestamp(row.scheduled_at)}</td>
        <td>{email ? row.email_subject : (row.ar_owner_name ?? <span className="muted">Unassigned</span>)}</td>
      </tr>
      {open && (
        <tr>
          <td colSpan={columns}>
            <StepControls companyId={companyId} row={row} onDone={onDone} />
            {email ? (
              <EmailPreview companyId={companyId} row={row} sending={sending} onSend={onSend} onChanged={onDone} />
            ) : (
              <CompleteStepForm companyId={companyId} row={row} onDone={onDone} />
            )}
          </td>
        </tr>
      )}
    </>
  );
}

/** Rows of the Upcoming, Paused and History tabs (and Today's held emails); each opens to its controls or to what went out. */
function SimpleRows({
  companyId,
  rows,
  quietDays,
  history,
  onResume,
  open,
  onOpen,
  onDone,
}: {
  companyId: string;
  rows: QueueRow[];
  quietDays?: number;
  history?: boolean;
  onResume?: (row: QueueRow) => void;
  open: string | null;
  onOpen: (id: string | null) => void;
  onDone: () => void;
}) {
  const columns = onResume ? 7 : 6;
  return (
    <table className="item-list" data-testid="queue-rows">
      <thead>
        <tr>
          <th>Customer</th>
          <th>Channel</th>
          <th>Step</th>
          <th>Sequence</th>
          <th>{history ? 'When' : 'Due'}</th>
          <th>Status</th>
          {onResume && (
            <th>
              <span className="sr-only">Operations</span>
            </th>
          )}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <SimpleRow key={row.id} companyId={companyId} row={row} quietDays={quietDays} history={history} onResume={onResume} columns={columns} open={open === row.id} onOpen={() => onOpen(open === row.id ? null : row.id)} onDone={onDone} />
        ))}
      </tbody>
    </table>
  );
}

function SimpleRow({
  companyId,
  row,
  quietDays,
  history,
  onResume,
  columns,
  open,
  onOpen,
  onDone,
}: {
  companyId: string;
  row: QueueRow;
  quietDays?: number;
  history?: boolean;
  onResume?: (row: QueueRow) => void;
  columns: number;
  open: boolean;
  onOpen: () => void;
  onDone: () => void;
}) {
  const pending = row.status === 'scheduled' || row.status === 'ready';
  const ran = row.status === 'sent' || row.status === 'completed' || row.status === 'failed';
  return (
    <>
      <tr className={open ? 'current' : undefined} data-queue-row={row.id}>
        <td>
          <AppLink to={companyPath(companyId, 'customers', row.customer)}>{row.customer_name}</AppLink>
        </td>
        <td>{CHANNEL_TITLES[row.step_type].replace(/s$/, '')}</td>
        <td>
          {pending || ran ? (
            <button
              type="button"
              className="linkish"
              aria-expanded={open}
              aria-label={`${row.step_label}: ${pending ? `change or send the step for ${row.customer_name}` : `what went out to ${row.customer_name}`}`}
              onClick={onOpen}
            >
              {row.step_label}
            </button>
          ) : (
            row.step_label
          )}
          {row.email_subject && <div className="muted small">{row.email_subject}</div>}
        </td>
        <td>{row.sequence_name}</td>
        <td className="small">{formatTimestamp(history ? (row.sent_at ?? row.updated_at) : row.scheduled_at)}</td>
        <td data-testid="queue-row-status">
          {holdWords(row, quietDays) ?? STEP_STATUS_WORDS[row.status]}
          {history && row.edited_at && <div className="small muted">Edited before sending</div>}
          {row.error && <div className="small bad">{row.error}</div>}
        </td>
        {onResume && (
          <td>
            {row.hold_reason === 'stopped' ? (
              // A person's stop is on the customer: lifted there, where it was set, not by resuming the sequence.
              <AppLink to={companyPath(companyId, 'customers', row.customer)}>
                Lift the stop<span className="sr-only"> on {row.customer_name}'s page</span>
              </AppLink>
            ) : (
              <button type="button" className="btn btn-small" onClick={() => onResume(row)}>
                Resume<span className="sr-only"> the sequence for {row.customer_name}</span>
              </button>
            )}
          </td>
        )}
      </tr>
      {open && (
        <tr>
          <td colSpan={columns}>
            <StepDetail companyId={companyId} row={row} onDone={onDone} />
          </td>
        </tr>
      )}
    </>
  );
}
