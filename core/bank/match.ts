/**
 * The matching rules, pure: given what the ledger says about one credit (the invoices its text
 * references, the customers its payer account and name point to, their open invoices), which
 * invoices it pays, how sure that is and why, in words. A credit is applied automatically only
 * when it is unambiguous: an invoice reference and an amount equal to that invoice's open balance
 * (or to the sum of the referenced invoices' balances, one way only); or a learned payer account
 * (or ardesk's statement reference) and an amount equal to exactly one open invoice of that one
 * customer. A wrong automatic application is the worst outcome, so anything else is a suggestion.
 */
import { formatMoney, fromMinor } from '../money';
import { nameSimilarity, nameTokens } from './keys';

export interface InvoiceFact {
  id: string;
  number: string;
  customer_id: string;
  customer_name: string;
  /** Open balance in minor units. */
  balance: number;
  currency: string;
  due_date: string;
  /** Null while open. */
  closing_reason: string | null;
}

export interface ReferencedInvoice {
  invoice: InvoiceFact;
  /** How the credit names it: an RF reference of ardesk's, the number as written, or its key only (typed differently). */
  via: 'rf' | 'written' | 'key';
}

export interface CustomerHint {
  customer_id: string;
  customer_name: string;
  /** Learned account: applied credits from it; name: similarity 0..1; statement RF or advice: 1. */
  strength: number;
  via: 'account' | 'name' | 'statement_rf' | 'advice';
}

export interface AdviceFact {
  customer_id: string;
  invoice_ids: string[];
  amount: number;
  paid_on: string;
}

export interface CreditFacts {
  referenced: ReferencedInvoice[];
  customers: CustomerHint[];
  /** Open invoices (in the credit's currency) of every customer hinted at or referenced, oldest due first. */
  openByCustomer: Map<string, InvoiceFact[]>;
  advices: AdviceFact[];
  /** Open invoices anywhere in the ledger whose balance equals the amount (a few at most), when nothing else points anywhere. */
  sameAmount: InvoiceFact[];
  /** More open invoices than sameAmount holds share that balance. */
  sameAmountMore: boolean;
  /** The payer's name words (nameTokens). */
  payerTokens: string[];
}

export interface CreditInput {
  amount: number;
  currency: string;
  direction: 'credit' | 'debit';
  /** The company's currency: a credit in another one is flagged and never applied automatically. */
  companyCurrency: string;
}

export interface Allocation {
  invoice_id: string;
  /** Minor units. */
  amount: number;
}

export interface Hypothesis {
  customer_id: string;
  allocations: Allocation[];
  /** Minor units left over as unapplied cash on the customer. */
  unapplied: number;
  score: number;
  reasons: string[];
}

export interface Candidate {
  invoice_id: string;
  invoice_number: string;
  customer_id: string;
  customer_name: string;
  /** Major units: what the candidate would apply to this invoice. */
  amount: number;
  open_balance: number;
  confidence: number;
  reasons: string[];
}

export interface Decision {
  state: 'applied' | 'suggested' | 'unmatched' | 'debit';
  flag: 'foreign_currency' | null;
  customer_id: string | null;
  confidence: number | null;
  /** The best way to apply it (the one applied automatically when state is applied). */
  proposal: Hypothesis | null;
  candidates: Candidate[];
}

/** Referenced invoices considered for sums: past this, the subsets are too many to tell apart anyway. */
const MAX_SUBSET_INVOICES = 10;
/** Open invoices of one customer tried in pairs for a sum. */
const MAX_PAIR_INVOICES = 60;
const MAX_CANDIDATES = 10;
/** A payer name this alike a customer's points to that customer. */
export const NAME_THRESHOLD = 0.6;
/** A payer name this alike another customer (and not the referenced one) stops an automatic application. */
const CONFLICTING_NAME = 0.9;

const isOpen = (i: InvoiceFact) => i.closing_reason === null && i.balance > 0;

