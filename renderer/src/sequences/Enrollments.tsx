import { useCallback, useState } from 'react';
import type { Schemas } from '../api/client';
import { AppLink } from '../components/AppLink';
import { CustomerPicker } from '../components/CustomerPicker';
import { describeError, ErrorBox } from '../components/ErrorBox';
import { PageFooter } from '../components/Tabs';
import { useLoad } from '../components/useLoad';
import { type SelectedInvoice, useDesk } from '../desk/store';
import { formatDate, formatTimestamp } from '../desk/format';
import { holdWords, STEP_STATUS_WORDS } from '../queue/words';
import { companyPath } from '../state/route';
import { api } from '../state/session';
import { toast } from '../state/toasts';
import { enrolledWords, useEnrollChoice } from './AlreadyEnrolled';
import { dueOffsetWords, ENROLLMENT_FILTER_WORDS, ENROLLMENT_FILTERS, type EnrollmentFilter, type Sequence, STEP_TYPE_WORDS } from './words';

const PAGE_SIZE = 50;
/** One empty selection for every render: a new [] per call makes the store subscription loop (React error #185). */
const NO_SELECTION: SelectedInvoice[] = [];

/** A sequence's enrollments: enroll by search or from the desk's selection, stop with a reason, see each one's steps. */
export function Enrollments({ companyId, sequence, onChanged }: { companyId: string; sequence: Sequence; onChanged: () => void }) {
  const [status, setStatus] = useState<EnrollmentFilter | ''>('active');
  const [page, setPage] = useState(1);
  const [version, setVersion] = useState(0);
  const [startDate, setStartDate] = useState('');
  const [open, setOpen] = useState<string | null>(null);
  const [stopping, setStopping] = useState<string | null>(null);
  const { withChoice, dialog } = useEnrollChoice();
  const selection = useDesk((s) => (s.companyId === companyId ? s.selection : NO_SELECTION));
  const selectedCustomers = [...new Map(selection.map((r) => [r.customer, r.customer_name])).entries()];
  const changed = useCallback(() => {
    setVersion((v) => v + 1);
    onChanged();
  }, [onChanged]);

  const list = useLoad(
    (signal) =>
      api.get('/api/companies/{company_id}/sequence-enrollments', { path: { company_id: companyId }, query: { sequence_id: sequence.id, status: status || undefined, page, page_size: PAGE_SIZE }, signal }),
    [companyId, sequence.id, status, page, version],
  );

  async function enroll(customerId: string, name: string) {
    try {
      const result = await withChoice((onEnrolled) =>
        api.post('/api/companies/{company_id}/sequence-enrollments', {
          path: { company_id: companyId },
          body: { sequence_id: sequence.id, customer_id: customerId, start_date: startDate || undefined, on_enrolled: onEnrolled },
        }),
      );
      if (!result) return;
      toast.success(result.created ? `${name} enrolled, starting ${formatDate(result.enrollment.start_date)}` : `${name} stays enrolled as before (since ${formatDate(result.enrollment.start_date)})`);
      changed();
    } catch (err) {
      toast.error(`${name} not enrolled: ${describeError(err)}`);
    }
  }

  async function enrollSelection() {
    try {
      const result = await withChoice((onEnrolled) =>
        api.post('/api/companies/{company_id}/sequences/{sequence_id}/enrollments/bulk', {
          path: { company_id: companyId, sequence_id: sequence.id },
          body: { customer_ids: selectedCustomers.map(([id]) => id), start_date: startDate || undefined, on_enrolled: onEnrolled },
        }),
      );
      if (!result) return;
      toast.success(enrolledWords(result));
      changed();
    } catch (err) {
      toast.error(`Not enrolled: ${describeError(err)}`);
    }
  }

  async function pauseOrResume(e: EnrollmentView) {
    const path = { company_id: companyId, enrollment_id: e.id };
    try {
      if (e.pause_kind === null) {
        await api.post('/api/companies/{company_id}/sequence-enrollments/{enrollment_id}/pause', { path });
        toast.success(`Paused the sequence for ${e.customer_name}`);
      } else {
        const after = await api.post('/api/companies/{company_id}/sequence-enrollments/{enrollment_id}/resume', { path });
        if (after.pause_reason) toast.error(`${e.customer_name} is still paused. ${after.pause_reason}`);
        else toast.success(`Resumed the sequence for ${e.customer_name}`);
      }
      changed();
    } catch (err) {
      toast.error(`${e.customer_name}: ${describeError(err)}`);
    }
  }

  async function stop(enrollmentId: string, reason: string) {
    try {
      const result = await api.post('/api/companies/{company_id}/sequence-enrollments/{enrollment_id}/stop', {
        path: { company_id: companyId, enrollment_id: enrollmentId },
        body: { stop_reason: reason || undefined },
      });
      toast.success(`Stopped: ${result.cancelled_scheduled_steps} scheduled step${result.cancelled_scheduled_steps === 1 ? '' : 's'} cancelled`);
      setStopping(null);
      changed();
    } catch (err) {
      toast.error(`Not stopped: ${describeError(err)}`);
    }
  }

  return (
    <div className="stack" data-testid="enrollments">
      {dialog}
      {sequence.status !== 'active' ? (
        <p className="notice-warn">Customers can be enrolled once the sequence is active.</p>
      ) : (
        <div className="card stack">
          <div className="form-grid">
            <CustomerPicker companyId={companyId} label="Enroll a customer" actionLabel="Enroll" onPick={(c) => void enroll(c.id, c.name)} />
            <label>
              Start date (day 0; empty: today)
              <input type="date" value={startDate} onChange={(e) => setStartDate(e.target.value)} />
            </label>
          </div>
          {selectedCustomers.length > 0 ? (
            <div className="toolbar-row">
              <button type="button" className="btn" onClick={() => void enrollSelection()}>
                Enroll the {selectedCustomers.length} customer{selectedCustomers.length === 1 ? '' : 's'} of the invoices selected in the desk
              </button>
              <span className="muted small">{selectedCustomers.map(([, name]) => name).slice(0, 5).join(', ')}</span>
            </div>
          ) : (
            <p className="muted small">
              To enroll many customers, select their invoices in the <AppLink to={companyPath(companyId, 'invoices')}>invoice desk</AppLink> and come back here.
            </p>
          )}
        </div>
      )}
      <div className="toolbar-row">
        <label>
          Show
          <select
            value={status}
            onChange={(e) => {
              setStatus(e.target.value as typeof status);
              setPage(1);
            }}
          >
            {ENROLLMENT_FILTERS.map((st) => (
              <option key={st} value={st}>
                {ENROLLMENT_FILTER_WORDS[st]}
              </option>
            ))}
            <option value="">All</option>
          </select>
        </label>
      </div>
      {list.error !== null && <ErrorBox what="the enrollments" error={list.error} onRetry={list.reload} />}
      {list.data && list.data.data.length === 0 && <p className="muted">No {status === 'active' ? 'active ' : status === 'completed' ? 'ended ' : ''}enrollments.</p>}
      {list.data && list.data.data.length > 0 && (
        <table className="item-list" data-testid="enrollments-list">
          <thead>
            <tr>
              <th>Customer</th>
              <th>Start date</th>
              <th>Status</th>
              <th>
                <span className="sr-only">Operations</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list.data.data.map((e) => (
              <EnrollmentRow
                key={e.id}
                companyId={companyId}
                enrollment={e}
                open={open === e.id}
                stopping={stopping === e.id}
                onOpen={() => setOpen(open === e.id ? null : e.id)}
                onStop={() => setStopping(e.id)}
                onPauseOrResume={() => void pauseOrResume(e)}
                onCancelStop={() => setStopping(null)}
                onConfirmStop={(reason) => void stop(e.id, reason)}
              />
            ))}
          </tbody>
        </table>
      )}
      {list.data && list.data.count > PAGE_SIZE && <PageFooter page={page} pageSize={PAGE_SIZE} count={list.data.count} onPage={setPage} />}
    </div>
  );
}

