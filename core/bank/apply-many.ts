/**
 * An import's automatic applications, a batch at a time in the caller's transaction: the same
 * rows and change records as applying each credit by itself (apply.ts: payments from the bank
 * entry, the invoices brought up to date, the application rows, the payer account learned, the
 * engine's proposals for a paid invoice withdrawn), written with a few statements for the whole
 * batch instead of about fifteen per credit. Each credit is checked again against the ledger as
 * it is under the write lock; one that no longer fits (an invoice paid meanwhile) is left out,
 * whole, for review.
 */
import { chunks } from '../chunks';
import type { CommandTx, Scope } from '../engine';
import { newId } from '../ids';
import { invoiceTotals, SETTLED_STATUSES } from '../payments/balance';
import { normalizePaymentMethod, normalizePaymentType, settledStatus } from '../payments/rules';
import { withdrawProposals } from '../supersede/withdraw';
import { type ApplicationEntry, learnAccount, NOT_INDEXED_COMPANY, paymentMethodOf } from './apply';
import { normalizeAccount } from './keys';
import { type Insertable, sql } from 'kysely';
import type { BankApplicationsTable, BankTransactionsTable, ClosingReason, PaymentsTable } from '../db/schema';

export interface AutomaticApplication {
  entry: ApplicationEntry;
  /** Minor units per invoice; the credit's whole amount (an automatic application leaves nothing unapplied). */
  allocations: Array<{ invoice_id: string; amount: number }>;
  matched: Pick<BankTransactionsTable, 'confidence' | 'candidates' | 'flag'>;
}

type ChangeEntry = Parameters<CommandTx['recordMany']>[0][number];

interface InvoiceState {
  id: string;
  customer_id: string;
  balance: number;
  currency: string;
  closing_reason: ClosingReason | null;
  total_amount: number;
  closed_date: string | null;
}

/** Rows per multi-row insert: well under SQLite's limit of bound values. */
const INSERT_ROWS = 60;
const NOTE = 'Applied from a bank statement';

/**
 * Applies the credits that still fit and returns their ids (the others are the caller's to leave
 * for review); their change records go to `record`.
 */
