import { type FormEvent, useEffect, useRef, useState } from 'react';
import type { Schemas } from '../api/client';

type Preview = Schemas['BankTablePreview'];
export type BankMapping = NonNullable<Schemas['BankColumnMapping']>;
type DateFormat = BankMapping['date_format'];

const DATE_FORMATS: Array<{ value: DateFormat; label: string }> = [
  { value: 'YYYY-MM-DD', label: '2026-11-23' },
  { value: 'DD.MM.YYYY', label: '23.11.2026 (day first)' },
  { value: 'DD/MM/YYYY', label: '23/11/2026 (day first)' },
  { value: 'MM/DD/YYYY', label: '11/23/2026 (month first)' },
  { value: 'YYYYMMDD', label: '20261123' },
];

interface Form {
  account: string;
  currency: string;
  date: string;
  date_format: DateFormat | '';
  split: boolean;
  amount: string;
  credit: string;
  debit: string;
  payer: string;
  payer_account: string;
  reference: string[];
  bank_reference: string;
  currency_column: string;
  decimal: '.' | ',';
}

function startForm(p: Preview): Form {
  const g = p.saved ?? p.guess.mapping;
  return {
    account: g.account ?? '',
    currency: g.currency ?? '',
    date: g.date ?? '',
    date_format: g.date_format ?? '',
    split: g.credit !== undefined || g.debit !== undefined,
    amount: g.amount ?? '',
    credit: g.credit ?? '',
    debit: g.debit ?? '',
    payer: g.payer ?? '',
    payer_account: g.payer_account ?? '',
    reference: g.reference ?? [],
    bank_reference: g.bank_reference ?? '',
    currency_column: g.currency_column ?? '',
    decimal: g.decimal ?? '.',
  };
}

/** The mapping the API takes: the columns chosen, the ones left at "none" left out. */
function mappingOf(f: Form): BankMapping {
  const column = (v: string) => (v === '' ? undefined : v);
  return {
    account: f.account.trim(),
    currency: f.currency.trim().toUpperCase(),
    date: f.date,
    date_format: f.date_format as DateFormat,
    ...(f.split ? { credit: column(f.credit), debit: column(f.debit) } : { amount: column(f.amount) }),
    payer: column(f.payer),
    payer_account: column(f.payer_account),
    reference: f.reference,
    bank_reference: column(f.bank_reference),
    currency_column: column(f.currency_column),
    decimal: f.decimal,
  };
}

/**
 * Which columns of a bank's CSV or XLSX export hold what, filled in from the guess (or the mapping
 * kept for a like file); the first rows below show what the columns hold. The mapping is kept for
 * the next file of this layout once it imports.
 */