type EnrollmentView = Schemas['SequenceEnrollment'];

/** Why an enrollment ended, in words. */
function endedWords(e: EnrollmentView): string {
  if (e.status === 'active') return e.pause_reason ?? 'Active';
  if (!e.stop_reason) return `Finished ${formatTimestamp(e.completed_at)}`;
  if (e.stop_reason === 'replied') return `Stopped: the customer replied (${formatTimestamp(e.completed_at)})`;
  return `Stopped: ${e.stop_reason} (${formatTimestamp(e.completed_at)})`;
}

function EnrollmentRow({
  companyId,
  enrollment: e,
  open,
  stopping,
  onOpen,
  onStop,
  onPauseOrResume,
  onCancelStop,
  onConfirmStop,
}: {
  companyId: string;
  enrollment: EnrollmentView;
  open: boolean;
  stopping: boolean;
  onOpen: () => void;
  onStop: () => void;
  onPauseOrResume: () => void;
  onCancelStop: () => void;
  onConfirmStop: (reason: string) => void;
}) {
  const [reason, setReason] = useState('');
  return (
    <>
      <tr className={open ? 'current' : undefined} onClick={onOpen} data-enrollment={e.customer_name}>
        <td>
          <button
            type="button"
            className="linkish"
            aria-expanded={open}
            onClick={(ev) => {
              ev.stopPropagation();
              onOpen();
            }}
          >
            {e.customer_name}
          </button>
        </td>
        <td>{formatDate(e.start_date)}</td>
        <td data-testid="enrollment-status">{endedWords(e)}</td>
        <td onClick={(ev) => ev.stopPropagation()}>
          {e.status === 'active' && !stopping && (
            <span className="toolbar-row">
              <button type="button" className="btn btn-small" onClick={onPauseOrResume}>
                {e.pause_kind === null ? 'Pause' : 'Resume'}
                <span className="sr-only"> {e.customer_name}</span>
              </button>
              <button type="button" className="btn btn-small" onClick={onStop}>
                Stop<span className="sr-only"> {e.customer_name}</span>
              </button>
            </span>
          )}
          {stopping && (
            <form
              className="toolbar-row"
              onSubmit={(ev) => {
                ev.preventDefault();
                onConfirmStop(reason.trim());
              }}
            >
              <label>
                <span className="sr-only">Why stop {e.customer_name}</span>
                <input autoFocus placeholder="Reason, e.g. paid, promised to pay" value={reason} onChange={(ev) => setReason(ev.target.value)} />
              </label>
              <button type="submit" className="btn btn-small btn-danger">
                Stop
              </button>
              <button type="button" className="btn btn-small" onClick={onCancelStop}>
                Keep
              </button>
            </form>
          )}
        </td>
      </tr>
      {open && (
        <tr>
          <td colSpan={4}>
            <ScheduledSteps companyId={companyId} enrollmentId={e.id} />
          </td>
        </tr>
      )}
    </>
  );
}

