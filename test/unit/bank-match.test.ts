/**
 * The matching rules, pure: invoice-number keys (SQL and JS must agree), RF references, payer
 * names, entry identity, and which credits are applied automatically, suggested or left unmatched.
 */
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { entryIdentities } from '../../core/bank/identity';
import { invoiceNumberKey, nameSimilarity, nameTokens, normalizeAccount, numberWrittenIn, referenceKeys } from '../../core/bank/keys';
import { type CreditFacts, type CustomerHint, customerSums, decide, type InvoiceFact, subsetsSumming } from '../../core/bank/match';
import { findRfs, formatRf, invoiceRf, isValidRf, makeRf, readRf, statementRf } from '../../core/rf';
import type { ParsedStatement, StatementEntry } from '../../core/bank/statement';
import { INVOICE_NUMBER_KEY } from '../../core/db/migrations/0370_bank';

describe('invoice number keys', () => {
  it('ignore case, prefixes, separators and leading zeros', () => {
    for (const written of ['INV-10231', 'inv-10231', 'INV10231', 'inv 010231', '10231', 'Inv#10231', 'INV.10231']) expect(invoiceNumberKey(written), written).toBe('10231');
    expect(invoiceNumberKey('INV-2024-0042')).toBe('20240042');
    expect(invoiceNumberKey('ABC')).toBe('');
  });

  it('are the same in SQLite as in JS (the index is looked up with the JS key)', () => {
    const db = new Database(':memory:');
    const numbers = ['INV-10231', 'inv-010231', 'A/B-000-77', 'SO_2024.0042', 'Rechnung 4711', 'INV-ß12', '0000', 'X 1 2 3', 'INV--0099-01'];
    for (const n of numbers) {
      const sqlKey = db.prepare(`SELECT ${INVOICE_NUMBER_KEY} AS k FROM (SELECT ? AS invoice_number)`).get(n) as { k: string };
      expect(invoiceNumberKey(n), n).toBe(sqlKey.k);
    }
    db.close();
  });

  it('are read out of remittance text, whole words and their parts, without short numbers', () => {
    expect(referenceKeys('Invoice 10231, 10232')).toEqual(['10231', '10232']);
    expect(referenceKeys('inv-10231/10232 paid')).toEqual(['1023110232', '10231', '10232']);
    expect(referenceKeys('INV10231 thanks')).toEqual(['10231']);
    expect(referenceKeys('Paid 12 items on day 5')).toEqual([]);
    expect(numberWrittenIn('INV-10231', 'payment inv 10231')).toBe(true);
    expect(numberWrittenIn('INV-10231', 'payment 10231')).toBe(false);
  });
});

describe('RF creditor references (ISO 11649)', () => {
  it('make and check references, the standard example included', () => {
    expect(makeRf('539007547034')).toBe('RF18539007547034');
    expect(isValidRf('RF18 5390 0754 7034')).toBe(true);
    expect(isValidRf('RF18539007547035')).toBe(false);
    expect(isValidRf('RF1853900754703412345678901')).toBe(false);
    expect(formatRf('RF18539007547034')).toBe('RF18 5390 0754 7034');
  });

  it("say which invoice or which customer's statement they are for", () => {
    const rf = invoiceRf('INV-10231')!;
    expect(isValidRf(rf)).toBe(true);
    expect(readRf(rf)).toEqual({ kind: 'invoice', number: 'INV10231', reference: rf });
    expect(invoiceRf('A-VERY-LONG-INVOICE-NUMBER-2026')).toBeNull();
    const customer = '0192f0c4-5f3e-7c4a-9a51-1f2e3d4c5b6a';
    expect(readRf(statementRf(customer))).toEqual({ kind: 'customer', part: '9A511F2E3D4C5B6A', reference: statementRf(customer) });
    expect(readRf('RF18539007547034')).toBeNull();
  });

  it('are found in free text, printed in groups or not, a mistyped one ignored', () => {
    const rf = invoiceRf('INV-10231')!;
    expect(findRfs(`Payment ${formatRf(rf)} thank you`).map((r) => r.reference)).toEqual([rf]);
    expect(findRfs(`ref ${rf.toLowerCase()}`).map((r) => r.reference)).toEqual([rf]);
    expect(findRfs(`ref ${rf.slice(0, -1)}9`)).toEqual([]);
  });
});

describe('payer names and accounts', () => {
  it('compare names without legal forms, case or accents', () => {
    expect(nameTokens('Hamilton Supply Co., Inc.')).toEqual(['hamilton', 'supply']);
    expect(nameSimilarity(nameTokens('HAMILTON SUPPLY CO'), nameTokens('Hamilton Supply, Inc.'))).toBe(1);
    expect(nameSimilarity(nameTokens('Müller GmbH'), nameTokens('Muller AG'))).toBe(1);
    expect(nameSimilarity(nameTokens('Hamiltn Supply'), nameTokens('Hamilton Supply'))).toBeGreaterThan(0.8);
    expect(nameSimilarity(nameTokens('Smith'), nameTokens('Smith Bakery'))).toBeLessThan(0.95);
    expect(nameSimilarity(nameTokens('Oakridge Farms'), nameTokens('Hamilton Supply'))).toBeLessThan(0.4);
    expect(normalizeAccount('de89 3704 0044 0532 0130 00')).toBe('DE89370400440532013000');
    expect(normalizeAccount('12')).toBeNull();
  });
});

