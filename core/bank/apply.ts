/**
 * Applying a bank credit: payments on the invoices it pays (method and reference from the bank
 * entry, dated the day it was booked), split over several invoices, a short payment leaving the
 * rest open (optionally disputed or written off, with the reason), an overpayment kept as
 * unapplied cash on the customer, and the payer's account learned. Undoing it voids those
 * payments. Each is one named command: one transaction, every row recorded as a change.
 */
import { sql } from 'kysely';
import { type CommandTx, type Engine, runCommand, type Scope } from '../engine';
import { ConflictError, type FieldErrors, NotFoundError, ValidationError } from '../errors';
import { openDisputeIn } from '../disputes/disputes';
import { newId } from '../ids';
import { formatMoney, fromMinor, toMinor } from '../money';
import { insertPayment } from '../payments/commands';
import { recomputeInvoiceBalance } from '../payments/balance';
import { withdrawProposals } from '../supersede/withdraw';
import { normalizeAccount } from './keys';
import type { BankTransactionsTable } from '../db/schema';

export interface ShortPayment {
  action: 'dispute' | 'write_off';
  reason: string;
}

export interface ApplyInput {
  /** Major units per invoice. */
  allocations: Array<{ invoice_id: string; amount: number }>;
  /** Major units kept as unapplied cash on the customer; by default what the allocations leave of the credit. */
  unapplied_amount?: number;
  /** The customer unapplied cash goes to when no invoice is named. */
  customer_id?: string;
  note?: string | null;
  /** What happens to the rest of an invoice paid short. */
  short_payment?: ShortPayment;
}

/** What applying a credit reads of it. */
export type ApplicationEntry = Pick<BankTransactionsTable, 'id' | 'state' | 'amount' | 'currency' | 'booked_on' | 'bank_reference' | 'end_to_end_id' | 'counterparty_account' | 'bank_code' | 'direction'>;

/**
 * company_id kept out of SQLite's choice of index (a unary plus), still a condition: with three
 * ids or more it otherwise walks every invoice of the company instead of looking each id up.
 */
export const NOT_INDEXED_COMPANY = sql<string>`+company_id`;

/** States a credit can be applied from: not yet applied, not a debit. Ignored ones can be applied after all. */
const APPLICABLE = new Set(['suggested', 'unmatched', 'ignored', 'pending']);

/** The payment method a bank entry's code stands for, in the payments' vocabulary. */
export function paymentMethodOf(bankCode: string | null): string {
  const code = (bankCode ?? '').toUpperCase();
  if (/CHK|CHEQUE|CHECK|CCHQ/.test(code)) return 'CHECK';
  if (/CARD|CCRD|DCRD/.test(code)) return 'CREDIT_CARD';
  if (/DD|DIRECT.?DEBIT|DMCT|\bDD\b/.test(code)) return 'DIRECT_DEBIT';
  return 'BANK_TRANSFER';
}

async function loadTransaction(tx: CommandTx, companyId: string, id: string): Promise<ApplicationEntry> {
  const row = await tx.db
    .selectFrom('bank_transactions')
    .select(['id', 'state', 'amount', 'currency', 'booked_on', 'bank_reference', 'end_to_end_id', 'counterparty_account', 'bank_code', 'direction'])
    .where('company_id', '=', companyId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) throw new NotFoundError('Bank transaction', id);
  return row;
}

/**
 * Applies one credit inside a running command, with amounts in minor units. Throws a
 * ValidationError (nothing written) when an allocation does not fit the invoice or the credit.
 */