export async function applyAutomatic(tx: CommandTx, scope: Scope, batch: AutomaticApplication[], record: ChangeEntry[]): Promise<Set<string>> {
  const companyId = scope.companyId;
  const ids = [...new Set(batch.flatMap((b) => b.allocations.map((a) => a.invoice_id)))];
  const invoices = new Map<string, InvoiceState>();
  for (const part of chunks(ids, 500)) {
    const rows = await tx.db
      .selectFrom('invoices')
      .select(['id', 'customer_id', 'balance', 'currency', 'closing_reason', 'total_amount', 'closed_date'])
      .where(NOT_INDEXED_COMPANY, '=', companyId)
      .where('id', 'in', part)
      .execute();
    for (const r of rows) invoices.set(r.id, { ...r });
  }

  // The same checks as apply.ts makes of one credit, against balances the batch's earlier credits lowered.
  const fits = (b: AutomaticApplication) =>
    b.entry.direction === 'credit' &&
    b.allocations.length > 0 &&
    b.allocations.reduce((s, a) => s + a.amount, 0) === b.entry.amount &&
    new Set(b.allocations.map((a) => a.invoice_id)).size === b.allocations.length &&
    new Set(b.allocations.map((a) => invoices.get(a.invoice_id)?.customer_id)).size === 1 &&
    b.allocations.every((a) => {
      const i = invoices.get(a.invoice_id);
      return i !== undefined && i.closing_reason === null && a.amount > 0 && a.amount <= i.balance && i.currency === b.entry.currency;
    });
  const applied: AutomaticApplication[] = [];
  const payments: Array<Insertable<PaymentsTable> & { status: PaymentsTable['status'] }> = [];
  const applications: Array<Insertable<BankApplicationsTable>> = [];
  for (const b of batch) {
    if (!fits(b)) continue;
    applied.push(b);
    const paidOn = b.entry.booked_on > tx.today ? tx.today : b.entry.booked_on;
    const reference = b.entry.bank_reference ?? b.entry.end_to_end_id;
    const customerId = invoices.get(b.allocations[0].invoice_id)!.customer_id;
    for (const a of b.allocations) {
      const invoice = invoices.get(a.invoice_id)!;
      const payment = {
        id: newId(),
        company_id: companyId,
        invoice_id: a.invoice_id,
        amount: a.amount,
        payment_date: paidOn,
        payment_method: normalizePaymentMethod(paymentMethodOf(b.entry.bank_code)),
        payment_type: normalizePaymentType('PAYMENT'),
        status: settledStatus(a.amount, invoice.balance),
        transaction_id: reference ? reference.slice(0, 200) : null,
        remote_id: null,
        notes: NOTE,
        voided_at: null,
        created_at: tx.now,
        updated_at: tx.now,
      };
      invoice.balance -= a.amount;
      payments.push(payment);
      applications.push({
        id: newId(),
        company_id: companyId,
        transaction_id: b.entry.id,
        customer_id: customerId,
        invoice_id: a.invoice_id,
        payment_id: payment.id,
        kind: 'invoice' as const,
        amount: a.amount,
        short_action: null,
        automatic: 1 as const,
        note: null,
        applied_by: tx.actor.name,
        reversed_at: null,
        reversed_by: null,
        created_at: tx.now,
      });
    }
  }
  if (!applied.length) return new Set();

  for (const part of chunks(payments, INSERT_ROWS)) await tx.db.insertInto('payments').values(part).execute();
  for (const p of payments) {
    const { id, company_id, created_at, updated_at, ...data } = p;
    record.push({ entity: 'payment', entityId: id, op: 'insert', data });
  }

  // Each paid invoice's money state from all its settled payments, as recomputeInvoiceBalance works it out.
  const paidIds = [...new Set(payments.map((p) => p.invoice_id))];
  const settled = new Map<string, { amount: number; payment_date: string }>();
  for (const part of chunks(paidIds, 500)) {
    const rows = await tx.db
      .selectFrom('payments')
      .select(['invoice_id', (eb) => eb.fn.sum<number>('amount').as('amount'), (eb) => eb.fn.max('payment_date').as('payment_date')])
      .where('invoice_id', 'in', part)
      .where('status', 'in', SETTLED_STATUSES)
      .groupBy('invoice_id')
      .execute();
    for (const r of rows) settled.set(r.invoice_id, { amount: Number(r.amount), payment_date: r.payment_date as string });
  }
  const paidInFull = new Map<string, boolean>();
  for (const id of paidIds) {
    const invoice = invoices.get(id)!;
    const totals = invoiceTotals(invoice.total_amount, invoice.closing_reason, invoice.closed_date, settled.has(id) ? [settled.get(id)!] : []);
    await tx.db.updateTable('invoices').set({ ...totals, updated_at: tx.now }).where('id', '=', id).execute();
    record.push({ entity: 'invoice', entityId: id, op: 'update', data: { ...totals } });
    paidInFull.set(id, totals.balance <= 0);
  }

  // Only invoices with an open proposal of the engine have anything to withdraw: one look for the batch.
  const proposed = new Set<string>();
  for (const part of chunks(paidIds, 500)) {
    const rows = await tx.db
      .selectFrom('actions')
      .select('invoice_id')
      .distinct()
      // By the invoice index: the company's and the status's would walk every open proposal of the company.
      .where(NOT_INDEXED_COMPANY, '=', companyId)
      .where('invoice_id', 'in', part)
      .where(sql<string>`+status`, 'in', ['proposed', 'scheduled'])
      .where('is_ai_recommended', '=', 1)
      .where('deleted_at', 'is', null)
      .execute();
    for (const r of rows) if (r.invoice_id) proposed.add(r.invoice_id);
  }
  for (const p of payments) {
    if (!proposed.has(p.invoice_id)) continue;
    await withdrawProposals(tx, companyId, { kind: 'payment', customerId: invoices.get(p.invoice_id)!.customer_id, invoiceId: p.invoice_id, paidInFull: paidInFull.get(p.invoice_id)!, on: p.payment_date });
  }

  for (const part of chunks(applications, INSERT_ROWS)) await tx.db.insertInto('bank_applications').values(part).execute();
  for (const a of applications) record.push({ entity: 'bank_application', entityId: a.id, op: 'insert', data: a });

  for (const b of applied) {
    const customerId = invoices.get(b.allocations[0].invoice_id)!.customer_id;
    const account = normalizeAccount(b.entry.counterparty_account);
    if (account) await learnAccount(tx, companyId, account, customerId, b.entry.booked_on > tx.today ? tx.today : b.entry.booked_on);
    const changes = { ...b.matched, state: 'applied' as const, customer_id: customerId, note: null, updated_at: tx.now };
    await tx.db.updateTable('bank_transactions').set(changes).where('id', '=', b.entry.id).execute();
    record.push({ entity: 'bank_transaction', entityId: b.entry.id, op: 'update', data: changes });
  }
  return new Set(applied.map((b) => b.entry.id));
}
