/**
 * ISO 20022 camt.053 (statement) and camt.054 (debit/credit notification), any version from
 * 001.02 on: the versions differ in namespace and in a few places (Sts as text or Sts/Cd, Dbtr/Nm
 * or Dbtr/Pty/Nm, the transaction amount in TxDtls/Amt or TxDtls/AmtDtls/TxAmt/Amt), so elements
 * are read by local name with each version's place tried in turn.
 *
 * A batch entry (one booking, several TxDtls whose amounts add up to it) becomes one entry per
 * transaction: each is a payment of its own to match. Anything else stays one entry.
 */
import type { ParsedStatement, StatementEntry } from '../statement';
import { READ_LIMITS, clean, decimalToCents, isCurrency, isoDay, malformed, tooManyEntries } from './values';
import { type XmlNode, type XmlValue, attribute, child, children, parseXml, text } from './xml';

const REPEATED = new Set(['Stmt', 'Ntfctn', 'Bal', 'Ntry', 'NtryDtls', 'TxDtls', 'Ustrd', 'Strd', 'RfrdDocInf', 'AddtlRmtInf']);

/** Statuses of entries that are not (yet) on the account. */
const NOT_BOOKED = new Set(['PDNG', 'INFO', 'FUTR']);

export function readCamt(xml: string): ParsedStatement {
  const root = parseXml(xml, REPEATED);
  const document = findDocument(root);
  if (!document) throw malformed('The XML has no ISO 20022 Document element');
  const statementMsg = child(document, 'BkToCstmrStmt');
  const notificationMsg = child(document, 'BkToCstmrDbtCdtNtfctn');
  if (!statementMsg && !notificationMsg) {
    throw malformed('The XML Document holds neither a camt.053 statement (BkToCstmrStmt) nor a camt.054 notification (BkToCstmrDbtCdtNtfctn)');
  }
  const format = statementMsg ? 'camt.053' : 'camt.054';
  const parts = statementMsg ? children(statementMsg, 'Stmt') : children(notificationMsg, 'Ntfctn');
  const partName = statementMsg ? 'Stmt' : 'Ntfctn';
  if (parts.length === 0) throw malformed(`The camt file has no ${partName} element`);
  const read = parts.map((part, i) => readPart(part, `${partName} ${i + 1}`));
  return merge(format, read);
}

/** The Document, at the root or one level down (inside a business message envelope). */
function findDocument(root: XmlNode): XmlValue | undefined {
  if (root.Document) return child(root, 'Document');
  for (const value of Object.values(root)) {
    const inner = child(value, 'Document');
    if (inner) return inner;
  }
  return undefined;
}

interface Part {
  id: string | null;
  account: string;
  currency: string | null;
  periodStart: string | null;
  periodEnd: string | null;
  opening: number | null;
  closing: number | null;
  entries: StatementEntry[];
  skipped: number;
}

function readPart(part: XmlValue, where: string): Part {
  const acct = child(part, 'Acct');
  const account = clean(text(acct, 'Id', 'IBAN') ?? text(acct, 'Id', 'Othr', 'Id'));
  if (!account) throw malformed(`${where} has no account (Acct/Id/IBAN or Acct/Id/Othr/Id)`);
  const id = clean(text(part, 'Id'));
  const label = id ? `${where} (${id})` : where;
  const entries: StatementEntry[] = [];
  let skipped = 0;
  children(part, 'Ntry').forEach((ntry, i) => {
    const status = clean(text(ntry, 'Sts', 'Cd') ?? text(ntry, 'Sts'));
    if (status && NOT_BOOKED.has(status)) {
      skipped++;
      return;
    }
    for (const entry of readEntry(ntry, `${label}, Ntry ${i + 1}`)) {
      entries.push(entry);
      if (entries.length > READ_LIMITS.entries) throw tooManyEntries();
    }
  });
  const balances = children(part, 'Bal');
  return {
    id,
    account: account.replace(/\s+/g, ''),
    currency: clean(text(acct, 'Ccy')),
    periodStart: isoDay(text(part, 'FrToDt', 'FrDtTm') ?? text(part, 'FrToDt', 'FrDt')),
    periodEnd: isoDay(text(part, 'FrToDt', 'ToDtTm') ?? text(part, 'FrToDt', 'ToDt')),
    opening: balanceOf(balances, ['OPBD', 'PRCD'], label),
    closing: balanceOf(balances, ['CLBD'], label),
    entries,
    skipped,
  };
}

/** The first balance of the first code found, in signed cents. */
function balanceOf(balances: XmlValue[], codes: string[], where: string): number | null {
  for (const code of codes) {
    const bal = balances.find((b) => text(b, 'Tp', 'CdOrPrtry', 'Cd') === code);
    if (!bal) continue;
    const cents = amountOf(bal, `${where}, balance ${code}`);
    return text(bal, 'CdtDbtInd') === 'DBIT' ? -cents : cents;
  }
  return null;
}