function money(minor: number, currency: string): string {
  return formatMoney(minor, currency);
}

function numbers(invoices: InvoiceFact[]): string {
  return invoices.map((i) => i.number).join(', ');
}

/** Every subset of `invoices` (non-empty) whose balances add up to `amount`. */
export function subsetsSumming(invoices: InvoiceFact[], amount: number): InvoiceFact[][] {
  const list = invoices.slice(0, MAX_SUBSET_INVOICES);
  const found: InvoiceFact[][] = [];
  for (let mask = 1; mask < 1 << list.length; mask++) {
    let sum = 0;
    const pick: InvoiceFact[] = [];
    for (let i = 0; i < list.length; i++) {
      if (mask & (1 << i)) {
        sum += list[i].balance;
        pick.push(list[i]);
      }
    }
    if (sum === amount) found.push(pick);
  }
  return found;
}

/**
 * Ways the open invoices of one customer add up to the amount: exactly one invoice, the oldest
 * ones in due order, a pair, or all of them. Each way once.
 */
export function customerSums(open: InvoiceFact[], amount: number): Array<{ invoices: InvoiceFact[]; how: string }> {
  const ways: Array<{ invoices: InvoiceFact[]; how: string }> = [];
  const seen = new Set<string>();
  const add = (invoices: InvoiceFact[], how: string) => {
    const key = invoices.map((i) => i.id).sort().join(',');
    if (seen.has(key)) return;
    seen.add(key);
    ways.push({ invoices, how });
  };
  for (const i of open) if (i.balance === amount) add([i], 'amount equals the open balance');
  let running = 0;
  for (let n = 0; n < open.length && running < amount; n++) {
    running += open[n].balance;
    if (n > 0 && running === amount) add(open.slice(0, n + 1), n === open.length - 1 ? 'amount equals everything the customer owes' : 'amount equals the oldest open invoices together');
  }
  const pairs = open.slice(0, MAX_PAIR_INVOICES);
  for (let a = 0; a < pairs.length; a++) {
    for (let b = a + 1; b < pairs.length; b++) if (pairs[a].balance + pairs[b].balance === amount) add([pairs[a], pairs[b]], 'amount equals two open balances together');
  }
  const total = open.reduce((s, i) => s + i.balance, 0);
  if (open.length > 1 && total === amount) add(open, 'amount equals everything the customer owes');
  return ways;
}

function fullAllocations(invoices: InvoiceFact[]): Allocation[] {
  return invoices.map((i) => ({ invoice_id: i.id, amount: i.balance }));
}

function clamp(score: number): number {
  return Math.round(Math.min(0.99, Math.max(0.01, score)) * 100) / 100;
}

function referenceReason(r: ReferencedInvoice): string {
  if (r.via === 'rf') return `creditor reference for ${r.invoice.number} in the remittance`;
  if (r.via === 'written') return `reference ${r.invoice.number} in the remittance text`;
  return `reference ${r.invoice.number} in the remittance text, typed differently`;
}

const REFERENCE_WEIGHT = { rf: 0.7, written: 0.55, key: 0.45 } as const;

function hintReason(h: CustomerHint): string {
  switch (h.via) {
    case 'account':
      return `payer account seen on ${h.strength} earlier payment${h.strength === 1 ? '' : 's'} of ${h.customer_name}`;
    case 'name':
      return `payer name is like ${h.customer_name}`;
    case 'statement_rf':
      return `creditor reference of ${h.customer_name}'s statement`;
    case 'advice':
      return `${h.customer_name} announced this payment`;
  }
}

function hintWeight(h: CustomerHint): number {
  switch (h.via) {
    case 'account':
      return 0.3 + Math.min(h.strength, 5) * 0.02;
    case 'name':
      return 0.3 * h.strength;
    case 'statement_rf':
      return 0.45;
    case 'advice':
      return 0.35;
  }
}