export function BankMappingDialog({ fileName, preview, busy, error, onImport, onCancel }: { fileName: string; preview: Preview; busy: boolean; error: string | null; onImport: (mapping: BankMapping) => void; onCancel: () => void }) {
  const [form, setForm] = useState<Form>(() => startForm(preview));
  const first = useRef<HTMLInputElement>(null);
  // The latest onCancel for Esc, so the listener (and the focus) is set once, not on every render.
  const cancel = useRef(onCancel);
  cancel.current = onCancel;
  useEffect(() => {
    first.current?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') {
        e.stopPropagation();
        cancel.current();
      }
    };
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, []);
  const set = <K extends keyof Form>(key: K, value: Form[K]) => setForm((f) => ({ ...f, [key]: value }));
  const columns = preview.headers.filter((h) => h.trim() !== '');
  const select = (key: 'date' | 'amount' | 'credit' | 'debit' | 'payer' | 'payer_account' | 'bank_reference' | 'currency_column', label: string, none: string | null) => (
    <label>
      {label}
      <select value={form[key]} onChange={(e) => set(key, e.target.value)} required={none === null} data-testid={`mapping-${key}`}>
        <option value="">{none ?? 'Choose a column'}</option>
        {columns.map((c) => (
          <option key={c} value={c}>
            {c}
          </option>
        ))}
      </select>
    </label>
  );
  const complete = form.account.trim() !== '' && /^[A-Za-z]{3}$/.test(form.currency.trim()) && form.date !== '' && form.date_format !== '' && (form.split ? form.credit !== '' || form.debit !== '' : form.amount !== '');

  function submit(e: FormEvent) {
    e.preventDefault();
    if (complete) onImport(mappingOf(form));
  }

  return (
    <div className="modal-backdrop" role="presentation" onClick={onCancel}>
      <div className="modal modal-wide bank-mapping" role="dialog" aria-modal="true" aria-labelledby="bank-mapping-title" onClick={(e) => e.stopPropagation()} data-testid="bank-mapping">
        <h2 id="bank-mapping-title">Columns of {fileName}</h2>
        <p className="muted small">
          {preview.saved ? 'A mapping kept from an earlier file of this bank fits; check it.' : 'Filled in from the column names where they say what they hold; check each one.'} It is kept for the next file with these columns.
        </p>
        <form className="form-grid" onSubmit={submit} aria-label="Columns of the bank export">
          <label>
            Account (IBAN or number)
            <input ref={first} required maxLength={64} value={form.account} onChange={(e) => set('account', e.target.value)} data-testid="mapping-account" />
          </label>
          <label>
            Currency of the account
            <input required maxLength={3} value={form.currency} onChange={(e) => set('currency', e.target.value)} />
          </label>
          {select('date', 'Booking date', null)}
          <label>
            Dates are written
            <select value={form.date_format} required onChange={(e) => set('date_format', e.target.value as DateFormat)}>
              <option value="">Choose how</option>
              {DATE_FORMATS.map((d) => (
                <option key={d.value} value={d.value}>
                  {d.label}
                </option>
              ))}
            </select>
          </label>
          <fieldset className="wide plain">
            <legend>Amounts</legend>
            <label className="inline">
              <input type="radio" name="amounts" checked={!form.split} onChange={() => set('split', false)} /> One column, money out negative
            </label>
            <label className="inline">
              <input type="radio" name="amounts" checked={form.split} onChange={() => set('split', true)} /> A column for money in, one for money out
            </label>
          </fieldset>
          {form.split ? (
            <>
              {select('credit', 'Money in', 'None')}
              {select('debit', 'Money out', 'None')}
            </>
          ) : (
            select('amount', 'Amount', null)
          )}
          {select('payer', 'Payer name', 'None')}
          {select('payer_account', "Payer's account", 'None')}
          {select('bank_reference', "Bank's reference", 'None')}
          {select('currency_column', 'Currency per row', 'None (the account’s)')}
          <label>
            Decimal separator
            <select value={form.decimal} onChange={(e) => set('decimal', e.target.value as '.' | ',')}>
              <option value=".">Point (1,234.50)</option>
              <option value=",">Comma (1.234,50)</option>
            </select>
          </label>
          <fieldset className="wide plain">
            <legend>Remittance text (invoice numbers are looked for here)</legend>
            {columns.map((c) => (
              <label className="inline" key={c}>
                <input
                  type="checkbox"
                  checked={form.reference.includes(c)}
                  onChange={(e) => set('reference', e.target.checked ? [...form.reference, c] : form.reference.filter((r) => r !== c))}
                />{' '}
                {c}
              </label>
            ))}
          </fieldset>
          <div className="wide mapping-rows" role="region" aria-label={`First rows of ${fileName}`} tabIndex={0}>
            <table className="data-table">
              <thead>
                <tr>
                  {preview.headers.map((h, i) => (
                    <th scope="col" key={`${h}-${i}`}>
                      {h}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {preview.rows.slice(0, 3).map((r, n) => (
                  <tr key={n}>
                    {r.map((c, i) => (
                      <td key={i}>{c}</td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {error && (
            <div className="error-box wide" role="alert" data-testid="mapping-error">
              <span>{error}</span>
            </div>
          )}
          <div className="form-actions">
            <button type="button" className="btn" onClick={onCancel}>
              Cancel
            </button>
            <button type="submit" className="btn btn-primary" disabled={busy || !complete}>
              {busy ? 'Importing…' : 'Import'}
            </button>
          </div>
        </form>
      </div>
    </div>
  );
}