function amountOf(node: XmlValue, where: string): number {
  const raw = text(node, 'Amt');
  const cents = raw === null ? null : decimalToCents(raw);
  if (cents === null) throw malformed(`${where}: Amt ${raw === null ? 'is missing' : `"${raw}" is not an amount`}`);
  return cents;
}

function directionOf(node: XmlValue, where: string): 'credit' | 'debit' {
  const indicator = text(node, 'CdtDbtInd');
  if (indicator === 'CRDT') return 'credit';
  if (indicator === 'DBIT') return 'debit';
  throw malformed(`${where}: CdtDbtInd ${indicator === null ? 'is missing' : `"${indicator}" is neither CRDT nor DBIT`}`);
}

function readEntry(ntry: XmlValue, where: string): StatementEntry[] {
  const amount = amountOf(ntry, where);
  const direction = directionOf(ntry, where);
  const currency = attribute(child(ntry, 'Amt'), 'Ccy');
  if (!isCurrency(currency)) throw malformed(`${where}: Amt has no currency (Ccy)`);
  const booked = isoDay(text(ntry, 'BookgDt', 'Dt') ?? text(ntry, 'BookgDt', 'DtTm'));
  const value = isoDay(text(ntry, 'ValDt', 'Dt') ?? text(ntry, 'ValDt', 'DtTm'));
  if (!booked && !value) throw malformed(`${where} has no booking date (BookgDt/Dt or BookgDt/DtTm)`);
  const entryRef = clean(text(ntry, 'AcctSvcrRef') ?? text(ntry, 'NtryRef'));
  const entryCode = bankCode(child(ntry, 'BkTxCd'));
  const entryText = clean(text(ntry, 'AddtlNtryInf'));
  const txs = children(ntry, 'NtryDtls').flatMap((details) => children(details, 'TxDtls'));
  const base = { booked_on: (booked ?? value) as string, value_on: value, currency, direction };

  const split = splitAmounts(txs, amount, currency, direction);
  if (split) {
    const refs = txs.map((tx) => clean(text(tx, 'Refs', 'AcctSvcrRef')));
    const refsUnique = refs.every((r) => r !== null) && new Set(refs).size === refs.length;
    return txs.map((tx, i) => {
      const own = details([tx], direction);
      return {
        ...base,
        ...own,
        amount_cents: split[i],
        bank_reference: refsUnique ? refs[i] : entryRef ? `${entryRef}/${i + 1}` : null,
        bank_code: bankCode(child(tx, 'BkTxCd')) ?? entryCode,
        remittance_text: joinText([own.remittance_text, entryText]),
      };
    });
  }
  const merged = details(txs, direction);
  return [
    {
      ...base,
      ...merged,
      amount_cents: amount,
      bank_reference: entryRef ?? clean(text(txs[0], 'Refs', 'AcctSvcrRef')),
      bank_code: entryCode,
      remittance_text: joinText([merged.remittance_text, entryText]),
    },
  ];
}

/** The transactions' own amounts when there are several, all given, and they add up to the entry. */
function splitAmounts(txs: XmlValue[], total: number, currency: string, direction: 'credit' | 'debit'): number[] | null {
  if (txs.length < 2) return null;
  const amounts: number[] = [];
  for (const tx of txs) {
    // 001.04 on: TxDtls/Amt; 001.02: TxDtls/AmtDtls/TxAmt/Amt.
    const owner = child(tx, 'Amt') !== undefined ? tx : child(tx, 'AmtDtls', 'TxAmt');
    const cents = decimalToCents(text(owner, 'Amt') ?? '');
    const txDirection = text(tx, 'CdtDbtInd');
    if (cents === null || attribute(child(owner, 'Amt'), 'Ccy') !== currency) return null;
    if (txDirection && txDirection !== (direction === 'credit' ? 'CRDT' : 'DBIT')) return null;
    amounts.push(cents);
  }
  return amounts.reduce((a, b) => a + b, 0) === total ? amounts : null;
}

type Details = Pick<StatementEntry, 'end_to_end_id' | 'structured_reference' | 'remittance_text' | 'counterparty_name' | 'counterparty_account'>;

