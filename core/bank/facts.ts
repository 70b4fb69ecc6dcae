/**
 * What the ledger says about a batch of credits, read with index lookups only (the cost grows
 * with the credits, not the ledger): the invoices their texts reference (by the number key index
 * of 0370), the customers their payer accounts were learned for, the customers their payer names
 * are like (one pass over the company's customer names per batch), the customers of ardesk's
 * statement references, announced payments of the same amount, and the open invoices of every
 * customer so found.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { chunks } from '../chunks';
import { yieldToEventLoop } from '../yielding';
import { INVOICE_NUMBER_KEY } from '../db/migrations/0370_bank';
import { invoiceNumberKey, nameSimilarity, nameTokens, normalizeAccount, numberWrittenIn, referenceKeys } from './keys';
import { type AdviceFact, type CreditFacts, type CustomerHint, type InvoiceFact, NAME_THRESHOLD, type ReferencedInvoice, subsetsSumming } from './match';
import { customerRfPart, findRfs } from '../rf';

export interface CreditToMatch {
  amount: number;
  currency: string;
  booked_on: string;
  remittance_text: string;
  structured_reference: string | null;
  end_to_end_id: string | null;
  counterparty_name: string | null;
  counterparty_account: string | null;
}

/** The text a credit's references are read from: the structured reference, the end-to-end id and the free text. */
export function referenceText(c: Pick<CreditToMatch, 'remittance_text' | 'structured_reference' | 'end_to_end_id'>): string {
  return [c.structured_reference, c.end_to_end_id, c.remittance_text].filter(Boolean).join(' ');
}

/** Invoices per key looked at: a key shared by more is not a reference to any one of them. */
const MAX_PER_KEY = 5;
/** Open invoices of one customer weighed: the oldest due first. */
const MAX_OPEN_PER_CUSTOMER = 400;
/** Customers sharing a name word past this many: the word says nothing (e.g. "Supply"). */
const MAX_WORD_CUSTOMERS = 200;
const MAX_NAME_HINTS = 3;
/** Customers compared in full with a payer's name: those sharing most of its words. */
const MAX_NAME_COMPARED = 20;
const SAME_AMOUNT_LIMIT = 5;
/** An announced payment counts for credits booked this many days around its date. */
const ADVICE_WINDOW_DAYS = 15;

interface InvoiceRow {
  id: string;
  invoice_number: string;
  customer_id: string;
  customer_name: string;
  balance: number;
  currency: string;
  due_date: string;
  closing_reason: string | null;
}

/** The company's customers by name word and by statement-reference part, read once per import. */
export interface CustomerIndex {
  byWord: Map<string, string[]>;
  tokens: Map<string, string[]>;
  names: Map<string, string>;
  byRfPart: Map<string, string>;
}

/** Customers read per page while the index is built, the event loop served between pages. */
const CUSTOMER_PAGE = 5000;
const indexes = new Map<string, { version: string; index: CustomerIndex }>();

/**
 * The company's customer index, kept between imports and reviews (50,000 names take a quarter of
 * a second to index) and built again when a customer was added, removed or changed.
 */
export async function customerIndex(sqlite: BetterSqlite3.Database, companyId: string): Promise<CustomerIndex> {
  const v = sqlite.prepare('SELECT count(*) AS n, max(updated_at) AS u FROM customers WHERE company_id = ?').get(companyId) as { n: number; u: string | null };
  const version = `${v.n}|${v.u}`;
  const known = indexes.get(companyId);
  if (known?.version === version) return known.index;
  const index: CustomerIndex = { byWord: new Map(), tokens: new Map(), names: new Map(), byRfPart: new Map() };
  const page = sqlite.prepare(`SELECT id, name FROM customers WHERE company_id = ? AND id > ? ORDER BY id LIMIT ${CUSTOMER_PAGE}`);
  for (let after = ''; ; ) {
    const rows = page.all(companyId, after) as Array<{ id: string; name: string }>;
    for (const row of rows) {
      const tokens = nameTokens(row.name);
      index.tokens.set(row.id, tokens);
      index.names.set(row.id, row.name);
      index.byRfPart.set(customerRfPart(row.id), row.id);
      for (const t of new Set(tokens)) {
        const list = index.byWord.get(t);
        if (list) list.push(row.id);
        else index.byWord.set(t, [row.id]);
      }
    }
    if (rows.length < CUSTOMER_PAGE) break;
    after = rows[rows.length - 1].id;
    await yieldToEventLoop();
  }
  indexes.set(companyId, { version, index });
  return index;
}