function ScheduledSteps({ companyId, enrollmentId }: { companyId: string; enrollmentId: string }) {
  const detail = useLoad(
    (signal) => api.get('/api/companies/{company_id}/sequence-enrollments/{enrollment_id}', { path: { company_id: companyId, enrollment_id: enrollmentId }, signal }),
    [companyId, enrollmentId],
  );
  if (detail.error !== null) return <ErrorBox what="the scheduled steps" error={detail.error} onRetry={detail.reload} />;
  if (!detail.data) return <p className="muted">Loading…</p>;
  if (detail.data.scheduled_steps.length === 0) return <p className="muted">No scheduled steps.</p>;
  return (
    <table className="mini-table" data-testid="scheduled-steps">
      <thead>
        <tr>
          <th>When</th>
          <th>Step</th>
          <th>Status</th>
        </tr>
      </thead>
      <tbody>
        {detail.data.scheduled_steps.map((s) => (
          <tr key={s.id}>
            <td>{formatTimestamp(s.scheduled_at)}</td>
            <td>
              {STEP_TYPE_WORDS[s.step_type]}: {s.step_label}
              {s.due_date && s.due_offset_days !== null && (
                <div className="small muted">
                  {s.invoice_number}, due {formatDate(s.due_date)}: {dueOffsetWords(s.due_offset_days)}
                </div>
              )}
            </td>
            <td>
              {s.hold_reason === 'paused' ? STEP_STATUS_WORDS[s.status] : (holdWords(s) ?? STEP_STATUS_WORDS[s.status])}
              {s.edited_at && <div className="small muted">{s.status === 'sent' ? 'Edited before sending' : 'Edited'}</div>}
              {s.error && <div className="small bad">{s.error}</div>}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
