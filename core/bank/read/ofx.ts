/**
 * OFX bank and credit-card statements, 1.x (SGML: a leaf element's closing tag is optional) and
 * 2.x (XML), read by one tokenizer in a single pass. ofx-js was checked on both forms and not
 * used: its SGML-to-XML step runs a regular expression with nested quantifiers that takes seconds
 * on a few dozen hostile characters (7.5 s on 28), and it reads entities and nesting unbounded.
 */
import type { ParsedStatement, StatementEntry } from '../statement';
import { READ_LIMITS, clean, isCurrency, isoDay, malformed, tooManyEntries } from './values';
import { decodeEntities, refuseDeclarations } from './xml';

interface Node {
  name: string;
  line: number;
  text: string | null;
  children: Node[];
}

/** The <OFX> element as a tree; `line` numbers are the file's. */
function parseOfxTree(source: string): Node {
  refuseDeclarations(source);
  const start = source.search(/<OFX>/i);
  if (start === -1) throw malformed('The OFX file has no <OFX> element');
  const root: Node = { name: '#root', line: 0, text: null, children: [] };
  const stack: Node[] = [root];
  let line = 1;
  let counted = 0;
  const lineAt = (index: number): number => {
    for (let i = source.indexOf('\n', counted); i !== -1 && i < index; i = source.indexOf('\n', i + 1)) line++;
    counted = index;
    return line;
  };
  const top = () => stack[stack.length - 1];
  const isLeaf = (node: Node) => node.text !== null && node.children.length === 0;
  let i = start;
  while (i < source.length) {
    const open = source.indexOf('<', i);
    const textEnd = open === -1 ? source.length : open;
    const between = source.slice(i, textEnd).trim();
    if (between !== '') {
      const node = top();
      if (node === root || node.children.length > 0) throw malformed(`Line ${lineAt(i)}: text "${between.slice(0, 30)}" stands outside any OFX element`);
      node.text = decodeEntities(between);
    }
    if (open === -1) break;
    if (source.startsWith('<!--', open)) {
      const close = source.indexOf('-->', open);
      i = close === -1 ? source.length : close + 3;
      continue;
    }
    const close = source.indexOf('>', open);
    if (close === -1) throw malformed(`Line ${lineAt(open)}: a tag is never closed with ">" (the file looks cut off)`);
    const tag = source.slice(open + 1, close).trim();
    i = close + 1;
    if (tag.startsWith('?') || tag.startsWith('!')) continue;
    const closing = tag.startsWith('/');
    const name = (closing ? tag.slice(1) : tag).split(/\s/)[0].toUpperCase();
    if (!/^[A-Z0-9_.]+$/.test(name)) throw malformed(`Line ${lineAt(open)}: "<${tag.slice(0, 30)}>" is not an OFX tag`);
    if (closing) {
      // SGML leaves may be left open; an aggregate must be closed by its own tag.
      while (top() !== root && top().name !== name && isLeaf(top())) stack.pop();
      if (top().name !== name) {
        const current = top();
        throw malformed(
          current === root
            ? `Line ${lineAt(open)}: the closing tag </${name}> has no opening tag`
            : `Line ${lineAt(open)}: the closing tag </${name}> comes while <${current.name}> (line ${current.line}) is still open`,
        );
      }
      stack.pop();
      if (stack.length === 1) break;
      continue;
    }
    if (isLeaf(top())) stack.pop();
    const node: Node = { name, line: lineAt(open), text: null, children: [] };
    top().children.push(node);
    stack.push(node);
    if (stack.length > READ_LIMITS.depth) throw malformed(`Line ${node.line}: OFX elements nest more than ${READ_LIMITS.depth} deep`);
  }
  while (stack.length > 1 && isLeaf(top())) stack.pop();
  if (stack.length > 1) throw malformed(`The OFX file ends inside <${top().name}> opened on line ${top().line}: it looks cut off`);
  const ofx = root.children[0];
  if (!ofx || ofx.name !== 'OFX') throw malformed('The OFX file has no <OFX> element');
  return ofx;
}

function find(node: Node | undefined, ...path: string[]): Node | undefined {
  let at = node;
  for (const name of path) at = at?.children.find((c) => c.name === name);
  return at;
}

function all(node: Node | undefined, name: string): Node[] {
  return node ? node.children.filter((c) => c.name === name) : [];
}

function value(node: Node | undefined, ...path: string[]): string | null {
  return clean(find(node, ...path)?.text ?? null);
}

/**
 * A signed OFX amount to cents: "-200.00", "+480.15", and the "-12,30" of European banks. The last
 * "." or "," is the decimal separator when one or two digits follow it, else a thousands separator.
 */
function signedCents(text: string | null): number | null {
  if (text === null) return null;
  const m = /^([+-]?)(\d[\d.,]*)$/.exec(text.replace(/\s/g, ''));
  if (!m) return null;
  const body = m[2];
  const at = Math.max(body.lastIndexOf('.'), body.lastIndexOf(','));
  const isDecimal = at !== -1 && body.length - at - 1 <= 2;
  const whole = (isDecimal ? body.slice(0, at) : body).replace(/[.,]/g, '');
  const fraction = isDecimal ? body.slice(at + 1) : '';
  if (!/^\d{1,13}$/.test(whole)) return null;
  const cents = Number(whole) * 100 + Number(fraction.padEnd(2, '0'));
  return m[1] === '-' ? -cents : cents;
}