/** References, remittance information and the other party of one or more transactions. */
function details(txs: XmlValue[], direction: 'credit' | 'debit'): Details {
  const texts: string[] = [];
  let structured: string | null = null;
  let endToEnd: string | null = null;
  let name: string | null = null;
  let account: string | null = null;
  // For a credit the other party is the payer (debtor); for a debit, the payee (creditor).
  const [party, partyAccount, ultimate] = direction === 'credit' ? ['Dbtr', 'DbtrAcct', 'UltmtDbtr'] : ['Cdtr', 'CdtrAcct', 'UltmtCdtr'];
  for (const tx of txs) {
    const e2e = clean(text(tx, 'Refs', 'EndToEndId'));
    if (e2e && e2e.toUpperCase() !== 'NOTPROVIDED') endToEnd ??= e2e;
    const rmt = child(tx, 'RmtInf');
    for (const line of children(rmt, 'Ustrd')) texts.push(text(line) ?? '');
    for (const strd of children(rmt, 'Strd')) {
      const ref = clean(text(strd, 'CdtrRefInf', 'Ref'));
      if (ref) {
        if (structured === null) structured = ref.replace(/\s+/g, '');
        else texts.push(ref);
      }
      for (const doc of children(strd, 'RfrdDocInf')) {
        const number = clean(text(doc, 'Nb'));
        if (number) texts.push(number);
      }
      for (const info of children(strd, 'AddtlRmtInf')) texts.push(text(info) ?? '');
    }
    const parties = child(tx, 'RltdPties');
    name ??= clean(text(parties, party, 'Nm') ?? text(parties, party, 'Pty', 'Nm') ?? text(parties, ultimate, 'Nm') ?? text(parties, ultimate, 'Pty', 'Nm'));
    account ??= clean(text(parties, partyAccount, 'Id', 'IBAN') ?? text(parties, partyAccount, 'Id', 'Othr', 'Id'));
  }
  return {
    end_to_end_id: endToEnd,
    structured_reference: structured,
    remittance_text: joinText(texts),
    counterparty_name: name,
    counterparty_account: account ? account.replace(/\s+/g, '') : null,
  };
}

function joinText(parts: Array<string | null>): string {
  return clean(parts.filter((p) => p).join(' ')) ?? '';
}

/** "PMNT/RCDT/ESCT" from the ISO domain, else the bank's proprietary code. */
function bankCode(node: XmlValue | undefined): string | null {
  if (!node) return null;
  const domain = text(node, 'Domn', 'Cd');
  if (domain) return [domain, text(node, 'Domn', 'Fmly', 'Cd'), text(node, 'Domn', 'Fmly', 'SubFmlyCd')].filter((c) => c).join('/');
  return clean(text(node, 'Prtry', 'Cd'));
}

/** Several Stmt (one per day, as banks send a period) of one account become one statement. */
function merge(format: 'camt.053' | 'camt.054', parts: Part[]): ParsedStatement {
  const accounts = [...new Set(parts.map((p) => p.account))];
  if (accounts.length > 1) throw malformed(`The file holds statements of ${accounts.length} accounts (${accounts.join(', ')}); import one account at a time`);
  const entries = parts.flatMap((p) => p.entries);
  const currency = parts.find((p) => isCurrency(p.currency))?.currency ?? mostCommonCurrency(entries);
  if (!currency) throw malformed('The statement names no currency (Acct/Ccy) and has no entries to tell it from');
  const booked = entries.map((e) => e.booked_on).sort();
  const warnings: string[] = [];
  const skipped = parts.reduce((n, p) => n + p.skipped, 0);
  if (skipped > 0) warnings.push(`${skipped} pending or information-only ${skipped === 1 ? 'entry was' : 'entries were'} left out: only booked entries are imported`);
  for (const part of parts) {
    if (part.opening === null || part.closing === null) continue;
    const net = part.entries.reduce((sum, e) => (e.currency !== currency ? sum : e.direction === 'credit' ? sum + e.amount_cents : sum - e.amount_cents), 0);
    if (part.opening + net !== part.closing) {
      warnings.push(`${part.id ?? 'A statement'}: the opening balance and the entries do not add up to the closing balance (${cents(part.opening + net)} against ${cents(part.closing)})`);
    }
  }
  return {
    format,
    statement_id: parts.length === 1 ? parts[0].id : parts.map((p) => p.id).filter((id) => id).join(', ') || null,
    account: accounts[0],
    currency,
    period_start: parts[0].periodStart ?? booked[0] ?? null,
    period_end: parts[parts.length - 1].periodEnd ?? booked[booked.length - 1] ?? null,
    opening_balance_cents: parts[0].opening,
    closing_balance_cents: parts[parts.length - 1].closing,
    entries,
    warnings,
  };
}

function mostCommonCurrency(entries: StatementEntry[]): string | null {
  const counts = new Map<string, number>();
  for (const e of entries) counts.set(e.currency, (counts.get(e.currency) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null;
}

function cents(value: number): string {
  return (value / 100).toFixed(2);
}