export async function applyIn(
  tx: CommandTx,
  scope: Scope,
  entry: ApplicationEntry,
  plan: {
    allocations: Array<{ invoice_id: string; amount: number }>;
    unapplied: number;
    customerId?: string | null;
    note: string | null;
    short?: ShortPayment;
    automatic: boolean;
  },
): Promise<void> {
  const companyId = scope.companyId;
  const errors: FieldErrors = {};
  const add = (field: string, message: string) => (errors[field] ??= []).push(message);
  if (entry.direction !== 'credit') throw new ConflictError('A debit is listed, never applied', 'bank_debit');
  if (!APPLICABLE.has(entry.state)) throw new ConflictError(`This credit is ${entry.state}: undo it before applying it again`, 'bank_transaction_applied');
  const allocated = plan.allocations.reduce((s, a) => s + a.amount, 0);
  if (plan.unapplied < 0 || allocated + plan.unapplied !== entry.amount) {
    add('allocations', `The allocations${plan.unapplied > 0 ? ' and unapplied amount' : ''} add up to ${formatMoney(allocated + Math.max(plan.unapplied, 0), entry.currency)}, not the credit's ${formatMoney(entry.amount, entry.currency)}`);
  }
  const ids = plan.allocations.map((a) => a.invoice_id.toLowerCase());
  if (new Set(ids).size !== ids.length) add('allocations', 'Name each invoice once');
  const invoices = ids.length
    ? await tx.db.selectFrom('invoices').select(['id', 'invoice_number', 'customer_id', 'balance', 'currency', 'closing_reason']).where(NOT_INDEXED_COMPANY, '=', companyId).where('id', 'in', ids).execute()
    : [];
  const byId = new Map(invoices.map((i) => [i.id, i]));
  plan.allocations.forEach((a, n) => {
    const invoice = byId.get(a.invoice_id.toLowerCase());
    const field = `allocations.${n}`;
    if (!invoice) return add(field, 'No such invoice in this company');
    if (a.amount <= 0) add(field, 'The amount must be more than zero');
    if (invoice.closing_reason !== null) add(field, `${invoice.invoice_number} is closed (${invoice.closing_reason})`);
    else if (a.amount > invoice.balance) add(field, `${formatMoney(a.amount, entry.currency)} is more than ${invoice.invoice_number}'s open ${formatMoney(invoice.balance, invoice.currency)}: put the rest in unapplied_amount`);
    if (invoice.currency !== entry.currency) add(field, `${invoice.invoice_number} is in ${invoice.currency}, the credit in ${entry.currency}`);
  });
  const customerId = invoices.length ? byId.get(ids[0])!.customer_id : (plan.customerId?.toLowerCase() ?? null);
  if (plan.unapplied > 0 && !customerId) add('customer_id', 'Say which customer the unapplied cash belongs to');
  if (customerId && !invoices.length) {
    const customer = await tx.db.selectFrom('customers').select('id').where('company_id', '=', companyId).where('id', '=', customerId).executeTakeFirst();
    if (!customer) add('customer_id', 'No such customer in this company');
  }
  if (plan.short && !plan.short.reason.trim()) add('short_payment.reason', 'Say why the rest stays unpaid');
  if (Object.keys(errors).length) throw new ValidationError('The application is invalid', errors);

  const paidOn = entry.booked_on > tx.today ? tx.today : entry.booked_on;
  const reference = entry.bank_reference ?? entry.end_to_end_id;
  const rows: Array<{ id: string; invoice_id: string | null; payment_id: string | null; kind: 'invoice' | 'unapplied'; amount: number; short_action: ShortPayment['action'] | null }> = [];
  for (const a of plan.allocations) {
    const invoice = byId.get(a.invoice_id.toLowerCase())!;
    const paymentId = await insertPayment(tx, companyId, {
      invoice: invoice.id,
      amount: fromMinor(a.amount),
      payment_date: paidOn,
      payment_method: paymentMethodOf(entry.bank_code),
      transaction_id: reference ? reference.slice(0, 200) : null,
      notes: plan.note ? plan.note.slice(0, 5000) : 'Applied from a bank statement',
    });
    const left = invoice.balance - a.amount;
    await withdrawProposals(tx, companyId, { kind: 'payment', customerId: invoice.customer_id, invoiceId: invoice.id, paidInFull: left <= 0, on: paidOn });
    let short: ShortPayment['action'] | null = null;
    if (left > 0 && plan.short) {
      short = plan.short.action;
      if (short === 'dispute') await openDisputeIn(tx, scope, { invoice_id: invoice.id, reason: plan.short.reason.trim() });
      else await writeOff(tx, invoice.id, plan.short.reason.trim());
    }
    rows.push({ id: newId(), invoice_id: invoice.id, payment_id: paymentId, kind: 'invoice', amount: a.amount, short_action: short });
  }
  if (plan.unapplied > 0) rows.push({ id: newId(), invoice_id: null, payment_id: null, kind: 'unapplied', amount: plan.unapplied, short_action: null });
  const applications = rows.map((r) => ({ ...r, company_id: companyId, transaction_id: entry.id, customer_id: customerId, automatic: plan.automatic ? (1 as const) : (0 as const), note: plan.note, applied_by: tx.actor.name, reversed_at: null, reversed_by: null, created_at: tx.now }));
  await tx.db.insertInto('bank_applications').values(applications).execute();
  const account = normalizeAccount(entry.counterparty_account);
  if (account && customerId) await learnAccount(tx, companyId, account, customerId, paidOn);
  const changes = { state: 'applied' as const, customer_id: customerId ?? null, note: plan.note, updated_at: tx.now };
  await tx.db.updateTable('bank_transactions').set(changes).where('id', '=', entry.id).execute();
  await tx.recordMany([...applications.map((a) => ({ entity: 'bank_application', entityId: a.id, op: 'insert' as const, data: a })), { entity: 'bank_transaction', entityId: entry.id, op: 'update' as const, data: changes }]);
}