/** The hypotheses about one credit, best first, and whether the best one is unambiguous enough to apply by itself. */
export function hypotheses(credit: CreditInput, facts: CreditFacts): { ranked: Hypothesis[]; automatic: Hypothesis | null } {
  const found: Hypothesis[] = [];
  const cur = credit.currency;
  const referenced = facts.referenced.filter((r) => isOpen(r.invoice) && r.invoice.currency === cur);
  const refOf = new Map(referenced.map((r) => [r.invoice.id, r]));
  const hintsOf = (customerId: string) => facts.customers.filter((h) => h.customer_id === customerId);
  const nameOf = (customerId: string) => (facts.openByCustomer.get(customerId)?.[0]?.customer_name ?? facts.customers.find((h) => h.customer_id === customerId)?.customer_name ?? '');
  const nameBoost = (customerId: string) => {
    if (!facts.payerTokens.length) return { score: 0, reasons: [] as string[] };
    const h = hintsOf(customerId).find((x) => x.via === 'name');
    return h ? { score: hintWeight(h), reasons: [hintReason(h)] } : { score: 0, reasons: [] as string[] };
  };
  const otherHints = (customerId: string, except: CustomerHint['via'][] = []) => {
    const hs = hintsOf(customerId).filter((h) => h.via !== 'name' && !except.includes(h.via));
    return { score: hs.reduce((s, h) => s + hintWeight(h), 0), reasons: hs.map(hintReason) };
  };

  // 1. The invoices the remittance names.
  let automatic: Hypothesis | null = null;
  if (referenced.length) {
    const subsets = subsetsSumming(referenced.map((r) => r.invoice), credit.amount);
    for (const subset of subsets) {
      const customers = new Set(subset.map((i) => i.customer_id));
      const customerId = subset[0].customer_id;
      const refs = subset.map((i) => refOf.get(i.id)!);
      const refScore = Math.min(...refs.map((r) => REFERENCE_WEIGHT[r.via]));
      const name = nameBoost(customerId);
      const other = otherHints(customerId);
      found.push({
        customer_id: customerId,
        allocations: fullAllocations(subset),
        unapplied: 0,
        score: refScore + 0.35 + name.score + other.score - (customers.size > 1 ? 0.3 : 0),
        reasons: [...refs.map(referenceReason), subset.length === 1 ? 'amount equals the open balance' : `amount equals the open balances of ${numbers(subset)} together`, ...name.reasons, ...other.reasons],
      });
    }
    if (subsets.length === 1 && new Set(subsets[0].map((i) => i.customer_id)).size === 1 && !payerIsSomeoneElse(facts, subsets[0][0])) automatic = found[0];
    for (const r of referenced) {
      const name = nameBoost(r.invoice.customer_id);
      const other = otherHints(r.invoice.customer_id);
      if (r.invoice.balance > credit.amount) {
        found.push({
          customer_id: r.invoice.customer_id,
          allocations: [{ invoice_id: r.invoice.id, amount: credit.amount }],
          unapplied: 0,
          score: REFERENCE_WEIGHT[r.via] + 0.1 + name.score + other.score,
          reasons: [referenceReason(r), `partial payment: ${money(credit.amount, cur)} of ${money(r.invoice.balance, cur)} open`, ...name.reasons, ...other.reasons],
        });
      }
    }
    const sameCustomer = new Set(referenced.map((r) => r.invoice.customer_id)).size === 1;
    const total = referenced.reduce((s, r) => s + r.invoice.balance, 0);
    if (sameCustomer && total < credit.amount) {
      const customerId = referenced[0].invoice.customer_id;
      const name = nameBoost(customerId);
      found.push({
        customer_id: customerId,
        allocations: fullAllocations(referenced.map((r) => r.invoice)),
        unapplied: credit.amount - total,
        score: Math.min(...referenced.map((r) => REFERENCE_WEIGHT[r.via])) + 0.05 + name.score,
        reasons: [...referenced.map(referenceReason), `overpayment: ${money(credit.amount - total, cur)} more than the open balance stays as unapplied cash`, ...name.reasons],
      });
    }
  }

  // 2. The customers the payer's account, name, a statement reference or an announcement point to.
  const hinted = [...new Set(facts.customers.map((h) => h.customer_id))];
  for (const customerId of hinted) {
    const open = (facts.openByCustomer.get(customerId) ?? []).filter((i) => isOpen(i) && i.currency === cur);
    const name = nameBoost(customerId);
    const other = otherHints(customerId);
    const ways = customerSums(open, credit.amount);
    for (const way of ways) {
      const refBonus = way.invoices.some((i) => refOf.has(i.id)) ? 0.1 : 0;
      found.push({
        customer_id: customerId,
        allocations: fullAllocations(way.invoices),
        unapplied: 0,
        score: 0.3 + (way.invoices.length === 1 ? 0.05 : 0) + name.score + other.score + refBonus,
        reasons: [way.how + (way.invoices.length > 1 ? ` (${numbers(way.invoices)})` : ` of ${way.invoices[0].number}`), ...name.reasons, ...other.reasons],
      });
    }
    const strong = hintsOf(customerId).filter((h) => h.via === 'account' || h.via === 'statement_rf');
    const singles = ways.filter((w) => w.invoices.length === 1);
    const othersNamed = referenced.some((r) => r.invoice.customer_id !== customerId || !singles.some((w) => w.invoices[0].id === r.invoice.id));
    if (!automatic && strong.length && hinted.filter((c) => hintsOf(c).some((h) => h.via === 'account' || h.via === 'statement_rf')).length === 1 && singles.length === 1 && !othersNamed) {
      automatic = found.find((h) => h.customer_id === customerId && h.allocations.length === 1 && h.allocations[0].invoice_id === singles[0].invoices[0].id) ?? null;
    }
    if (!ways.length && open.length && hintsOf(customerId).some((h) => h.via !== 'name' || h.strength >= 0.8)) {
      // Nothing adds up: the oldest open invoice, paid in part (or in full with the rest unapplied).
      const oldest = open[0];
      const applied = Math.min(oldest.balance, credit.amount);
      found.push({
        customer_id: customerId,
        allocations: [{ invoice_id: oldest.id, amount: applied }],
        unapplied: credit.amount - applied,
        score: 0.1 + name.score * 0.5 + other.score * 0.5,
        reasons: [`oldest open invoice of ${oldest.customer_name}; the amount matches no open balance`, ...name.reasons, ...other.reasons],
      });
    }
  }

  // 3. Announced payments whose amount is this credit's.
  for (const advice of facts.advices) {
    if (advice.amount !== credit.amount) continue;
    const open = (facts.openByCustomer.get(advice.customer_id) ?? []).filter((i) => advice.invoice_ids.includes(i.id) && isOpen(i) && i.currency === cur);
    if (!open.length) continue;
    let left = credit.amount;
    const allocations: Allocation[] = [];
    for (const i of open) {
      if (left <= 0) break;
      const part = Math.min(i.balance, left);
      allocations.push({ invoice_id: i.id, amount: part });
      left -= part;
    }
    const name = nameBoost(advice.customer_id);
    found.push({ customer_id: advice.customer_id, allocations, unapplied: left, score: 0.55 + name.score, reasons: [`${nameOf(advice.customer_id)} announced a payment of ${money(advice.amount, cur)} for ${numbers(open)} on ${advice.paid_on}`, ...name.reasons] });
  }

  // 4. Nothing points anywhere: invoices of the whole ledger with this open balance, weakly.
  if (!found.length && facts.sameAmount.length) {
    const n = facts.sameAmount.length;
    for (const i of facts.sameAmount) {
      found.push({
        customer_id: i.customer_id,
        allocations: [{ invoice_id: i.id, amount: i.balance }],
        unapplied: 0,
        score: (facts.sameAmountMore ? 0.1 : 0.25) / n,
        reasons: [n === 1 && !facts.sameAmountMore ? `amount equals the open balance of ${i.number}, the only open invoice with it` : `amount equals the open balance of ${i.number} (${facts.sameAmountMore ? 'one of many' : `one of ${n}`} open invoices with it)`],
      });
    }
  }

  const ranked = dedupe(found).sort((a, b) => b.score - a.score || a.allocations.length - b.allocations.length);
  for (const h of ranked) h.score = clamp(h.score);
  const chosen = automatic ? ranked.find((h) => hypothesisKey(h) === hypothesisKey(automatic!)) ?? null : null;
  if (chosen) {
    chosen.score = Math.max(chosen.score, 0.9);
    ranked.splice(ranked.indexOf(chosen), 1);
    ranked.unshift(chosen);
  }
  return { ranked, automatic: chosen };
}