/** The customers a payer's name is like, most alike first. */
export function nameHints(index: CustomerIndex, payerTokens: string[]): CustomerHint[] {
  // Customers sharing the payer's rarer words score first; only the best few are compared in full.
  const shared = new Map<string, number>();
  for (const t of payerTokens) {
    const ids = index.byWord.get(t);
    if (!ids || ids.length > MAX_WORD_CUSTOMERS) continue;
    for (const id of ids) shared.set(id, (shared.get(id) ?? 0) + 1 / ids.length + 1);
  }
  const closest = [...shared.entries()].sort((a, b) => b[1] - a[1]).slice(0, MAX_NAME_COMPARED);
  const hints: CustomerHint[] = [];
  for (const [id] of closest) {
    const s = nameSimilarity(payerTokens, index.tokens.get(id) ?? []);
    if (s >= NAME_THRESHOLD) hints.push({ customer_id: id, customer_name: index.names.get(id) ?? '', strength: Math.round(s * 100) / 100, via: 'name' });
  }
  return hints.sort((a, b) => b.strength - a.strength).slice(0, MAX_NAME_HINTS);
}

/** Minor units already applied by earlier credits of the same import, by invoice: later ones see the rest. */
export type Consumed = Map<string, number>;

function toFact(row: InvoiceRow, consumed: Consumed): InvoiceFact {
  const used = consumed.get(row.id) ?? 0;
  const balance = row.balance - used;
  return {
    id: row.id,
    number: row.invoice_number,
    customer_id: row.customer_id,
    customer_name: row.customer_name,
    balance,
    currency: row.currency,
    due_date: row.due_date,
    closing_reason: row.closing_reason ?? (used > 0 && balance <= 0 ? 'paid' : null),
  };
}

const INVOICE_COLUMNS = 'id, invoice_number, customer_id, customer_name, balance, currency, due_date, closing_reason';

function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/**
 * The facts of every credit of a batch, in its order, and a way to look an invoice up by id among
 * them. `consumed` holds what this import applied already.
 */