/** Closes the rest of a short-paid invoice as written off, with the reason on record. */
async function writeOff(tx: CommandTx, invoiceId: string, reason: string): Promise<void> {
  const changes = { closing_reason: 'written_off' as const, closed_date: tx.today, updated_at: tx.now };
  await tx.db.updateTable('invoices').set(changes).where('id', '=', invoiceId).execute();
  await tx.record('invoice', invoiceId, 'update', { ...changes, reason });
}

/** Remembers that credits from `account` were applied to this customer's invoices. */
export async function learnAccount(tx: CommandTx, companyId: string, account: string, customerId: string, on: string): Promise<void> {
  const known = await tx.db.selectFrom('bank_payer_accounts').select(['id', 'times_applied']).where('company_id', '=', companyId).where('account', '=', account).where('customer_id', '=', customerId).executeTakeFirst();
  if (known) {
    const changes = { times_applied: known.times_applied + 1, last_applied_on: on, updated_at: tx.now };
    await tx.db.updateTable('bank_payer_accounts').set(changes).where('id', '=', known.id).execute();
    await tx.record('bank_payer_account', known.id, 'update', changes);
    return;
  }
  const row = { id: newId(), company_id: companyId, account, customer_id: customerId, times_applied: 1, last_applied_on: on, created_at: tx.now, updated_at: tx.now };
  await tx.db.insertInto('bank_payer_accounts').values(row).execute();
  await tx.record('bank_payer_account', row.id, 'insert', row);
}

/** Applies a credit as a person chose (the review, the API): amounts in major units. */
export async function applyTransaction(engine: Pick<Engine, 'db' | 'clock'>, scope: Scope, transactionId: string, input: ApplyInput): Promise<void> {
  await runCommand(engine, 'apply_bank_transaction', scope, async (tx) => {
    const entry = await loadTransaction(tx, scope.companyId, transactionId);
    const allocations = input.allocations.map((a) => ({ invoice_id: a.invoice_id, amount: toMinor(a.amount) }));
    const allocated = allocations.reduce((s, a) => s + a.amount, 0);
    const unapplied = input.unapplied_amount === undefined ? entry.amount - allocated : toMinor(input.unapplied_amount);
    await applyIn(tx, scope, entry, { allocations, unapplied, customerId: input.customer_id ?? null, note: input.note?.trim() || null, short: input.short_payment, automatic: false });
  });
}

/**
 * Undoes a credit's application: its payments voided (the invoices reopen as they were), its
 * unapplied cash withdrawn, the account's learning taken back; the credit is to review again.
 */
