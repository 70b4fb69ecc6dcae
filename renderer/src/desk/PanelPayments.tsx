import { type FormEvent, type ReactNode, useState } from 'react';
import type { Schemas } from '../api/client';
import { ConfirmDialog } from '../components/Dialog';
import { describeError, ErrorBox } from '../components/ErrorBox';
import { useLoad } from '../components/useLoad';
import { api } from '../state/session';
import { toast } from '../state/toasts';
import { formatDate, formatMoney, localToday } from './format';
import { OPERATION_LABELS, PAYMENT_METHODS, PAYMENT_STATUS_WORDS, type PaymentOperation, paymentMethodWords, paymentOperations, operationEffect, overpayment } from './payments';
import type { InvoiceDetail } from './types';

type Payment = Schemas['Payment'];

function Section({ title, children, testId }: { title: string; children: ReactNode; testId?: string }) {
  return (
    <section className="panel-section" data-testid={testId}>
      <h3>{title}</h3>
      {children}
    </section>
  );
}

/** Record a payment; an amount above the open balance asks first and says it will overpay. */
export function RecordPayment({ companyId, invoice, onSaved }: { companyId: string; invoice: InvoiceDetail; onSaved: () => void }) {
  const [open, setOpen] = useState(false);
  const [form, setForm] = useState({ amount: '', payment_date: localToday(), payment_method: 'ACH', notes: '' });
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const over = overpayment(Number(form.amount), invoice.open_balance);

  async function record() {
    setBusy(true);
    setError(null);
    try {
      const payment = await api.post('/api/companies/{company_id}/payments', {
        path: { company_id: companyId },
        body: { invoice: invoice.id, amount: Number(form.amount), payment_date: form.payment_date, payment_method: form.payment_method, notes: form.notes || null },
      });
      toast.success(`Recorded ${formatMoney(payment.amount, invoice.currency)} on ${invoice.invoice_number}`);
      setForm({ amount: '', payment_date: localToday(), payment_method: 'ACH', notes: '' });
      setOpen(false);
      onSaved();
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
      setConfirming(false);
    }
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    if (over > 0) setConfirming(true);
    else void record();
  }

  if (!open) {
    return (
      <div className="panel-section">
        <button type="button" className="btn btn-primary" data-shortcut="payment" aria-keyshortcuts="P" disabled={invoice.open_balance <= 0} onClick={() => setOpen(true)}>
          Record a payment
        </button>
        {invoice.open_balance <= 0 && <span className="muted small"> Nothing is owed on this invoice.</span>}
      </div>
    );
  }
  return (
    <Section title="Record a payment">
      <form className="form-grid" onSubmit={submit} aria-label="Record a payment">
        <label>
          Amount
          <input
            name="amount"
            type="number"
            inputMode="decimal"
            min="0.01"
            step="0.01"
            required
            autoFocus
            placeholder={invoice.open_balance.toFixed(2)}
            value={form.amount}
            onChange={(e) => setForm({ ...form, amount: e.target.value })}
          />
        </label>
        <label>
          Date
          <input name="payment_date" type="date" required value={form.payment_date} onChange={(e) => setForm({ ...form, payment_date: e.target.value })} />
        </label>
        <label>
          Method
          <select name="payment_method" value={form.payment_method} onChange={(e) => setForm({ ...form, payment_method: e.target.value })}>
            {PAYMENT_METHODS.map((m) => (
              <option key={m} value={m}>
                {paymentMethodWords(m)}
              </option>
            ))}
          </select>
        </label>
        <label className="wide">
          Notes
          <input name="notes" value={form.notes} onChange={(e) => setForm({ ...form, notes: e.target.value })} />
        </label>
        {over > 0 && (
          <p className="form-warning wide" data-testid="overpay-note">
            {formatMoney(over, invoice.currency)} more than the open balance of {formatMoney(invoice.open_balance, invoice.currency)}: the invoice would be overpaid.
          </p>
        )}
        {error && (
          <p className="form-error wide" role="alert">
            {error}
          </p>
        )}
        <div className="form-actions wide">
          <button type="button" className="btn btn-ghost" onClick={() => setOpen(false)}>
            Cancel
          </button>
          <button type="button" className="btn" onClick={() => setForm({ ...form, amount: invoice.open_balance.toFixed(2) })}>
            Full balance
          </button>
          <button type="submit" className="btn btn-primary" disabled={busy}>
            {busy ? 'Recording…' : 'Record payment'}
          </button>
        </div>
      </form>
      {confirming && (
        <ConfirmDialog title="Record an overpayment?" confirmLabel={`Record ${formatMoney(Number(form.amount), invoice.currency)}`} busy={busy} focusCancel onConfirm={() => void record()} onCancel={() => setConfirming(false)}>
          <p>
            {formatMoney(Number(form.amount), invoice.currency)} is {formatMoney(over, invoice.currency)} more than the open balance of {formatMoney(invoice.open_balance, invoice.currency)} on{' '}
            {invoice.invoice_number}.
          </p>
          <p>The invoice will close as overpaid, with {formatMoney(over, invoice.currency)} owed back to the customer. Check the amount if this was not intended.</p>
        </ConfirmDialog>
      )}
    </Section>
  );
}

