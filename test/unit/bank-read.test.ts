import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectStatementFormat, readStatement } from '../../core/bank/read/detect';
import { BankMappingSchema, readMappedStatement } from '../../core/bank/read/table';
import type { ParsedStatement } from '../../core/bank/statement';
import { DomainError } from '../../core/errors';
import { readCsvTable, readTable } from '../../core/import/table';
import { workbook } from '../support/import-fixtures';

const fixture = (name: string) => readFileSync(resolve(__dirname, '../fixtures/bank', name));
const read = (name: string) => readStatement(fixture(name), name);
const sum = (s: ParsedStatement, direction: 'credit' | 'debit') => s.entries.filter((e) => e.direction === direction).reduce((t, e) => t + e.amount_cents, 0);

/** The domain error a read throws (a test fails if none is thrown). */
function refusal(read: () => unknown): DomainError {
  try {
    read();
  } catch (err) {
    if (err instanceof DomainError) return err;
    throw err;
  }
  throw new Error('the read was not refused');
}

describe('camt.053 and camt.054 (ISO 20022)', () => {
  it('reads the Finnish banks published camt.053.001.02 sample: batch entries split, balances, payers and references', () => {
    const s = read('camt053-fi-fffs-001.02.xml');
    expect(s).toMatchObject({
      format: 'camt.053',
      statement_id: 'BANKSTMTID0972009',
      account: 'FI7433010001222090',
      currency: 'CHF',
      period_start: '2017-07-29',
      period_end: '2017-07-29',
      opening_balance_cents: 1_000_000,
      closing_balance_cents: 2_364_483,
      warnings: [],
    });
    // 10 bookings; the 3-payment batch and the 2-charge batch become one entry per payment.
    expect(s.entries).toHaveLength(13);
    // The sample's own transaction summary: 6 credits for 23,075.00, debits for 9,430.17.
    expect(s.entries.filter((e) => e.direction === 'credit')).toHaveLength(6);
    expect(sum(s, 'credit')).toBe(2_307_500);
    expect(sum(s, 'debit')).toBe(943_017);
    expect(s.entries.slice(2, 5).map((e) => [e.amount_cents, e.bank_reference, e.structured_reference, e.remittance_text])).toEqual([
      [200_002, '091029ARCH03001', '3900', ''],
      [100_001, '091029ARCH03002', null, 'Invoices 123 and 321'],
      [123_002, '091029ARCH03003', null, '217827182718'],
    ]);
    // The two charges share one transaction reference: the booking's reference numbers them.
    expect(s.entries.slice(11).map((e) => e.bank_reference)).toEqual(['091029ACCTSTMTARCH09/1', '091029ACCTSTMTARCH09/2']);
    expect(s.entries[9]).toEqual({
      booked_on: '2017-07-29',
      value_on: '2017-07-29',
      amount_cents: 545_500,
      direction: 'credit',
      currency: 'CHF',
      bank_reference: '091029ACCTSTMTARCH07',
      end_to_end_id: null,
      structured_reference: 'RF98123456789012',
      remittance_text: '',
      counterparty_name: 'PAYERS NAME2',
      counterparty_account: null,
      bank_code: 'PMNT/RCDT/PRCT',
    });
    // An incoming USD payment is booked in the account's CHF; its value date is the next day.
    expect(s.entries[8]).toMatchObject({ amount_cents: 212_000, currency: 'CHF', value_on: '2017-07-30', remittance_text: 'INVOICE US20291092', counterparty_name: 'DEBTOR NAME' });
  });

  it('reads the same credit from 001.04 (Dbtr/Nm, BookgDt/Dt) and 001.08 (Dbtr/Pty/Nm, BookgDt/DtTm, Sts/Cd)', () => {
    for (const [file, e2e] of [
      ['camt053-genkgo-001.04.xml', null],
      ['camt053-genkgo-001.08.xml', 'MUELL/FINP/RA12345'],
    ] as const) {
      const s = read(file);
      expect(s).toMatchObject({ format: 'camt.053', account: 'NL26VAYB8060476890', opening_balance_cents: 1815, closing_balance_cents: -2700 });
      expect(s.entries).toEqual([
        expect.objectContaining({
          booked_on: '2014-12-31',
          value_on: '2015-01-02',
          amount_cents: 885,
          direction: 'credit',
          currency: 'EUR',
          bank_reference: 'AAAASESS-FP-CN_98765/01',
          end_to_end_id: e2e,
          structured_reference: '4654654654654654',
          counterparty_name: 'NAME NAME',
          counterparty_account: 'NL56AGDH9619008421',
        }),
      ]);
      // 18.15 + 8.85 is not the closing -27.00 (these samples' balances do not add up): kept, and said.
      expect(s.warnings).toEqual([expect.stringContaining('do not add up')]);
    }
  });

  it('joins the day statements of one account in a file, and refuses a file of two accounts', () => {
    const text = fixture('camt053-fi-fffs-001.02.xml').toString('utf8');
    const stmt = text.slice(text.indexOf('<Stmt>'), text.indexOf('</Stmt>') + '</Stmt>'.length);
    // The next day: a copy of the first, opening where the first closed (23,644.83) and closing at 23,744.83.
    const nextDay = stmt
      .replace('BANKSTMTID0972009', 'BANKSTMTID0982009')
      .replace(/2017-07-29/g, '2017-07-30')
      .replace('<Amt Ccy="CHF">10000.00</Amt>\n\t\t\t\t<CdtDbtInd>CRDT</CdtDbtInd>\n\t\t\t\t<Dt>', '<Amt Ccy="CHF">23644.83</Amt>\n\t\t\t\t<CdtDbtInd>CRDT</CdtDbtInd>\n\t\t\t\t<Dt>')
      .replace('<Amt Ccy="CHF">23644.83</Amt>\n\t\t\t\t<CdtDbtInd>CRDT</CdtDbtInd>\n\t\t\t\t<Dt>\n\t\t\t\t\t<Dt>2017-07-30</Dt>\n\t\t\t\t</Dt>\n\t\t\t</Bal>\n\t\t\t<Bal>\n\t\t\t\t<Tp>\n\t\t\t\t\t<CdOrPrtry>\n\t\t\t\t\t\t<Cd>CLAV', '<Amt Ccy="CHF">23744.83</Amt>\n\t\t\t\t<CdtDbtInd>CRDT</CdtDbtInd>\n\t\t\t\t<Dt>\n\t\t\t\t\t<Dt>2017-07-30</Dt>\n\t\t\t\t</Dt>\n\t\t\t</Bal>\n\t\t\t<Bal>\n\t\t\t\t<Tp>\n\t\t\t\t\t<CdOrPrtry>\n\t\t\t\t\t\t<Cd>CLAV');
    const twoDays = text.replace('</Stmt>', `</Stmt>${nextDay}`);
    const s = readStatement(Buffer.from(twoDays));
    expect(s).toMatchObject({ statement_id: 'BANKSTMTID0972009, BANKSTMTID0982009', period_start: '2017-07-29', period_end: '2017-07-30', opening_balance_cents: 1_000_000, closing_balance_cents: 2_374_483 });
    expect(s.entries).toHaveLength(26);
    // Its 13 copied entries (+13,644.83) do not add up to that closing balance: said, not refused.
    expect(s.warnings).toEqual([expect.stringMatching(/^BANKSTMTID0982009: the opening balance and the entries do not add up/)]);
    const otherAccount = text.replace('</Stmt>', `</Stmt>${stmt.replace('FI7433010001222090', 'FI1533010001911270')}`);
    expect(refusal(() => readStatement(Buffer.from(otherAccount))).message).toBe(
      'The file holds statements of 2 accounts (FI7433010001222090, FI1533010001911270); import one account at a time',
    );
  });

  it('reads a camt.054 notification: one entry per payment of each batch, with its creditor reference', () => {
    const s = read('camt054-fi-fffs-001.02.xml');
    expect(s).toMatchObject({ format: 'camt.054', statement_id: 'BANKFILEID00001NTR00001', account: 'FI7433010001222090', currency: 'EUR', opening_balance_cents: null });
    expect(s.entries.map((e) => [e.amount_cents, e.counterparty_name, e.structured_reference, e.end_to_end_id])).toEqual([
      [190_000, 'PAYERS NAME1', '3900', null],
      [10_000, 'PAYERS NAME2', '43216', null],
      [250_000, 'AT-02 DEBTOR NAME 01', 'RF7812345', 'EndToEndIdAT-41-001'],
      [50_000, 'AT-02 DEBTOR NAME 02', null, 'EndToEndIdAT-41-002'],
    ]);
  });
});

