import { useState } from 'react';
import type { Schemas } from '../api/client';
import { AppLink } from '../components/AppLink';
import { ErrorBox } from '../components/ErrorBox';
import { Evidence } from '../components/Evidence';
import { useLoad } from '../components/useLoad';
import { formatDate, formatMoney } from '../desk/format';
import { inWords } from '../insights/describe';
import { companyPath } from '../state/route';
import { api } from '../state/session';
import { LogActionForm } from './LogActionForm';

type ActionTask = Schemas['ActionTask'];

/**
 * Approved calls and tasks from the Actions inbox, shown in the Queue: whom to call, why, and the
 * form that logs the call and completes the action. The caller's own work comes first.
 */
export function ActionTasks({ companyId, version, onChanged }: { companyId: string; version: number; onChanged: () => void }) {
  const tasks = useLoad((signal) => api.get('/api/companies/{company_id}/action-tasks', { path: { company_id: companyId }, signal }), [companyId, version]);
  const [open, setOpen] = useState<string | null>(null);
  const rows = tasks.data?.data ?? [];
  if (tasks.error !== null) return <ErrorBox what="the approved calls and tasks" error={tasks.error} onRetry={tasks.reload} />;
  if (rows.length === 0) return null;
  return (
    <section aria-labelledby="group-my-tasks" data-testid="queue-my-tasks">
      <h2 className="group-title" id="group-my-tasks">
        Approved calls and tasks ({rows.length})
      </h2>
      <ul className="stack" style={{ listStyle: 'none', padding: 0 }}>
        {rows.map((t) => (
          <TaskItem
            key={t.id}
            companyId={companyId}
            task={t}
            open={open === t.id}
            onToggle={() => setOpen(open === t.id ? null : t.id)}
            onLogged={() => {
              setOpen(null);
              onChanged();
            }}
          />
        ))}
      </ul>
    </section>
  );
}

function TaskItem({ companyId, task, open, onToggle, onLogged }: { companyId: string; task: ActionTask; open: boolean; onToggle: () => void; onLogged: () => void }) {
  return (
    <li className="card stack" data-testid="action-task">
      <div className="toolbar-row">
        <strong>{task.action_type === 'call' ? 'Call' : 'Task'}:</strong>
        <AppLink to={companyPath(companyId, 'customers', task.customer)}>{task.customer_name}</AppLink>
        {task.invoice && task.invoice_number && (
          <>
            <span className="muted">·</span>
            <AppLink to={companyPath(companyId, 'invoices', task.invoice)}>{task.invoice_number}</AppLink>
            {task.balance !== null && <span>{formatMoney(task.balance, task.currency ?? 'USD')} open</span>}
            {task.due_date && <span className="muted">due {formatDate(task.due_date)}</span>}
          </>
        )}
        <span className="spacer" />
        <span className="muted">{task.assignee_name ? `Assigned to ${task.assignee_name}` : 'Not assigned'}</span>
      </div>
      <p>{inWords(task.description)}</p>
      {task.contacts.length > 0 ? (
        <ul className="contacts" aria-label="Phone numbers">
          {task.contacts.map((c) => (
            <li key={`${c.name}-${c.phone}`}>
              {c.name}
              {c.title ? `, ${c.title}` : ''}
              {c.is_billing ? ' (billing)' : ''}: <a href={`tel:${c.phone.replace(/[^\d+]/g, '')}`}>{c.phone}</a>
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">No phone number on file for {task.customer_name}.</p>
      )}
      {task.talking_points.length > 0 && (
        <ul aria-label="Talking points">
          {task.talking_points.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      )}
      {task.evidence.length > 0 && (
        <details>
          <summary>Why this was proposed</summary>
          <Evidence companyId={companyId} items={task.evidence} />
        </details>
      )}
      <div>
        <button type="button" className="btn" aria-expanded={open} onClick={onToggle}>
          {task.action_type === 'call' ? 'Log the call' : 'Mark done'}
        </button>
      </div>
      {open && <LogActionForm companyId={companyId} actionId={task.id} actionType={task.action_type} customerName={task.customer_name} onLogged={onLogged} />}
    </li>
  );
}
