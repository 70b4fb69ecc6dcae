/**
 * SWIFT MT940 customer statements, read line by line so an error names its line. mt940js was
 * checked on the banks' samples and not used: it throws on ING's own published example (whose
 * balances do not add up), keeps amounts as floats and leaves field 86 unread. Here balances
 * that do not add up are a warning, amounts are exact, and field 86 is read in its bank dialects.
 */
import type { ParsedStatement, StatementEntry } from '../statement';
import { readField86 } from './mt940-details';
import { READ_LIMITS, decimalToCents, isCurrency, malformed, swiftDay, tooManyEntries } from './values';

interface Field {
  tag: string;
  /** 1-based line number of the tag in the file. */
  line: number;
  lines: string[];
}

const TAG_RE = /^:(\d{2}[A-Z]?):(.*)$/;

/** The file's fields in order, SWIFT envelope blocks ({1:...}{2:...}{4:) and message ends (-, -}) left out. */
function fields(text: string): Field[] {
  const out: Field[] = [];
  const lines = text.split(/\r\n|\n|\r/);
  lines.forEach((raw, i) => {
    let line = raw.replace(/\s+$/, '');
    // An envelope may share its line with the first tag: "{1:...}{2:...}{4::20:REF".
    const envelope = /^(?:\{[0-9A-Z]:(?:\{[^}]*\}|[^{}])*\})*\{4:/.exec(line);
    if (envelope) line = line.slice(envelope[0].length);
    if (/^(?:\{[0-9A-Z]:.*\})+$/.test(line) || line === '' || /^-\}?$/.test(line)) return;
    const m = TAG_RE.exec(line);
    if (m) {
      out.push({ tag: m[1], line: i + 1, lines: [m[2]] });
      return;
    }
    const current = out[out.length - 1];
    if (!current) throw malformed(`Line ${i + 1} of the MT940 file is not a field: "${snippet(line)}" comes before the first tag such as :20:`);
    current.lines.push(line);
  });
  return out;
}

interface Balance {
  cents: number;
  currency: string;
  date: string;
}

const BALANCE_RE = /^([CD])(\d{6})([A-Z]{3})(\d{1,15}(?:,\d*)?)$/;

function balance(field: Field, what: string): Balance {
  const m = BALANCE_RE.exec(field.lines[0]);
  const date = m ? swiftDay(m[2]) : null;
  const cents = m ? decimalToCents(m[4]) : null;
  if (!m || !date || cents === null) {
    throw malformed(`Line ${field.line}: the ${what} (:${field.tag}:) "${snippet(field.lines[0])}" is not C or D, a date YYMMDD, a currency and an amount`);
  }
  return { cents: m[1] === 'D' ? -cents : cents, currency: m[3], date };
}

/**
 * :61: value date YYMMDD, [entry date MMDD], mark (C, D, RC, RD), [funds code], amount, type
 * (N/F/S + 3), customer reference [//bank reference]; a second line may hold supplementary details.
 */
const LINE_RE = /^(\d{6})(\d{4})?(RC|RD|C|D)([A-Z])?(\d{1,15},\d{0,2})([NFS][A-Z0-9]{3})([^/]*(?:\/(?!\/)[^/]*)*)(?:\/\/(.*))?$/;

interface Message {
  account: string | null;
  statementRef: string | null;
  opening: Balance | null;
  closing: Balance | null;
  entries: StatementEntry[];
  firstLine: number;
}

export function readMt940(text: string): ParsedStatement {
  const all = fields(text);
  if (all.length === 0) throw malformed('The MT940 file has no fields');
  const messages: Message[] = [];
  let message: Message | null = null;
  let last: { entry: StatementEntry; field: Field } | null = null;
  let entryCount = 0;
  const open = (line: number): Message => {
    const m: Message = { account: null, statementRef: null, opening: null, closing: null, entries: [], firstLine: line };
    messages.push(m);
    return m;
  };
  for (const field of all) {
    const value = field.lines[0];
    if (field.tag === '20' || message === null) message = open(field.line);
    switch (field.tag) {
      case '20':
        message.statementRef = value.trim() || null;
        break;
      case '28C':
      case '28':
        message.statementRef = [message.statementRef, value.trim()].filter((v) => v).join('/') || null;
        break;
      case '25':
        message.account = value.replace(/\s+/g, '') || null;
        break;
      case '60F':
      case '60M':
        message.opening ??= balance(field, 'opening balance');
        break;
      case '62F':
      case '62M':
        message.closing = balance(field, 'closing balance');
        last = null;
        break;
      case '61': {
        if (!message.opening) throw malformed(`Line ${field.line}: a statement line (:61:) comes before the opening balance (:60F:)`);
        const entry = statementLine(field, message.opening);
        message.entries.push(entry);
        if (++entryCount > READ_LIMITS.entries) throw tooManyEntries();
        last = { entry, field };
        break;
      }
      case '86':
        // An 86 after a statement line tells about it; one after the closing balance about the statement.
        if (last) {
          const info = readField86(field.lines);
          const { entry } = last;
          entry.end_to_end_id = info.end_to_end_id;
          entry.structured_reference = info.structured_reference;
          entry.remittance_text = info.remittance_text;
          entry.counterparty_name = info.counterparty_name;
          entry.counterparty_account = info.counterparty_account;
          if (info.transaction_code) entry.bank_code = `${entry.bank_code}/${info.transaction_code}`;
          last = null;
        }
        break;
      default:
        break;
    }
  }
  return merge(messages);
}