describe('entry identity', () => {
  const entry = (fields: Partial<StatementEntry>): StatementEntry => ({
    booked_on: '2026-11-20',
    value_on: null,
    amount_cents: 1000,
    direction: 'credit',
    currency: 'USD',
    bank_reference: null,
    end_to_end_id: null,
    structured_reference: null,
    remittance_text: 'interest',
    counterparty_name: null,
    counterparty_account: null,
    bank_code: null,
    ...fields,
  });
  const statement = (entries: StatementEntry[], account = 'DE89 3704 0044 0532 0130 00'): ParsedStatement => ({
    format: 'camt.053',
    statement_id: null,
    account,
    currency: 'USD',
    period_start: null,
    period_end: null,
    opening_balance_cents: null,
    closing_balance_cents: null,
    entries,
    warnings: [],
  });

  it('is the same across files for the same entry, and tells equal entries of one file apart', () => {
    const a = entryIdentities(statement([entry({ bank_reference: 'X1' }), entry({}), entry({})]));
    expect(new Set(a).size).toBe(3);
    const b = entryIdentities(statement([entry({}), entry({}), entry({ bank_reference: 'X1' })], 'DE89370400440532013000'));
    expect(new Set(b)).toEqual(new Set(a));
    expect(entryIdentities(statement([entry({ bank_reference: 'NONREF' })]))).toEqual(entryIdentities(statement([entry({})])));
    expect(entryIdentities(statement([entry({ bank_reference: 'X1', amount_cents: 1001 })]))[0]).not.toBe(a[0]);
    expect(entryIdentities(statement([entry({ bank_reference: 'X1' })], 'GB33BUKB20201555555555'))[0]).not.toBe(a[0]);
  });
});

