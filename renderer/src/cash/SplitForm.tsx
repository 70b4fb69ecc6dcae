import { useEffect, useMemo, useRef, useState } from 'react';
import type { Schemas } from '../api/client';
import { CustomerPicker, type PickedCustomer } from '../components/CustomerPicker';
import { useLoad } from '../components/useLoad';
import { formatMoney } from '../desk/format';
import { api } from '../state/session';
import { type BankTransactionDetail, candidatesOf, centsText, fromCents, toCents, typedCents } from './words';

type ApplyBody = Schemas['BankApplyRequest'];
type ShortChoice = 'open' | 'dispute' | 'write_off';

interface Line {
  invoice_id: string;
  invoice_number: string;
  open_cents: number;
}

/**
 * A credit spread over invoices by hand: an amount per invoice (the suggestion filled in), the
 * rest kept as unapplied cash on the customer. An invoice paid short stays open for the rest, or
 * gets a dispute or a write-off with the reason.
 */
export function SplitForm({ companyId, entry, busy, onCancel, onApply }: { companyId: string; entry: BankTransactionDetail; busy: boolean; onCancel: () => void; onApply: (body: ApplyBody) => void }) {
  const proposed = entry.proposal;
  const candidates = candidatesOf(entry);
  const [customer, setCustomer] = useState<PickedCustomer | null>(() => {
    const id = proposed?.customer_id ?? candidates[0]?.customer_id ?? entry.customer_id;
    if (!id) return null;
    return { id, name: candidates.find((c) => c.customer_id === id)?.customer_name ?? entry.customer_name ?? 'the customer' };
  });
  const invoices = useLoad(
    (signal) =>
      customer
        ? api.get('/api/companies/{company_id}/invoices', { path: { company_id: companyId }, query: { customer_id: customer.id, hide_zero_balance: true, sort: 'due_date', order: 'asc', limit: 100 }, signal })
        : Promise.resolve(null),
    [companyId, customer?.id],
  );
  // The candidates first (in their rank), then the customer's other open invoices, oldest due first.
  const lines = useMemo<Line[]>(() => {
    const out: Line[] = candidates.filter((c) => !customer || c.customer_id === customer.id).map((c) => ({ invoice_id: c.invoice_id, invoice_number: c.invoice_number, open_cents: toCents(c.open_balance) }));
    for (const inv of invoices.data?.items ?? []) {
      // Without grouping the list holds invoices only; the check keeps the type honest.
      if (!('invoice_number' in inv) || inv.balance <= 0 || out.some((l) => l.invoice_id === inv.id)) continue;
      out.push({ invoice_id: inv.id, invoice_number: inv.invoice_number, open_cents: toCents(inv.balance) });
    }
    return out;
  }, [candidates, invoices.data, customer]);
  const [typed, setTyped] = useState<Record<string, string>>(() =>
    Object.fromEntries((proposed?.allocations ?? []).map((a) => [a.invoice_id, centsText(toCents(a.amount))])),
  );
  const [short, setShort] = useState<ShortChoice>('open');
  const [reason, setReason] = useState('');
  const [note, setNote] = useState('');
  const first = useRef<HTMLInputElement>(null);
  useEffect(() => first.current?.focus(), [lines.length > 0]);

  const credit = toCents(entry.amount);
  const amounts = lines.map((l) => ({ line: l, text: typed[l.invoice_id] ?? '', cents: (typed[l.invoice_id] ?? '').trim() === '' ? 0 : typedCents(typed[l.invoice_id]) }));
  const unreadable = amounts.filter((a) => a.cents === null);
  const over = amounts.filter((a) => a.cents !== null && a.cents > a.line.open_cents);
  const allocated = amounts.reduce((sum, a) => sum + (a.cents ?? 0), 0);
  const left = credit - allocated;
  const shortLines = amounts.filter((a) => a.cents !== null && a.cents > 0 && a.cents < a.line.open_cents);
  const problems = [
    ...unreadable.map((a) => `${a.line.invoice_number}: "${a.text}" is not an amount`),
    ...over.map((a) => `${a.line.invoice_number}: more than its open balance of ${formatMoney(fromCents(a.line.open_cents), entry.currency)}`),
    ...(left < 0 ? [`The amounts are ${formatMoney(fromCents(-left), entry.currency)} more than the credit`] : []),
    ...(left > 0 && !customer ? ['Choose whose payment it is: the rest is kept as their unapplied cash'] : []),
    ...(shortLines.length > 0 && short !== 'open' && reason.trim() === '' ? [`Say why ${short === 'dispute' ? 'the dispute is opened' : 'the rest is written off'}`] : []),
  ];

  function submit() {
    if (problems.length > 0) return;
    onApply({
      allocations: amounts.filter((a) => a.cents).map((a) => ({ invoice_id: a.line.invoice_id, amount: fromCents(a.cents as number) })),
      unapplied_amount: fromCents(Math.max(0, left)),
      customer_id: customer?.id,
      note: note.trim() || null,
      short_payment: shortLines.length > 0 && short !== 'open' ? { action: short, reason: reason.trim() } : undefined,
    });
  }

  return (
    <section className="panel-section" data-testid="split-form" aria-label="Split the credit over invoices">
      <h3>Apply {formatMoney(entry.amount, entry.currency)} to invoices</h3>
      {customer ? (
        <p className="small">
          Payment of <strong>{customer.name}</strong>.{' '}
          <button type="button" className="btn btn-small btn-ghost" onClick={() => setCustomer(null)}>
            Another customer
          </button>
        </p>
      ) : (
        <CustomerPicker companyId={companyId} label="Whose payment is it?" actionLabel="Choose" onPick={setCustomer} />
      )}
      {lines.length > 0 && (
        <table className="item-list split-lines">
          <thead>
            <tr>
              <th scope="col">Invoice</th>
              <th scope="col" className="num">
                Open
              </th>
              <th scope="col" className="num">
                Apply
              </th>
            </tr>
          </thead>
          <tbody>
            {amounts.map(({ line, text }, i) => (
              <tr key={line.invoice_id}>
                <td className="mono invoice-cell">{line.invoice_number}</td>
                <td className="num">{formatMoney(fromCents(line.open_cents), entry.currency)}</td>
                <td className="num">
                  <input
                    ref={i === 0 ? first : undefined}
                    className="amount-input"
                    inputMode="decimal"
                    aria-label={`Amount to apply to ${line.invoice_number}`}
                    data-testid={`split-amount-${line.invoice_number}`}
                    value={text}
                    placeholder="0.00"
                    onChange={(e) => setTyped((t) => ({ ...t, [line.invoice_id]: e.target.value }))}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {customer && invoices.data && lines.length === 0 && <p className="muted">{customer.name} has no open invoice: the whole credit is kept as unapplied cash.</p>}
      <p className="small" data-testid="split-rest">
        Applied {formatMoney(fromCents(allocated), entry.currency)} of {formatMoney(entry.amount, entry.currency)}.
        {left > 0 && customer ? ` ${formatMoney(fromCents(left), entry.currency)} is kept as unapplied cash on ${customer.name}.` : ''}
      </p>
      {shortLines.length > 0 && (
        <fieldset className="stack short-payment" data-testid="short-payment">
          <legend>
            Paid short: {shortLines.map((a) => `${a.line.invoice_number} keeps ${formatMoney(fromCents(a.line.open_cents - (a.cents as number)), entry.currency)} open`).join('; ')}
          </legend>
          {(
            [
              ['open', 'Leave the rest open'],
              ['dispute', 'Open a dispute on it'],
              ['write_off', 'Write the rest off'],
            ] as const
          ).map(([value, words]) => (
            <label key={value} className="radio-line">
              <input type="radio" name="short-choice" value={value} checked={short === value} onChange={() => setShort(value)} /> {words}
            </label>
          ))}
          {short !== 'open' && (
            <label className="wide-field">
              Reason
              <input type="text" value={reason} data-testid="short-reason" onChange={(e) => setReason(e.target.value)} placeholder={short === 'dispute' ? 'Customer says one item was not delivered' : 'Bank charges deducted by the payer'} />
            </label>
          )}
        </fieldset>
      )}
      <label className="wide-field">
        Note (optional)
        <input type="text" value={note} onChange={(e) => setNote(e.target.value)} />
      </label>
      {problems.length > 0 && (
        <ul className="split-problems small" data-testid="split-problems">
          {problems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      )}
      <div className="toolbar-row">
        <button type="button" className="btn btn-primary" disabled={busy || problems.length > 0} onClick={submit}>
          Apply
        </button>
        <button type="button" className="btn" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </section>
  );
}