export async function unapplyTransaction(engine: Pick<Engine, 'db' | 'clock'>, scope: Scope, transactionId: string): Promise<void> {
  await runCommand(engine, 'unapply_bank_transaction', scope, async (tx) => {
    const entry = await loadTransaction(tx, scope.companyId, transactionId);
    if (entry.state !== 'applied') throw new ConflictError(`This credit is ${entry.state}, not applied: there is nothing to undo`, 'bank_transaction_not_applied');
    const applications = await tx.db.selectFrom('bank_applications').selectAll().where('transaction_id', '=', entry.id).where('reversed_at', 'is', null).execute();
    for (const a of applications) {
      if (a.payment_id) {
        const payment = await tx.db.selectFrom('payments').select(['status', 'invoice_id']).where('id', '=', a.payment_id).executeTakeFirst();
        if (payment && payment.status !== 'VOIDED') {
          const changes = { status: 'VOIDED' as const, voided_at: tx.now, status_reason: 'bank application undone', updated_at: tx.now };
          await tx.db.updateTable('payments').set(changes).where('id', '=', a.payment_id).execute();
          await tx.record('payment', a.payment_id, 'update', { ...changes, previous_status: payment.status });
          const totals = await recomputeInvoiceBalance(tx.db, payment.invoice_id, tx.now);
          await tx.record('invoice', payment.invoice_id, 'update', { ...totals });
        }
      }
      const reversed = { reversed_at: tx.now, reversed_by: tx.actor.name };
      await tx.db.updateTable('bank_applications').set(reversed).where('id', '=', a.id).execute();
      await tx.record('bank_application', a.id, 'update', reversed);
    }
    const account = normalizeAccount(entry.counterparty_account);
    const customerId = applications[0]?.customer_id;
    if (account && customerId) {
      const known = await tx.db.selectFrom('bank_payer_accounts').select(['id', 'times_applied']).where('company_id', '=', scope.companyId).where('account', '=', account).where('customer_id', '=', customerId).executeTakeFirst();
      if (known && known.times_applied <= 1) {
        await tx.db.deleteFrom('bank_payer_accounts').where('id', '=', known.id).execute();
        await tx.record('bank_payer_account', known.id, 'delete', {});
      } else if (known) {
        const changes = { times_applied: known.times_applied - 1, updated_at: tx.now };
        await tx.db.updateTable('bank_payer_accounts').set(changes).where('id', '=', known.id).execute();
        await tx.record('bank_payer_account', known.id, 'update', changes);
      }
    }
    const { candidates } = await tx.db.selectFrom('bank_transactions').select('candidates').where('id', '=', entry.id).executeTakeFirstOrThrow();
    const changes = { state: candidates === '[]' ? ('unmatched' as const) : ('suggested' as const), updated_at: tx.now };
    await tx.db.updateTable('bank_transactions').set(changes).where('id', '=', entry.id).execute();
    await tx.record('bank_transaction', entry.id, 'update', changes);
  });
}

/** Sets a credit aside (interest, a refund, not a customer's payment): it leaves the review lists. */
export async function ignoreTransaction(engine: Pick<Engine, 'db' | 'clock'>, scope: Scope, transactionId: string, note: string | null): Promise<void> {
  await runCommand(engine, 'ignore_bank_transaction', scope, async (tx) => {
    const entry = await loadTransaction(tx, scope.companyId, transactionId);
    if (entry.state === 'applied') throw new ConflictError('This credit is applied: undo it before ignoring it', 'bank_transaction_applied');
    if (entry.state === 'debit') throw new ConflictError('A debit is only listed: there is nothing to ignore', 'bank_debit');
    const changes = { state: 'ignored' as const, note: note?.trim() || null, updated_at: tx.now };
    await tx.db.updateTable('bank_transactions').set(changes).where('id', '=', entry.id).execute();
    await tx.record('bank_transaction', entry.id, 'update', changes);
  });
}
