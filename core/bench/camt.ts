/**
 * A camt.053.001.08 statement written out from entries, as a bank sends one: the benchmark's
 * 10,000-entry file and the matching tests' statements with known truth.
 */
export interface CamtEntry {
  booked_on: string;
  /** Positive minor units. */
  amount_cents: number;
  direction: 'credit' | 'debit';
  currency?: string;
  /** The bank's reference of the entry (AcctSvcrRef). */
  reference: string;
  end_to_end_id?: string | null;
  /** Unstructured remittance lines. */
  text?: string | null;
  /** A structured creditor reference (e.g. an RF reference). */
  creditor_reference?: string | null;
  /** The other party: the debtor of a credit, the creditor of a debit. */
  party_name?: string | null;
  party_iban?: string | null;
  /** Bank transaction code, e.g. PMNT/RCDT/ESCT. */
  code?: string;
}

export interface CamtStatement {
  id: string;
  iban: string;
  currency: string;
  from: string;
  to: string;
  opening_cents: number;
  entries: CamtEntry[];
}

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const amount = (cents: number) => (cents / 100).toFixed(2);

function balance(code: string, cents: number, currency: string, date: string): string {
  return `<Bal><Tp><CdOrPrtry><Cd>${code}</Cd></CdOrPrtry></Tp><Amt Ccy="${currency}">${amount(Math.abs(cents))}</Amt><CdtDbtInd>${cents < 0 ? 'DBIT' : 'CRDT'}</CdtDbtInd><Dt><Dt>${date}</Dt></Dt></Bal>`;
}

function entry(e: CamtEntry, accountCurrency: string): string {
  const ccy = e.currency ?? accountCurrency;
  const [domain, family, sub] = (e.code ?? (e.direction === 'credit' ? 'PMNT/RCDT/ESCT' : 'PMNT/ICDT/ESCT')).split('/');
  const party = e.direction === 'credit' ? 'Dbtr' : 'Cdtr';
  const parties = [
    e.party_name ? `<${party}><Pty><Nm>${escape(e.party_name)}</Nm></Pty></${party}>` : '',
    e.party_iban ? `<${party}Acct><Id><IBAN>${escape(e.party_iban)}</IBAN></Id></${party}Acct>` : '',
  ].join('');
  const remittance = [
    e.text ? `<Ustrd>${escape(e.text)}</Ustrd>` : '',
    e.creditor_reference ? `<Strd><CdtrRefInf><Tp><CdOrPrtry><Cd>SCOR</Cd></CdOrPrtry><Issr>ISO</Issr></Tp><Ref>${escape(e.creditor_reference)}</Ref></CdtrRefInf></Strd>` : '',
  ].join('');
  return [
    '<Ntry>',
    `<NtryRef>${escape(e.reference)}</NtryRef>`,
    `<Amt Ccy="${ccy}">${amount(e.amount_cents)}</Amt>`,
    `<CdtDbtInd>${e.direction === 'credit' ? 'CRDT' : 'DBIT'}</CdtDbtInd>`,
    '<Sts><Cd>BOOK</Cd></Sts>',
    `<BookgDt><Dt>${e.booked_on}</Dt></BookgDt>`,
    `<ValDt><Dt>${e.booked_on}</Dt></ValDt>`,
    `<AcctSvcrRef>${escape(e.reference)}</AcctSvcrRef>`,
    `<BkTxCd><Domn><Cd>${domain}</Cd><Fmly><Cd>${family}</Cd><SubFmlyCd>${sub}</SubFmlyCd></Fmly></Domn></BkTxCd>`,
    '<NtryDtls><TxDtls>',
    `<Refs><AcctSvcrRef>${escape(e.reference)}</AcctSvcrRef><EndToEndId>${escape(e.end_to_end_id ?? 'NOTPROVIDED')}</EndToEndId></Refs>`,
    `<Amt Ccy="${ccy}">${amount(e.amount_cents)}</Amt>`,
    `<CdtDbtInd>${e.direction === 'credit' ? 'CRDT' : 'DBIT'}</CdtDbtInd>`,
    parties ? `<RltdPties>${parties}</RltdPties>` : '',
    remittance ? `<RmtInf>${remittance}</RmtInf>` : '',
    '</TxDtls></NtryDtls>',
    '</Ntry>',
  ].join('');
}

/** The statement as camt.053.001.08 XML, its closing balance the opening one plus the entries in the account's currency. */
export function camt053(s: CamtStatement): string {
  const closing = s.entries.reduce((sum, e) => ((e.currency ?? s.currency) === s.currency ? sum + (e.direction === 'credit' ? e.amount_cents : -e.amount_cents) : sum), s.opening_cents);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08">',
    '<BkToCstmrStmt>',
    `<GrpHdr><MsgId>${escape(s.id)}</MsgId><CreDtTm>${s.to}T18:00:00Z</CreDtTm></GrpHdr>`,
    '<Stmt>',
    `<Id>${escape(s.id)}</Id>`,
    `<CreDtTm>${s.to}T18:00:00Z</CreDtTm>`,
    `<FrToDt><FrDtTm>${s.from}T00:00:00Z</FrDtTm><ToDtTm>${s.to}T23:59:59Z</ToDtTm></FrToDt>`,
    `<Acct><Id><IBAN>${escape(s.iban)}</IBAN></Id><Ccy>${s.currency}</Ccy></Acct>`,
    balance('OPBD', s.opening_cents, s.currency, s.from),
    balance('CLBD', closing, s.currency, s.to),
    ...s.entries.map((e) => entry(e, s.currency)),
    '</Stmt>',
    '</BkToCstmrStmt>',
    '</Document>',
    '',
  ].join('\n');
}
