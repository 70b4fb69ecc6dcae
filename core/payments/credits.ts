/**
 * A customer's credits, each with where it came from: invoices paid more than their total (the
 * rest of an overpayment stays on the invoice as a negative balance), credit notes not yet used
 * (invoices with a negative total, still open) and unapplied cash (the part of a bank credit kept
 * on the customer, core/bank; an undone application's is left out). The customer page, the
 * statement and the portal read them here, so all three show the same credits. The statement
 * reads it on a document thread too: this file imports nothing of the engine.
 */
import { sql } from 'kysely';
import type { Db } from '../db/connection';
import { NotFoundError } from '../errors';

export type CreditKind = 'overpayment' | 'credit_note' | 'unapplied_cash';

export interface CreditItem {
  kind: CreditKind;
  /** The day it arose: the overpaid invoice's last payment, the credit note's date, the bank booking. */
  date: string;
  currency: string;
  /** Minor units, positive: what the customer has to their good. */
  amount: number;
  /** The overpaid invoice or the credit note. */
  invoice_id: string | null;
  invoice_number: string | null;
  /** The bank entry the unapplied cash came in with. */
  bank_transaction_id: string | null;
  payer: string | null;
  /** The bank's reference for the entry, else its remittance text. */
  reference: string | null;
}

export interface CreditTotal {
  currency: string;
  credits: number;
}

export interface CustomerCredits {
  items: CreditItem[];
  /** Per currency, the sum of the items. */
  totals: CreditTotal[];
}

/** At most this many items are listed per kind (the totals count them all): a statement or page stays readable. */
export const MAX_CREDIT_ITEMS = 200;

/**
 * The credits the customer had on `asOf` (a day; today's for the credits as they stand): an
 * overpayment once the invoice closed overpaid, a credit note from its date, unapplied cash from the
 * bank's booking day until an undo took it back.
 */
export async function customerCredits(db: Db, companyId: string, customerId: string, asOf: string): Promise<CustomerCredits> {
  const invoices = await db
    .selectFrom('invoices')
    .select(['id', 'invoice_number', 'invoice_date', 'closed_date', 'currency', 'total_amount', 'balance'])
    .where('company_id', '=', companyId)
    .where('customer_id', '=', customerId)
    .where('balance', '<', 0)
    .where((eb) =>
      eb.or([
        eb.and([eb('closing_reason', '=', 'overpaid'), eb('closed_date', '<=', asOf)]),
        eb.and([eb('closing_reason', 'is', null), eb('total_amount', '<', 0), eb('invoice_date', '<=', asOf)]),
      ]),
    )
    .orderBy('invoice_date')
    .orderBy('invoice_number')
    .execute();
  const cash = await db
    .selectFrom('bank_applications as a')
    .innerJoin('bank_transactions as t', 't.id', 'a.transaction_id')
    .select(['a.amount', 't.id as transaction_id', 't.booked_on', 't.currency', 't.counterparty_name', 't.bank_reference', 't.remittance_text'])
    .where('a.company_id', '=', companyId)
    .where('a.customer_id', '=', customerId)
    .where('a.kind', '=', 'unapplied')
    .where('t.booked_on', '<=', asOf)
    .where((eb) => eb.or([eb('a.reversed_at', 'is', null), eb(sql<string>`substr(a.reversed_at, 1, 10)`, '>', asOf)]))
    .orderBy('t.booked_on')
    .orderBy('a.id')
    .execute();
  const items: CreditItem[] = [
    ...invoices.map((i) => ({
      kind: i.total_amount < 0 ? ('credit_note' as const) : ('overpayment' as const),
      date: i.total_amount < 0 ? i.invoice_date : (i.closed_date ?? i.invoice_date),
      currency: i.currency,
      amount: -i.balance,
      invoice_id: i.id,
      invoice_number: i.invoice_number,
      bank_transaction_id: null,
      payer: null,
      reference: null,
    })),
    ...cash.map((c) => ({
      kind: 'unapplied_cash' as const,
      date: c.booked_on,
      currency: c.currency,
      amount: c.amount,
      invoice_id: null,
      invoice_number: null,
      bank_transaction_id: c.transaction_id,
      payer: c.counterparty_name,
      reference: c.bank_reference ?? (c.remittance_text.trim() || null),
    })),
  ];
  return { items: listed(items), totals: creditTotals(items) };
}

/** Sums per currency, in currency order. */
export function creditTotals(items: Array<Pick<CreditItem, 'currency' | 'amount'>>): CreditTotal[] {
  const sums = new Map<string, number>();
  for (const i of items) sums.set(i.currency, (sums.get(i.currency) ?? 0) + i.amount);
  return [...sums].sort(([a], [b]) => a.localeCompare(b)).map(([currency, credits]) => ({ currency, credits }));
}

/** What is owed once the credits are taken off, per currency (negative: the customer is in credit). */
export function netBalances(open: Array<{ currency: string; open: number }>, credits: CreditTotal[]): Array<{ currency: string; open: number; credits: number; net: number }> {
  const currencies = [...new Set([...open.map((o) => o.currency), ...credits.map((c) => c.currency)])].sort();
  return currencies.map((currency) => {
    const o = open.filter((x) => x.currency === currency).reduce((s, x) => s + x.open, 0);
    const c = credits.find((x) => x.currency === currency)?.credits ?? 0;
    return { currency, open: o, credits: c, net: o - c };
  });
}

export interface CreditSummary extends CustomerCredits {
  /** Per currency: the open invoices' balance, the credits and what is owed once they are taken off. */
  balances: Array<{ currency: string; open: number; credits: number; net: number }>;
}

/** The customer page's view: the credits as they stand and the net balance beside the open one. */
export async function customerCreditSummary(db: Db, companyId: string, customerId: string, today: string): Promise<CreditSummary> {
  const customer = await db.selectFrom('customers').select('id').where('company_id', '=', companyId).where('id', '=', customerId).executeTakeFirst();
  if (!customer) throw new NotFoundError('Customer', customerId);
  const credits = await customerCredits(db, companyId, customerId, today);
  const open = await db
    .selectFrom('invoices')
    .select(['currency', (eb) => eb.fn.sum<number>('balance').as('open')])
    .where('company_id', '=', companyId)
    .where('customer_id', '=', customerId)
    .where('closing_reason', 'is', null)
    .where('balance', '>', 0)
    .groupBy('currency')
    .execute();
  return { ...credits, balances: netBalances(open.map((o) => ({ currency: o.currency, open: Number(o.open) })), credits.totals) };
}

/** The newest MAX_CREDIT_ITEMS of each kind, oldest first. */
function listed(items: CreditItem[]): CreditItem[] {
  const kept: CreditItem[] = [];
  for (const kind of ['overpayment', 'credit_note', 'unapplied_cash'] as const) kept.push(...items.filter((i) => i.kind === kind).slice(-MAX_CREDIT_ITEMS));
  return kept.sort((a, b) => a.date.localeCompare(b.date));
}