describe('MT940', () => {
  it("reads ING's format guide example: field 86 codes /EREF/ /REMI/ /CNTP/, balances that add up", () => {
    const s = read('mt940-ing-spec-example.sta');
    expect(s).toMatchObject({
      format: 'mt940',
      statement_id: 'P140220000000001/00000',
      account: 'NL69INGB0123456789',
      currency: 'EUR',
      opening_balance_cents: 66_223,
      closing_balance_cents: 56_435,
      warnings: [],
    });
    expect(s.entries).toHaveLength(8);
    expect(s.entries[0]).toEqual({
      booked_on: '2014-02-20',
      value_on: '2014-02-20',
      amount_cents: 156,
      direction: 'credit',
      currency: 'EUR',
      bank_reference: '00000000001005',
      end_to_end_id: 'EV12341REP1231456T1234',
      structured_reference: null,
      remittance_text: 'EV10001REP1000000T1000',
      counterparty_name: 'ING BANK NV INZAKE WEB',
      counterparty_account: 'NL32INGB0000012345',
      bank_code: 'NTRF',
    });
    expect(s.entries[2]).toMatchObject({ remittance_text: 'Factuurnr 123456 Klantnr 00123', counterparty_name: 'J.Janssen', end_to_end_id: '20120123456789' });
    // /REMI/STRD/CUR/...: a structured payment reference; a continuation line joins without a gap.
    expect(s.entries[6]).toMatchObject({ amount_cents: 3200, structured_reference: '9001123412341234', counterparty_name: 'J.Janssen' });
    expect(s.entries[4].remittance_text).toBe('TOTAAL 1 POSTEN');
  });

  it("keeps the entries of ING's provided example although its balances do not add up, and says so", () => {
    const s = read('mt940-ing-provided-example.sta');
    expect(s.entries).toHaveLength(9);
    expect(sum(s, 'credit') - sum(s, 'debit')).toBe(334_215);
    expect(s.closing_balance_cents).toBe(488_215);
    expect(s.warnings).toEqual(['Statement P140104000009999/3: the opening balance 1000.00 and the entries (3342.15) do not add up to the closing balance 4882.15']);
  });

  it('reads the German ?20..?32 subfields (EREF+, SVWZ+, payer name and IBAN) and free text', () => {
    const s = read('mt940-dk-anlage3.sta');
    expect(s).toMatchObject({ account: '10020030/1234567', opening_balance_cents: 100_000, closing_balance_cents: 288_883, warnings: [] });
    expect(s.entries.map((e) => [e.direction, e.amount_cents, e.end_to_end_id, e.remittance_text, e.counterparty_name, e.counterparty_account, e.bank_code])).toEqual([
      ['credit', 73_450, '987654123456', 'Rechnung-Nr.734 und 123455056735', 'Max Mustermann', 'DE91370501980100558000', 'NTRF/166'],
      ['debit', 4567, '987654123497', 'Versicherungsbeitrag 2013', 'XYZ Versicherungs AG', 'DE87240501501234567890', 'NDDT/105'],
      ['credit', 120_000, null, 'Rechnung INV-10231 und INV-10232 Acme GmbH', null, null, 'NTRF'],
    ]);
    expect(s.entries[2].bank_reference).toBe('BANKREF77');
  });

  it('reads a file in Windows-1252 (older German exports) as well as UTF-8', () => {
    const text = fixture('mt940-dk-anlage3.sta').toString('utf8').replace('Max Mustermann', 'Jürgen Müßig');
    const latin1 = Buffer.from(text, 'latin1');
    expect(latin1.includes(Buffer.from('Jürgen', 'utf8'))).toBe(false);
    for (const bytes of [latin1, Buffer.from(text, 'utf8')]) expect(readStatement(bytes).entries[0].counterparty_name).toBe('Jürgen Müßig');
  });
});

