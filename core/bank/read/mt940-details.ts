/**
 * MT940 field 86 (information to the account owner) in the three forms banks write it:
 * - German (DFÜ-Abkommen, Anlage 3): a three-digit transaction code, then ?NN subfields: ?20..?29 and
 *   ?60..?63 the purpose (with SEPA identifiers EREF+, SVWZ+, ...), ?30 bank, ?31 account, ?32..?33 name;
 * - structured codes (ING, ABN AMRO, Rabobank, SWIFT's own): /EREF/.../REMI/USTD//.../CNTP/iban/bic/name/city/;
 * - free text.
 * A line break inside the field is where the bank wrapped at 65 characters, often mid-word.
 */
import { clean } from './values';

export interface Field86 {
  end_to_end_id: string | null;
  structured_reference: string | null;
  remittance_text: string;
  counterparty_name: string | null;
  counterparty_account: string | null;
  /** The German transaction code (Geschäftsvorfallcode), e.g. "166" for a SEPA credit transfer. */
  transaction_code: string | null;
}

const GERMAN_RE = /^(\d{3})\?/;
const STRUCTURED_CODES = ['EREF', 'REMI', 'NAME', 'IBAN', 'CNTP', 'ORDP', 'BENM', 'PREF', 'RTRN', 'MARF', 'CSID', 'BIC', 'ADDR', 'SUM', 'PURP', 'ULTC', 'ULTD', 'ULTB', 'ISDT', 'TRCD', 'IREF', 'KREF', 'CREF', 'SVWZ'];
const STRUCTURED_RE = new RegExp(`/(${STRUCTURED_CODES.join('|')})/`, 'g');
const SEPA_IDENTIFIERS = ['EREF', 'KREF', 'MREF', 'CRED', 'DEBT', 'COAM', 'OAMT', 'SVWZ', 'ABWA', 'ABWE', 'BREF', 'RREF', 'PURP', 'IBAN', 'BIC'];
const SEPA_RE = new RegExp(`(${SEPA_IDENTIFIERS.join('|')})\\+`, 'g');

/** `lines`: the field's lines as the file has them, the first without its ":86:" tag. */
export function readField86(lines: string[]): Field86 {
  const first = lines[0] ?? '';
  if (GERMAN_RE.test(first)) return german(lines.join(''));
  const joined = lines.join('');
  if (first.startsWith('/') && hasStructuredCode(joined)) return structured(joined);
  return freeText(lines);
}

function hasStructuredCode(text: string): boolean {
  // matchAll copies a global pattern's lastIndex, so the test uses a pattern of its own.
  return new RegExp(STRUCTURED_RE.source).test(text);
}

const empty = (): Field86 => ({ end_to_end_id: null, structured_reference: null, remittance_text: '', counterparty_name: null, counterparty_account: null, transaction_code: null });

function german(text: string): Field86 {
  const out = empty();
  out.transaction_code = text.slice(0, 3);
  const subfields = new Map<number, string>();
  for (const m of text.slice(3).matchAll(/\?(\d{2})([^?]*)/g)) {
    const key = Number(m[1]);
    subfields.set(key, (subfields.get(key) ?? '') + m[2]);
  }
  const purposeKeys = [20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 60, 61, 62, 63];
  const purpose = purposeKeys.map((k) => subfields.get(k) ?? '').join('');
  const identified = splitIdentifiers(purpose);
  if (identified.size > 0) {
    out.end_to_end_id = notProvided(identified.get('EREF'));
    out.remittance_text = clean(identified.get('SVWZ') ?? '') ?? '';
    out.counterparty_name = clean(identified.get('ABWA') ?? null);
  } else {
    out.remittance_text = clean(purpose) ?? '';
  }
  out.counterparty_name = clean(`${subfields.get(32) ?? ''}${subfields.get(33) ?? ''}`) ?? out.counterparty_name;
  out.counterparty_account = compact(subfields.get(31));
  return out;
}

/** "EREF+abc SVWZ+text" to its identifiers; text before the first identifier is dropped. */
function splitIdentifiers(purpose: string): Map<string, string> {
  const found = [...purpose.matchAll(SEPA_RE)];
  const out = new Map<string, string>();
  found.forEach((m, i) => {
    const start = (m.index ?? 0) + m[0].length;
    const end = i + 1 < found.length ? (found[i + 1].index ?? purpose.length) : purpose.length;
    out.set(m[1], (out.get(m[1]) ?? '') + purpose.slice(start, end));
  });
  return out;
}

function structured(text: string): Field86 {
  const out = empty();
  const codes = new Map<string, string>();
  const found = [...text.matchAll(STRUCTURED_RE)];
  found.forEach((m, i) => {
    const start = (m.index ?? 0) + m[0].length;
    const end = i + 1 < found.length ? (found[i + 1].index ?? text.length) : text.length;
    if (!codes.has(m[1])) codes.set(m[1], text.slice(start, end));
  });
  out.end_to_end_id = notProvided(trimSlashes(codes.get('EREF')));
  const remi = codes.get('REMI');
  if (remi !== undefined) {
    const m = /^(USTD|STRD)\/(.*)$/s.exec(remi);
    if (m?.[1] === 'STRD') {
      // STRD/<issuer>/<reference>/: the issuer is "CUR" (the Dutch currency-neutral reference) or "ISO" (RF).
      const parts = m[2].split('/').filter((p) => p !== '');
      out.structured_reference = parts.length > 0 ? parts[parts.length - 1] : null;
    } else {
      out.remittance_text = clean(trimSlashes(m ? m[2] : remi)) ?? '';
    }
  }
  // The other party: CNTP (ING: account/BIC/name/city), ORDP or BENM (//NAME/.../ID/...), or NAME and IBAN.
  const party = codes.get('CNTP') ?? codes.get('ORDP') ?? codes.get('BENM');
  if (party !== undefined && codes.has('CNTP')) {
    const [account, , name] = party.split('/');
    out.counterparty_account = compact(account);
    out.counterparty_name = clean(name ?? null);
  }
  out.counterparty_name ??= clean(trimSlashes(codes.get('NAME')) ?? null);
  out.counterparty_account ??= compact(trimSlashes(codes.get('IBAN')));
  return out;
}

function freeText(lines: string[]): Field86 {
  const out = empty();
  // A line of the full 65 characters (the first one's ":86:" tag counted) was wrapped by the bank,
  // possibly mid-word; a shorter one ended where the writer ended it.
  let text = '';
  lines.forEach((line, i) => {
    const previousFull = i > 0 && lines[i - 1].length + (i === 1 ? 4 : 0) >= 65;
    text += i === 0 || previousFull ? line : ` ${line}`;
  });
  out.remittance_text = clean(text) ?? '';
  return out;
}

function trimSlashes(value: string | undefined): string | undefined {
  return value?.replace(/^\/+|\/+$/g, '');
}

function notProvided(value: string | undefined): string | null {
  const v = clean(value ?? null);
  return v && v.toUpperCase() !== 'NOTPROVIDED' ? v : null;
}

function compact(value: string | undefined): string | null {
  const v = value?.replace(/\s+/g, '') ?? '';
  return v === '' ? null : v;
}