function statementLine(field: Field, opening: Balance): StatementEntry {
  const m = LINE_RE.exec(field.lines[0]);
  const valueOn = m ? swiftDay(m[1]) : null;
  const cents = m ? decimalToCents(m[5]) : null;
  if (!m || !valueOn || cents === null) {
    throw malformed(`Line ${field.line}: the statement line (:61:) "${snippet(field.lines[0])}" is not a date YYMMDD, C or D, an amount and a transaction type such as NTRF`);
  }
  const bookedOn = m[2] ? entryDate(valueOn, m[2]) : valueOn;
  if (!bookedOn) throw malformed(`Line ${field.line}: the entry date "${m[2]}" of the statement line (:61:) is not a date MMDD`);
  // A reversal of a credit takes money out; a reversal of a debit puts it back.
  const direction = m[3] === 'C' || m[3] === 'RD' ? 'credit' : 'debit';
  const customerRef = m[7].trim();
  const bankRef = (m[8] ?? '').trim();
  return {
    booked_on: bookedOn,
    value_on: valueOn,
    amount_cents: cents,
    direction,
    currency: opening.currency,
    bank_reference: bankRef || (customerRef && customerRef !== 'NONREF' ? customerRef : null),
    end_to_end_id: null,
    structured_reference: null,
    remittance_text: '',
    counterparty_name: null,
    counterparty_account: null,
    bank_code: m[6],
  };
}

/** MMDD of the booking, in the year that puts it nearest the value date (a booking may cross New Year). */
function entryDate(valueOn: string, mmdd: string): string | null {
  const year = Number(valueOn.slice(0, 4));
  const candidates = [year - 1, year, year + 1].map((y) => swiftDay(`${String(y % 100).padStart(2, '0')}${mmdd}`)).filter((d): d is string => d !== null);
  const distance = (d: string) => Math.abs(Date.parse(d) - Date.parse(valueOn));
  return candidates.sort((a, b) => distance(a) - distance(b))[0] ?? null;
}

function merge(messages: Message[]): ParsedStatement {
  const accounts = [...new Set(messages.map((m) => m.account))];
  if (accounts.includes(null)) {
    const missing = messages.find((m) => m.account === null) as Message;
    throw malformed(`The MT940 statement starting on line ${missing.firstLine} has no account (:25:)`);
  }
  if (accounts.length > 1) throw malformed(`The file holds statements of ${accounts.length} accounts (${accounts.join(', ')}); import one account at a time`);
  const first = messages[0];
  const lastMessage = messages[messages.length - 1];
  const currency = first.opening?.currency ?? null;
  if (!isCurrency(currency)) throw malformed(`The MT940 statement starting on line ${first.firstLine} has no opening balance (:60F:)`);
  const warnings: string[] = [];
  for (const m of messages) {
    if (!m.opening || !m.closing) continue;
    const net = m.entries.reduce((sum, e) => sum + (e.direction === 'credit' ? e.amount_cents : -e.amount_cents), 0);
    if (m.opening.cents + net !== m.closing.cents) {
      warnings.push(
        `Statement ${m.statementRef ?? `on line ${m.firstLine}`}: the opening balance ${money(m.opening.cents)} and the entries (${money(net)}) do not add up to the closing balance ${money(m.closing.cents)}`,
      );
    }
  }
  const entries = messages.flatMap((m) => m.entries);
  const dates = entries.map((e) => e.booked_on).sort();
  return {
    format: 'mt940',
    statement_id: messages.map((m) => m.statementRef).filter((r) => r).join(', ') || null,
    account: accountOf(accounts[0] as string, currency),
    currency,
    period_start: dates[0] ?? first.opening?.date ?? null,
    period_end: lastMessage.closing?.date ?? dates[dates.length - 1] ?? null,
    opening_balance_cents: first.opening?.cents ?? null,
    closing_balance_cents: lastMessage.closing?.cents ?? null,
    entries,
    warnings,
  };
}

/** ING writes the IBAN followed by the currency ("NL69INGB0123456789EUR"): the account is the IBAN. */
function accountOf(field25: string, currency: string): string {
  return /^[A-Z]{2}\d{2}[A-Z0-9]+$/.test(field25) && field25.endsWith(currency) && field25.length > 18 ? field25.slice(0, -3) : field25;
}

function money(cents: number): string {
  return (cents / 100).toFixed(2);
}

function snippet(line: string): string {
  return line.length > 40 ? `${line.slice(0, 40)}...` : line;
}