describe('OFX', () => {
  it('reads the OFX 2.x specification example (XML)', () => {
    const s = read('ofx2-spec-11.14.1.ofx');
    expect(s).toMatchObject({ format: 'ofx', account: '121099999/999988', currency: 'USD', period_start: '2005-10-01', period_end: '2005-10-28', closing_balance_cents: 20_029 });
    expect(s.entries.map((e) => [e.booked_on, e.direction, e.amount_cents, e.bank_reference, e.bank_code])).toEqual([
      ['2005-10-04', 'debit', 20_000, '00002', 'CHECK'],
      ['2005-10-20', 'debit', 30_000, '00003', 'ATM'],
    ]);
  });

  it('reads OFX 1.x SGML (leaf elements left open): credits with payer, memo and the payer account', () => {
    const s = read('ofx1-sgml-credits.ofx');
    expect(s.entries).toHaveLength(3);
    expect(s.entries[0]).toMatchObject({ direction: 'credit', amount_cents: 125_000, counterparty_name: 'ROBERT KIM', remittance_text: 'INV-10061 & INV-10062', bank_reference: '2026110300001' });
    expect(s.entries[1]).toMatchObject({ booked_on: '2026-11-05', amount_cents: 48_015, counterparty_account: '026009593/4455667788', bank_code: 'DEP' });
    expect(s.entries[2]).toMatchObject({ direction: 'debit', amount_cents: 1250, bank_code: 'FEE' });
    expect(s.closing_balance_cents).toBe(571_765);
  });
});