function hypothesisKey(h: Hypothesis): string {
  return `${h.allocations.map((a) => `${a.invoice_id}:${a.amount}`).sort().join(',')}|${h.unapplied}`;
}

/** The same allocation found twice (by reference and by account) is one hypothesis with both reasons. */
function dedupe(found: Hypothesis[]): Hypothesis[] {
  const byKey = new Map<string, Hypothesis>();
  for (const h of found) {
    const key = hypothesisKey(h);
    const seen = byKey.get(key);
    if (!seen) byKey.set(key, h);
    else if (h.score > seen.score) byKey.set(key, { ...h, reasons: [...new Set([...h.reasons, ...seen.reasons])] });
    else seen.reasons = [...new Set([...seen.reasons, ...h.reasons])];
  }
  return [...byKey.values()];
}

/**
 * The payer's name is clearly another customer's and not at all the referenced invoice's: a
 * reference typed wrong by someone else, so no automatic application.
 */
function payerIsSomeoneElse(facts: CreditFacts, invoice: InvoiceFact): boolean {
  if (!facts.payerTokens.length) return false;
  const other = facts.customers.some((h) => h.via === 'name' && h.customer_id !== invoice.customer_id && h.strength >= CONFLICTING_NAME);
  if (!other) return false;
  return nameSimilarity(facts.payerTokens, nameTokens(invoice.customer_name)) < 0.5;
}

