/**
 * A first column mapping for a bank's CSV or XLSX export, guessed where the headers say so ("Date",
 * "Buchungstag", "Paid in", "IBAN", "Verwendungszweck") and the cells agree (a date column holds
 * dates, an amount column amounts: core/import's column profiles, as the import wizard reads them).
 * Pure. What it cannot tell (always the account, sometimes a column) is left for the person.
 */
import { type ColumnProfile, guessDecimal, profileColumns } from '../../import/guess';
import { BANK_DATE_FORMATS, type BankMapping, type StatementTable } from './table';

export type BankDateFormat = (typeof BANK_DATE_FORMATS)[number];

/** The guess: the fields found, and the ones a complete mapping still needs. */
export interface BankMappingGuess {
  mapping: Partial<BankMapping> & Pick<BankMapping, 'reference' | 'decimal' | 'currency'>;
  missing: Array<'account' | 'date' | 'amount' | 'date_format'>;
}

/** Header names (lower case, letters and digits only) per field, the likeliest first. */
const NAMES = {
  date: ['bookingdate', 'buchungstag', 'buchungsdatum', 'transactiondate', 'postingdate', 'posteddate', 'date', 'datum', 'booked', 'posted', 'entrydate'],
  value_date: ['valuedate', 'valuta', 'valutadatum', 'wertstellung'],
  amount: ['amount', 'betrag', 'transactionamount', 'umsatz', 'value'],
  credit: ['credit', 'credits', 'paidin', 'moneyin', 'deposit', 'deposits', 'haben', 'incoming', 'creditamount'],
  debit: ['debit', 'debits', 'paidout', 'moneyout', 'withdrawal', 'withdrawals', 'soll', 'outgoing', 'debitamount'],
  currency_column: ['currency', 'waehrung', 'currencycode', 'ccy'],
  payer: ['payer', 'payername', 'counterparty', 'counterpartyname', 'auftraggeberempfaenger', 'auftraggeber', 'remitter', 'name', 'party', 'from'],
  payer_account: ['iban', 'payeriban', 'payeraccount', 'counterpartyaccount', 'counterpartyiban', 'kontonummer', 'fromaccount', 'accountnumber'],
  reference: ['verwendungszweck', 'remittanceinformation', 'remittance', 'paymentreference', 'reference', 'details', 'memo', 'purpose', 'narrative', 'description'],
  bank_reference: ['bankreference', 'transactionid', 'transactionreference', 'referenz', 'fitid', 'id'],
} as const;

type Field = keyof typeof NAMES;

const key = (header: string) =>
  header
    .toLowerCase()
    .replace(/ä/g, 'ae')
    .replace(/ö/g, 'oe')
    .replace(/ü/g, 'ue')
    .replace(/ß/g, 'ss')
    .normalize('NFD')
    .replace(/[^a-z0-9]/g, '');

export function guessBankMapping(table: StatementTable, companyCurrency: string): BankMappingGuess {
  const sample = table.rows.slice(0, 200).map((r) => table.headers.map((_, i) => cellText(r.cells[i])));
  const profiles = profileColumns(table.headers, sample);
  const taken = new Set<number>();
  const fits: Record<Field, (p: ColumnProfile) => boolean> = {
    date: (p) => p.date || dateFormatOf(p, sample, table.headers) !== null,
    value_date: (p) => p.date || p.filled === 0,
    amount: (p) => p.amount,
    // A credit or debit column is empty on the other kind's rows.
    credit: (p) => p.amount || p.filled === 0,
    debit: (p) => p.amount || p.filled === 0,
    currency_column: (p) => p.values !== null && p.values.every((v) => /^[A-Za-z]{3}$/.test(v)),
    payer: (p) => !p.date && !p.amount,
    payer_account: (p) => !p.date && !p.amount,
    reference: (p) => !p.date && !p.amount,
    bank_reference: (p) => !p.date,
  };
  const find = (field: Field): string | undefined => {
    for (const name of NAMES[field]) {
      const i = table.headers.findIndex((h, n) => !taken.has(n) && key(h) === name && fits[field](profiles[n]));
      if (i !== -1) {
        taken.add(i);
        return table.headers[i];
      }
    }
    return undefined;
  };
  // Order matters: "Valuta" before a plain date, credit and debit before one amount column.
  const valueDate = find('value_date');
  const date = find('date');
  const credit = find('credit');
  const debit = find('debit');
  const amount = credit || debit ? undefined : find('amount');
  const mapping: BankMappingGuess['mapping'] = {
    currency: companyCurrency,
    date,
    value_date: valueDate,
    amount,
    credit,
    debit,
    currency_column: find('currency_column'),
    payer: find('payer'),
    payer_account: find('payer_account'),
    bank_reference: find('bank_reference'),
    reference: [],
    decimal: guessDecimal(profiles),
  };
  for (let r = find('reference'); r !== undefined && mapping.reference.length < 3; r = find('reference')) mapping.reference.push(r);
  const dateColumn = date === undefined ? -1 : table.headers.indexOf(date);
  const format = dateColumn === -1 ? null : dateFormatOf(profiles[dateColumn], sample, table.headers);
  if (format) mapping.date_format = format;
  for (const k of Object.keys(mapping) as Array<keyof typeof mapping>) if (mapping[k] === undefined) delete mapping[k];
  const missing: BankMappingGuess['missing'] = ['account'];
  if (!date) missing.push('date');
  if (!amount && !credit && !debit) missing.push('amount');
  if (date && !format) missing.push('date_format');
  return { mapping, missing };
}

function cellText(cell: StatementTable['rows'][number]['cells'][number] | undefined): string {
  if (cell === null || cell === undefined) return '';
  if (cell instanceof Date) return cell.toISOString().slice(0, 10);
  return String(cell).trim();
}

/**
 * The date format a column's cells all read in. The profile says day or month first; the cells
 * say the separator (banks write 03.11.2026 day first). Month first wins a tie, as in the wizard.
 */
function dateFormatOf(p: ColumnProfile, sample: string[][], headers: string[]): BankDateFormat | null {
  const i = headers.indexOf(p.header);
  const filled = sample.map((r) => r[i]).filter((c) => c !== '');
  if (filled.length === 0) return null;
  if (filled.every((c) => /^\d{8}$/.test(c))) return 'YYYYMMDD';
  if (!p.date) return null;
  if (p.date_formats.length === 1 && p.date_formats[0] === 'YYYY-MM-DD') return 'YYYY-MM-DD';
  const dotted = filled.every((c) => c.includes('.'));
  if (dotted) return p.date_formats.includes('D/M/YYYY') ? 'DD.MM.YYYY' : null;
  if (p.date_formats.includes('M/D/YYYY')) return 'MM/DD/YYYY';
  return p.date_formats.includes('D/M/YYYY') ? 'DD/MM/YYYY' : null;
}