/** The invoice's payments; pending ones first in mind: settle, fail or void each with a reason. */
export function Payments({ companyId, invoice, version, onSaved }: { companyId: string; invoice: InvoiceDetail; version: number; onSaved: () => void }) {
  const payments = useLoad(
    (signal) => api.get('/api/companies/{company_id}/invoices/{invoice_id}/payments', { path: { company_id: companyId, invoice_id: invoice.id }, signal }),
    [companyId, invoice.id, version],
  );
  const [acting, setActing] = useState<{ payment: Payment; operation: PaymentOperation } | null>(null);
  const currency = invoice.currency;
  return (
    <Section title="Payments" testId="panel-payments">
      {payments.error !== null && <ErrorBox what="payments" error={payments.error} onRetry={payments.reload} />}
      {payments.data && payments.data.data.length === 0 && <p className="muted">No payments yet.</p>}
      {payments.data && payments.data.data.length > 0 && (
        <table className="mini-table">
          <thead>
            <tr>
              <th>Date</th>
              <th>Method</th>
              <th>Status</th>
              <th className="num">Amount</th>
              <th>
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {payments.data.data.map((p) => (
              <tr key={p.id} title={[p.notes, p.status_reason].filter(Boolean).join(' · ') || undefined} data-testid="payment-row" data-status={p.status}>
                <td>{formatDate(p.payment_date)}</td>
                <td>{paymentMethodWords(p.payment_method)}</td>
                <td>
                  <span className={`pill pill-${p.status.toLowerCase()}`}>{PAYMENT_STATUS_WORDS[p.status]}</span>
                  {p.status_reason && <div className="muted small">{p.status_reason}</div>}
                </td>
                <td className="num">{formatMoney(p.amount, currency)}</td>
                <td className="row-actions">
                  {paymentOperations(p.status).map((operation) => (
                    <button key={operation} type="button" className="btn btn-ghost btn-small" aria-label={`${OPERATION_LABELS[operation]} the ${formatMoney(p.amount, currency)} payment of ${formatDate(p.payment_date)}`} onClick={() => setActing({ payment: p, operation })}>
                      {OPERATION_LABELS[operation]}
                    </button>
                  ))}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {invoice.pending_amount > 0 && (
        <p className="muted small" data-testid="pending-note">
          {formatMoney(invoice.pending_amount, currency)} pending: not counted as paid until settled.
        </p>
      )}
      {acting && (
        <PaymentOperationDialog
          companyId={companyId}
          invoice={invoice}
          payment={acting.payment}
          operation={acting.operation}
          onDone={() => {
            setActing(null);
            onSaved();
          }}
          onCancel={() => setActing(null)}
        />
      )}
    </Section>
  );
}

function PaymentOperationDialog({
  companyId,
  invoice,
  payment,
  operation,
  onDone,
  onCancel,
}: {
  companyId: string;
  invoice: InvoiceDetail;
  payment: Payment;
  operation: PaymentOperation;
  onDone: () => void;
  onCancel: () => void;
}) {
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const effect = operationEffect(operation, payment, invoice);

  async function confirm() {
    setBusy(true);
    setError(null);
    try {
      const path = { company_id: companyId, payment_id: payment.id };
      const body = { reason: reason.trim() };
      if (operation === 'void') await api.post('/api/companies/{company_id}/payments/{payment_id}/void', { path, body });
      else if (operation === 'settle') await api.post('/api/companies/{company_id}/payments/{payment_id}/settle', { path, body });
      else await api.post('/api/companies/{company_id}/payments/{payment_id}/fail', { path, body });
      toast.success(`${OPERATION_LABELS[operation]}: ${formatMoney(payment.amount, invoice.currency)} on ${invoice.invoice_number}`);
      onDone();
    } catch (err) {
      setError(describeError(err));
      setBusy(false);
    }
  }

  return (
    <ConfirmDialog
      title={`${OPERATION_LABELS[operation]} this payment?`}
      confirmLabel={OPERATION_LABELS[operation]}
      busy={busy}
      disabled={reason.trim() === ''}
      focusConfirm={false}
      onConfirm={() => void confirm()}
      onCancel={onCancel}
    >
      <p>
        {formatMoney(payment.amount, invoice.currency)} by {paymentMethodWords(payment.payment_method)} on {formatDate(payment.payment_date)} ({PAYMENT_STATUS_WORDS[payment.status].toLowerCase()}).
      </p>
      <p data-testid="operation-effect">{effect}</p>
      <label className="stacked">
        Reason (kept with the payment)
        <textarea autoFocus required maxLength={500} rows={2} value={reason} onChange={(e) => setReason(e.target.value)} />
      </label>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
    </ConfirmDialog>
  );
}