describe('decisions', () => {
  let n = 0;
  const invoice = (number: string, balance: number, customer = 'c1', fields: Partial<InvoiceFact> = {}): InvoiceFact => ({
    id: `i${++n}`,
    number,
    customer_id: customer,
    customer_name: customer === 'c1' ? 'Cobalt Industries' : 'Dune Logistics',
    balance,
    currency: 'USD',
    due_date: `2026-10-${String(n).padStart(2, '0')}`,
    closing_reason: null,
    ...fields,
  });
  const facts = (fields: Partial<CreditFacts>): CreditFacts => ({ referenced: [], customers: [], openByCustomer: new Map(), advices: [], sameAmount: [], sameAmountMore: false, payerTokens: [], ...fields });
  const credit = (amount: number, currency = 'USD') => ({ amount, currency, direction: 'credit' as const, companyCurrency: 'USD' });
  const run = (amount: number, f: CreditFacts, currency = 'USD') => {
    const all = new Map<string, InvoiceFact>();
    for (const r of f.referenced) all.set(r.invoice.id, r.invoice);
    for (const list of f.openByCustomer.values()) for (const i of list) all.set(i.id, i);
    for (const i of f.sameAmount) all.set(i.id, i);
    return decide(credit(amount, currency), f, (id) => all.get(id));
  };
  const hint = (customer_id: string, via: CustomerHint['via'], strength = 1): CustomerHint => ({ customer_id, customer_name: customer_id, via, strength });

  it('applies a reference whose open balance is the amount, and the sum of several referenced invoices of one customer', () => {
    const a = invoice('INV-1', 125000);
    const b = invoice('INV-2', 30050);
    const one = run(125000, facts({ referenced: [{ invoice: a, via: 'written' }] }));
    expect(one).toMatchObject({ state: 'applied', customer_id: 'c1', proposal: { allocations: [{ invoice_id: a.id, amount: 125000 }], unapplied: 0 } });
    expect(one.candidates[0].reasons).toEqual(['reference INV-1 in the remittance text', 'amount equals the open balance']);
    const both = run(155050, facts({ referenced: [{ invoice: a, via: 'key' }, { invoice: b, via: 'written' }] }));
    expect(both.state).toBe('applied');
    expect(both.proposal!.allocations.map((x) => x.invoice_id).sort()).toEqual([a.id, b.id].sort());
    expect(both.candidates[0].reasons).toContain('amount equals the open balances of INV-1, INV-2 together');
  });

  it('suggests, never applies, when the amount fits two ways, invoices of two customers, another currency, or a payer clearly someone else', () => {
    const a = invoice('INV-1', 5000);
    const b = invoice('INV-2', 5000);
    expect(run(5000, facts({ referenced: [{ invoice: a, via: 'written' }, { invoice: b, via: 'written' }] })).state).toBe('suggested');
    const c = invoice('INV-3', 2000, 'c1');
    const d = invoice('INV-4', 3000, 'c2');
    expect(run(5000, facts({ referenced: [{ invoice: c, via: 'written' }, { invoice: d, via: 'written' }] })).state).toBe('suggested');
    const e = invoice('INV-5', 7000, 'c1', { currency: 'EUR' });
    expect(run(7000, facts({ referenced: [{ invoice: e, via: 'written' }] }), 'EUR')).toMatchObject({ state: 'suggested', flag: 'foreign_currency' });
    const f = invoice('INV-6', 4000, 'c1');
    const other = run(4000, facts({ referenced: [{ invoice: f, via: 'key' }], customers: [{ ...hint('c2', 'name', 0.95), customer_name: 'Dune Logistics' }], payerTokens: nameTokens('Dune Logistics') }));
    expect(other.state).toBe('suggested');
  });

  it('suggests a partial payment of a referenced invoice, and an overpayment with the rest as unapplied cash', () => {
    const a = invoice('INV-1', 125000);
    const partial = run(40000, facts({ referenced: [{ invoice: a, via: 'written' }] }));
    expect(partial).toMatchObject({ state: 'suggested', proposal: { allocations: [{ invoice_id: a.id, amount: 40000 }], unapplied: 0 } });
    expect(partial.candidates[0].reasons).toContain('partial payment: $400.00 of $1,250.00 open');
    const over = run(130000, facts({ referenced: [{ invoice: a, via: 'written' }] }));
    expect(over).toMatchObject({ state: 'suggested', proposal: { allocations: [{ invoice_id: a.id, amount: 125000 }], unapplied: 5000 } });
  });

  it('applies a learned account with an amount equal to exactly one open invoice of that customer, and only then', () => {
    const open = [invoice('INV-1', 1000), invoice('INV-2', 2500), invoice('INV-3', 4000)];
    const learned = facts({ customers: [hint('c1', 'account', 3)], openByCustomer: new Map([['c1', open]]) });
    const applied = run(2500, learned);
    expect(applied).toMatchObject({ state: 'applied', proposal: { allocations: [{ invoice_id: open[1].id, amount: 2500 }] } });
    expect(applied.candidates[0].reasons).toEqual(['amount equals the open balance of INV-2', 'payer account seen on 3 earlier payments of c1']);
    // 3,500 is the two oldest together: a sum, suggested.
    expect(run(3500, learned)).toMatchObject({ state: 'suggested', proposal: { allocations: [{ invoice_id: open[0].id, amount: 1000 }, { invoice_id: open[1].id, amount: 2500 }] } });
    // Two invoices of that balance: ambiguous.
    const twice = facts({ customers: [hint('c1', 'account', 3)], openByCustomer: new Map([['c1', [...open, invoice('INV-9', 2500)]]]) });
    expect(run(2500, twice).state).toBe('suggested');
    // A name alone is never enough.
    expect(run(2500, facts({ customers: [hint('c1', 'name', 1)], openByCustomer: new Map([['c1', open]]), payerTokens: ['cobalt'] })).state).toBe('suggested');
    // A statement's RF reference names the customer as surely as a learned account.
    expect(run(4000, facts({ customers: [hint('c1', 'statement_rf')], openByCustomer: new Map([['c1', open]]) })).state).toBe('applied');
  });

  it('ranks, weakly, an invoice of the whole ledger with the same open balance when nothing else points anywhere; debits are only listed', () => {
    const lone = invoice('INV-7', 777, 'c2');
    const d = run(777, facts({ sameAmount: [lone] }));
    expect(d.state).toBe('suggested');
    expect(d.confidence).toBeLessThan(0.5);
    expect(d.candidates[0].reasons).toEqual(['amount equals the open balance of INV-7, the only open invoice with it']);
    expect(run(777, facts({})).state).toBe('unmatched');
    expect(decide({ amount: 5, currency: 'USD', direction: 'debit', companyCurrency: 'USD' }, facts({}), () => undefined)).toMatchObject({ state: 'debit', candidates: [] });
  });

  it('finds sums of one customer: one invoice, the oldest together, a pair, everything; subsets of referenced invoices', () => {
    const open = [invoice('A', 100), invoice('B', 200), invoice('C', 300), invoice('D', 450)];
    expect(customerSums(open, 300).map((w) => w.invoices.map((i) => i.number))).toEqual([['C'], ['A', 'B']]);
    expect(customerSums(open, 650).map((w) => w.invoices.map((i) => i.number))).toEqual([['B', 'D']]);
    expect(customerSums(open, 1050).map((w) => w.how)).toEqual(['amount equals everything the customer owes']);
    expect(subsetsSumming(open, 750).map((s) => s.map((i) => i.number))).toEqual([['A', 'B', 'D'], ['C', 'D']]);
  });
});