/** The decision about one entry: its state, its ranked candidates (per invoice) and the proposal the review shows first. */
export function decide(credit: CreditInput, facts: CreditFacts, invoiceOf: (id: string) => InvoiceFact | undefined): Decision {
  if (credit.direction === 'debit') return { state: 'debit', flag: null, customer_id: null, confidence: null, proposal: null, candidates: [] };
  const flag = credit.currency !== credit.companyCurrency ? 'foreign_currency' : null;
  const { ranked, automatic } = hypotheses(credit, facts);
  const candidates: Candidate[] = [];
  const seen = new Set<string>();
  for (const h of ranked) {
    for (const a of h.allocations) {
      if (seen.has(a.invoice_id) || candidates.length >= MAX_CANDIDATES) continue;
      const invoice = invoiceOf(a.invoice_id);
      if (!invoice) continue;
      seen.add(a.invoice_id);
      candidates.push({
        invoice_id: invoice.id,
        invoice_number: invoice.number,
        customer_id: invoice.customer_id,
        customer_name: invoice.customer_name,
        amount: fromMinor(a.amount),
        open_balance: fromMinor(invoice.balance),
        confidence: h.score,
        reasons: h.reasons,
      });
    }
  }
  const best = ranked[0] ?? null;
  const state = automatic && !flag ? 'applied' : best ? 'suggested' : 'unmatched';
  return { state, flag, customer_id: best?.customer_id ?? null, confidence: best?.score ?? null, proposal: best, candidates };
}