describe('CSV and XLSX exports through a column mapping', () => {
  const mapping = BankMappingSchema.parse({
    account: 'DE02 1203 0000 0000 2020 51',
    currency: 'EUR',
    date: 'Buchungstag',
    value_date: 'Valuta',
    amount: 'Betrag',
    currency_column: 'Waehrung',
    payer: 'Auftraggeber/Empfänger',
    payer_account: 'IBAN',
    reference: ['Verwendungszweck'],
    bank_reference: 'Referenz',
    date_format: 'DD.MM.YYYY',
    decimal: ',',
  });

  it('reads a semicolon export with decimal commas, a sign, quoted text and a blank row', async () => {
    const table = await readCsvTable(fixture('bank-export-semicolon.csv').toString('utf8'), ';');
    const s = readMappedStatement(table, mapping, 'csv');
    expect(s).toMatchObject({ format: 'csv', account: 'DE02120300000000202051', currency: 'EUR', period_start: '2026-11-03', period_end: '2026-11-05' });
    expect(s.entries.map((e) => [e.booked_on, e.value_on, e.direction, e.amount_cents, e.currency, e.counterparty_name, e.counterparty_account, e.remittance_text, e.bank_reference])).toEqual([
      ['2026-11-03', '2026-11-03', 'credit', 73_450, 'EUR', 'Max Mustermann', 'DE91370501980100558000', 'Rechnung INV-10231', 'TX-0001'],
      ['2026-11-03', '2026-11-04', 'debit', 4567, 'EUR', 'XYZ Versicherungs AG', 'DE87240501501234567890', 'Versicherungsbeitrag', 'TX-0002'],
      ['2026-11-04', '2026-11-04', 'credit', 120_000, 'EUR', 'Acme GmbH; Buchhaltung', null, 'INV-10232, INV-10233', 'TX-0003'],
      ['2026-11-05', '2026-11-05', 'credit', 25_000, 'USD', 'Globex Corp', null, 'Payment 10240', 'TX-0004'],
    ]);
  });

  it('reads an XLSX export with date cells and separate credit and debit columns', async () => {
    const bytes = await workbook({
      Umsaetze: [
        ['Date', 'Paid in', 'Paid out', 'Payer', 'Details'],
        [new Date(Date.UTC(2026, 10, 3)), 734.5, null, 'Max Mustermann', 'INV-10231'],
        [new Date(Date.UTC(2026, 10, 4)), null, 45.67, 'Insurer', 'Premium'],
      ],
    });
    const xlsxMapping = BankMappingSchema.parse({ account: 'GB29NWBK60161331926819', currency: 'GBP', date: 'Date', credit: 'Paid in', debit: 'Paid out', payer: 'Payer', reference: ['Details'], date_format: 'YYYY-MM-DD' });
    const s = readMappedStatement(await readTable(bytes), xlsxMapping, 'xlsx');
    expect(s.entries.map((e) => [e.booked_on, e.direction, e.amount_cents, e.counterparty_name])).toEqual([
      ['2026-11-03', 'credit', 73_450, 'Max Mustermann'],
      ['2026-11-04', 'debit', 4567, 'Insurer'],
    ]);
  });

  it('names the row of a cell it cannot read and the column it cannot find', async () => {
    const table = await readCsvTable('Buchungstag;Betrag\n03.11.2026;12,50\n31.11.2026;1,00\n', ';');
    const small = { ...mapping, value_date: undefined, currency_column: undefined, payer: undefined, payer_account: undefined, reference: [], bank_reference: undefined };
    expect(refusal(() => readMappedStatement(table, small, 'csv')).message).toBe('Row 3: the date "31.11.2026" is not a date in the format DD.MM.YYYY');
    expect(refusal(() => readMappedStatement(table, mapping, 'csv'))).toMatchObject({ status: 400, message: 'The file has no column "Valuta"; its columns are: Buchungstag, Betrag' });
    const bad = await readCsvTable('Buchungstag;Betrag\n03.11.2026;12.5.0\n', ';');
    expect(refusal(() => readMappedStatement(bad, small, 'csv')).message).toBe('Row 2: "12.5.0" is not an amount with "," as the decimal separator');
  });
});