export function gatherFacts(
  sqlite: BetterSqlite3.Database,
  companyId: string,
  credits: CreditToMatch[],
  customers: CustomerIndex,
  consumed: Consumed,
): { facts: CreditFacts[]; invoiceOf: (id: string) => InvoiceFact | undefined } {
  const invoices = new Map<string, InvoiceFact>();
  // One object per invoice across the batch: an automatic application lowers its balance for the credits after it.
  const remember = (row: InvoiceRow) => {
    const known = invoices.get(row.id);
    if (known) return known;
    const fact = toFact(row, consumed);
    invoices.set(fact.id, fact);
    return fact;
  };
  const texts = credits.map(referenceText);
  const keysOf = texts.map((t) => {
    const keys = referenceKeys(t);
    for (const rf of findRfs(t)) if (rf.kind === 'invoice') keys.unshift(invoiceNumberKey(rf.number));
    return [...new Set(keys)].filter(Boolean);
  });

  // Invoices by number key.
  const byKey = new Map<string, InvoiceRow[]>();
  const allKeys = [...new Set(keysOf.flat())];
  for (const part of chunks(allKeys, 400)) {
    const rows = sqlite
      .prepare(`SELECT ${INVOICE_COLUMNS}, ${INVOICE_NUMBER_KEY} AS k FROM invoices WHERE company_id = ? AND ${INVOICE_NUMBER_KEY} IN (${part.map(() => '?').join(',')})`)
      .all(companyId, ...part) as Array<InvoiceRow & { k: string }>;
    for (const row of rows) {
      const list = byKey.get(row.k) ?? [];
      list.push(row);
      byKey.set(row.k, list);
    }
  }

  // Learned payer accounts.
  const accounts = credits.map((c) => normalizeAccount(c.counterparty_account));
  const learned = new Map<string, Array<{ customer_id: string; times: number }>>();
  for (const part of chunks([...new Set(accounts.filter((a): a is string => a !== null))], 400)) {
    const rows = sqlite
      .prepare(`SELECT account, customer_id, times_applied FROM bank_payer_accounts WHERE company_id = ? AND account IN (${part.map(() => '?').join(',')})`)
      .all(companyId, ...part) as Array<{ account: string; customer_id: string; times_applied: number }>;
    for (const r of rows) learned.set(r.account, [...(learned.get(r.account) ?? []), { customer_id: r.customer_id, times: r.times_applied }]);
  }

  // Announced payments of the same amounts.
  const advicesByAmount = new Map<number, Array<AdviceFact & { customer_id: string }>>();
  for (const part of chunks([...new Set(credits.map((c) => c.amount))], 400)) {
    const rows = sqlite
      .prepare(`SELECT customer_id, invoice_ids, amount, paid_on FROM bank_remittance_advices WHERE company_id = ? AND amount IN (${part.map(() => '?').join(',')})`)
      .all(companyId, ...part) as Array<{ customer_id: string; invoice_ids: string; amount: number; paid_on: string }>;
    for (const r of rows) {
      const list = advicesByAmount.get(r.amount) ?? [];
      list.push({ customer_id: r.customer_id, invoice_ids: JSON.parse(r.invoice_ids) as string[], amount: r.amount, paid_on: r.paid_on });
      advicesByAmount.set(r.amount, list);
    }
  }

  const partial = credits.map((credit, n) => {
    const text = texts[n];
    const referenced: ReferencedInvoice[] = [];
    const rfNumbers = new Set(findRfs(text).flatMap((rf) => (rf.kind === 'invoice' ? [rf.number] : [])));
    for (const key of keysOf[n]) {
      const rows = byKey.get(key) ?? [];
      if (rows.length > MAX_PER_KEY) continue;
      for (const row of rows) {
        if (referenced.some((r) => r.invoice.id === row.id)) continue;
        const compact = row.invoice_number.toUpperCase().replace(/[^A-Z0-9]/g, '');
        const via = rfNumbers.has(compact) ? 'rf' : numberWrittenIn(row.invoice_number, text) ? 'written' : 'key';
        referenced.push({ invoice: remember(row), via });
      }
    }
    const payerTokens = credit.counterparty_name ? nameTokens(credit.counterparty_name) : [];
    const hints: CustomerHint[] = [];
    const account = accounts[n];
    for (const l of account ? (learned.get(account) ?? []) : []) hints.push({ customer_id: l.customer_id, customer_name: customers.names.get(l.customer_id) ?? '', strength: l.times, via: 'account' });
    for (const rf of findRfs(text)) {
      const id = rf.kind === 'customer' ? customers.byRfPart.get(rf.part) : undefined;
      if (id) hints.push({ customer_id: id, customer_name: customers.names.get(id) ?? '', strength: 1, via: 'statement_rf' });
    }
    hints.push(...nameHints(customers, payerTokens));
    const from = addDays(credit.booked_on, -ADVICE_WINDOW_DAYS);
    const to = addDays(credit.booked_on, ADVICE_WINDOW_DAYS);
    const advices = (advicesByAmount.get(credit.amount) ?? []).filter((a) => a.paid_on >= from && a.paid_on <= to);
    for (const a of advices) hints.push({ customer_id: a.customer_id, customer_name: customers.names.get(a.customer_id) ?? '', strength: 1, via: 'advice' });
    return { referenced, hints, advices, payerTokens };
  });

  // Open invoices of every customer referenced or hinted at, but for credits their references settle
  // already (one way to add up to the amount, one customer, no payer clearly someone else): most of
  // a statement, and the reads they would cost are most of the matching's.
  const settled = partial.map((p, n) => {
    const open = p.referenced.map((r) => r.invoice).filter((i) => i.closing_reason === null && i.balance > 0 && i.currency === credits[n].currency);
    const ways = open.length ? subsetsSumming(open, credits[n].amount) : [];
    return ways.length === 1 && new Set(ways[0].map((i) => i.customer_id)).size === 1 && !p.hints.some((h) => h.via === 'name' && h.customer_id !== ways[0][0].customer_id && h.strength >= 0.9);
  });
  const openByCustomer = new Map<string, InvoiceFact[]>();
  const wanted = new Set<string>();
  partial.forEach((p, n) => {
    if (settled[n]) return;
    for (const r of p.referenced) wanted.add(r.invoice.customer_id);
    for (const h of p.hints) wanted.add(h.customer_id);
  });
  // Through the customer's index, named: by the balance or open-due index SQLite walked every open invoice of the company.
  const openOf = sqlite.prepare(
    `SELECT ${INVOICE_COLUMNS} FROM invoices INDEXED BY invoices_customer WHERE company_id = ? AND customer_id = ? AND closing_reason IS NULL AND balance > 0 ORDER BY due_date, id LIMIT ${MAX_OPEN_PER_CUSTOMER}`,
  );
  for (const customerId of wanted) {
    const rows = openOf.all(companyId, customerId) as InvoiceRow[];
    openByCustomer.set(customerId, rows.map(remember).filter((i) => i.closing_reason === null && i.balance > 0));
  }

  const sameAmountOf = sqlite.prepare(`SELECT ${INVOICE_COLUMNS} FROM invoices WHERE company_id = ? AND balance = ? AND closing_reason IS NULL LIMIT ${SAME_AMOUNT_LIMIT + 1}`);
  const facts = credits.map((credit, n): CreditFacts => {
    const p = partial[n];
    let sameAmount: InvoiceFact[] = [];
    let sameAmountMore = false;
    if (!p.referenced.length && !p.hints.length) {
      const rows = (sameAmountOf.all(companyId, credit.amount) as InvoiceRow[]).map(remember).filter((i) => i.closing_reason === null && i.balance === credit.amount);
      sameAmountMore = rows.length > SAME_AMOUNT_LIMIT;
      sameAmount = rows.slice(0, SAME_AMOUNT_LIMIT);
    }
    const byCustomer = new Map<string, InvoiceFact[]>();
    if (!settled[n]) for (const id of new Set([...p.referenced.map((r) => r.invoice.customer_id), ...p.hints.map((h) => h.customer_id)])) byCustomer.set(id, openByCustomer.get(id) ?? []);
    return { referenced: p.referenced, customers: p.hints, openByCustomer: byCustomer, advices: p.advices, sameAmount, sameAmountMore, payerTokens: p.payerTokens };
  });
  return { facts, invoiceOf: (id) => invoices.get(id) };
}