/** OFX dates are YYYYMMDD[HHMMSS[.XXX]][[offset:TZ]]: the day as the bank wrote it. */
function ofxDay(text: string | null): string | null {
  if (!text || !/^\d{8}/.test(text)) return null;
  return isoDay(`${text.slice(0, 4)}-${text.slice(4, 6)}-${text.slice(6, 8)}`);
}

export function readOfx(source: string): ParsedStatement {
  const ofx = parseOfxTree(source);
  const statements = [
    ...all(find(ofx, 'BANKMSGSRSV1'), 'STMTTRNRS').map((t) => find(t, 'STMTRS')),
    ...all(find(ofx, 'CREDITCARDMSGSRSV1'), 'CCSTMTTRNRS').map((t) => find(t, 'CCSTMTRS')),
  ].filter((s): s is Node => s !== undefined);
  if (statements.length === 0) throw malformed('The OFX file holds no bank or credit card statement (STMTRS or CCSTMTRS)');
  const accounts = [...new Set(statements.map(accountOf))];
  if (accounts.includes(null)) throw malformed('An OFX statement has no account (BANKACCTFROM/ACCTID or CCACCTFROM/ACCTID)');
  if (accounts.length > 1) throw malformed(`The file holds statements of ${accounts.length} accounts (${accounts.join(', ')}); import one account at a time`);
  const account = accounts[0] as string;
  const currency = value(statements[0], 'CURDEF');
  if (!isCurrency(currency)) throw malformed(`The OFX statement (line ${statements[0].line}) has no currency (CURDEF)`);
  const entries: StatementEntry[] = [];
  for (const stmt of statements) {
    for (const trn of all(find(stmt, 'BANKTRANLIST'), 'STMTTRN')) {
      entries.push(transaction(trn, currency, account));
      if (entries.length > READ_LIMITS.entries) throw tooManyEntries();
    }
  }
  const first = statements[0];
  const last = statements[statements.length - 1];
  const ledger = find(last, 'LEDGERBAL');
  const closing = ledger ? signedCents(value(ledger, 'BALAMT')) : null;
  if (ledger && closing === null) throw malformed(`Line ${ledger.line}: the ledger balance (LEDGERBAL/BALAMT) is not an amount`);
  const fitids = entries.map((e) => e.bank_reference).filter((f): f is string => f !== null);
  return {
    format: 'ofx',
    statement_id: fitids.length > 0 ? `${fitids[0]}..${fitids[fitids.length - 1]}` : null,
    account,
    currency,
    period_start: ofxDay(value(first, 'BANKTRANLIST', 'DTSTART')),
    period_end: ofxDay(value(last, 'BANKTRANLIST', 'DTEND')),
    opening_balance_cents: null,
    closing_balance_cents: closing,
    entries,
    warnings: [],
  };
}

function accountOf(stmt: Node): string | null {
  const from = find(stmt, 'BANKACCTFROM') ?? find(stmt, 'CCACCTFROM');
  const id = value(from, 'ACCTID');
  if (!id) return null;
  const bank = value(from, 'BANKID');
  return bank ? `${bank}/${id}` : id;
}

function transaction(trn: Node, currency: string, ownAccount: string): StatementEntry {
  const where = `Line ${trn.line}: the transaction (STMTTRN)`;
  const cents = signedCents(value(trn, 'TRNAMT'));
  if (cents === null) throw malformed(`${where} has no amount TRNAMT, or "${value(trn, 'TRNAMT')}" is not one`);
  const booked = ofxDay(value(trn, 'DTPOSTED'));
  if (!booked) throw malformed(`${where} has no posting date DTPOSTED, or "${value(trn, 'DTPOSTED')}" is not one`);
  const other = find(trn, 'BANKACCTTO') ?? find(trn, 'CCACCTTO');
  const otherId = value(other, 'ACCTID');
  const otherBank = value(other, 'BANKID');
  const otherAccount = otherId ? (otherBank ? `${otherBank}/${otherId}` : otherId) : null;
  const entryCurrency = value(trn, 'CURRENCY', 'CURSYM') ?? value(trn, 'ORIGCURRENCY', 'CURSYM');
  return {
    booked_on: booked,
    value_on: ofxDay(value(trn, 'DTAVAIL')),
    amount_cents: Math.abs(cents),
    direction: cents < 0 ? 'debit' : 'credit',
    currency: isCurrency(entryCurrency) ? entryCurrency : currency,
    bank_reference: value(trn, 'FITID'),
    end_to_end_id: null,
    structured_reference: null,
    remittance_text: value(trn, 'MEMO') ?? '',
    counterparty_name: value(trn, 'NAME') ?? value(trn, 'PAYEE', 'NAME'),
    counterparty_account: otherAccount && otherAccount !== ownAccount ? otherAccount : null,
    bank_code: value(trn, 'TRNTYPE'),
  };
}