describe('telling the formats apart', () => {
  it('knows each sample by its bytes, and asks for a mapping for CSV and XLSX', async () => {
    expect(
      ['camt053-fi-fffs-001.02.xml', 'camt054-fi-fffs-001.02.xml', 'mt940-ing-spec-example.sta', 'mt940-dk-anlage3.sta', 'ofx2-spec-11.14.1.ofx', 'ofx1-sgml-credits.ofx', 'bank-export-semicolon.csv'].map((f) =>
        detectStatementFormat(fixture(f)),
      ),
    ).toEqual(['camt.053', 'camt.054', 'mt940', 'mt940', 'ofx', 'ofx', 'csv']);
    expect(refusal(() => read('bank-export-semicolon.csv'))).toMatchObject({ status: 400, code: 'statement_mapping_required' });
    const xlsx = Buffer.from(await workbook({ Sheet1: [['Date', 'Amount']] }));
    expect(detectStatementFormat(xlsx)).toBe('xlsx');
    expect(refusal(() => readStatement(Buffer.from('%PDF-1.7 a statement as a PDF'), 'statement.pdf'))).toMatchObject({ status: 400, code: 'unknown_statement_format' });
  });
});

describe('hostile and broken files', () => {
  const camt = (body: string) => Buffer.from(`<?xml version="1.0"?>${body}`);

  it('refuses external entities and entity expansion before parsing (400)', () => {
    const xxe = camt('<!DOCTYPE Document [<!ENTITY x SYSTEM "file:///etc/passwd">]><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt><Stmt><Id>&x;</Id></Stmt></BkToCstmrStmt></Document>');
    const laughs = camt(
      `<!DOCTYPE lolz [<!ENTITY lol "lol">${Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i === 0 ? '' : i};`.repeat(10)}">`).join('')}]><Document><BkToCstmrStmt><Stmt><Id>&lol9;</Id></Stmt></BkToCstmrStmt></Document>`,
    );
    for (const file of [xxe, laughs]) expect(refusal(() => readStatement(file))).toMatchObject({ status: 400, code: 'xml_declarations_refused' });
    const ofx = Buffer.from('<?xml version="1.0"?><!DOCTYPE OFX [<!ENTITY x SYSTEM "file:///etc/passwd">]><?OFX OFXHEADER="200"?><OFX>&x;</OFX>');
    expect(refusal(() => readStatement(ofx))).toMatchObject({ status: 400, code: 'xml_declarations_refused' });
  });

  it('names the element and line of a truncated or mismatched camt file', () => {
    const text = fixture('camt053-fi-fffs-001.02.xml').toString('utf8');
    const cut = text.slice(0, text.indexOf('<Sts>BOOK</Sts>') + 5);
    expect(refusal(() => readStatement(Buffer.from(cut))).message).toBe(
      `The XML ends inside <Sts> (Document > BkToCstmrStmt > Stmt > Ntry > Sts) on line ${cut.split('\n').length}: the file looks cut off`,
    );
    const mismatched = text.replace('<AcctSvcrRef>091029ACCTSTMTARCH04</AcctSvcrRef>', '<AcctSvcrRef>091029ACCTSTMTARCH04</AcctSvcrRf>');
    const line = mismatched.slice(0, mismatched.indexOf('</AcctSvcrRf>')).split('\n').length;
    expect(refusal(() => readStatement(Buffer.from(mismatched))).message).toBe(
      `The XML is malformed on line ${line}: Expected closing tag 'AcctSvcrRef' (opened in line ${line}, col 5) instead of closing tag 'AcctSvcrRf'`,
    );
    const badAmount = text.replace('<Amt Ccy="CHF">4000.00</Amt>', '<Amt Ccy="CHF">4000.0O</Amt>');
    expect(refusal(() => readStatement(Buffer.from(badAmount))).message).toBe('Stmt 1 (BANKSTMTID0972009), Ntry 2: Amt "4000.0O" is not an amount');
  });

  it('refuses nesting deeper than any statement, and a file over 50 MB (413)', () => {
    const deep = camt(`<Document><BkToCstmrStmt>${'<a>'.repeat(100)}${'</a>'.repeat(100)}</BkToCstmrStmt></Document>`);
    expect(refusal(() => readStatement(deep))).toMatchObject({ status: 400, message: 'The XML nests elements more than 64 deep (line 1); no bank statement does' });
    expect(refusal(() => readStatement(Buffer.alloc(50 * 1024 * 1024 + 1, 0x20)))).toMatchObject({ status: 413, code: 'file_too_large' });
  });

  it('names the line of a broken MT940 statement line and of a balance', () => {
    const text = fixture('mt940-dk-anlage3.sta').toString('utf8');
    expect(refusal(() => readStatement(Buffer.from(text.replace(':61:2611031103DR45,67', ':61:2611031103DR45.67')))).message).toBe(
      'Line 9: the statement line (:61:) "2611031103DR45.67NDDTNONREF" is not a date YYMMDD, C or D, an amount and a transaction type such as NTRF',
    );
    expect(refusal(() => readStatement(Buffer.from(text.replace(':62F:C261104EUR', ':62F:C261131EUR')))).message).toMatch(/^Line 16: the closing balance \(:62F:\)/);
  });

  it('names where an OFX file is cut off or badly closed, and reads hostile tag soup in linear time', () => {
    const text = fixture('ofx1-sgml-credits.ofx').toString('utf8');
    expect(refusal(() => readStatement(Buffer.from(text.slice(0, text.indexOf('<NAME>NORTHWIND')))))).toMatchObject({
      status: 400,
      message: 'The OFX file ends inside <STMTTRN> opened on line 47: it looks cut off',
    });
    expect(refusal(() => readStatement(Buffer.from(text.replace('</BANKACCTFROM>', '</BANKACCTFRM>')))).message).toBe(
      'Line 35: the closing tag </BANKACCTFRM> comes while <BANKACCTFROM> (line 31) is still open',
    );
    // ofx-js's SGML conversion backtracks exponentially on this shape; the reader here refuses it at once.
    const soup = Buffer.from(`OFXHEADER:100\n\n<OFX><${'A'.repeat(200_000)}!`);
    expect(refusal(() => readStatement(soup))).toMatchObject({ status: 400 });
  });
});
