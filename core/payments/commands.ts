/**
 * Writing payments. Each command changes the payment and its invoice's paid_amount, balance and
 * closing in one transaction, and records both.
 */
import type { PaymentStatus } from '../db/schema';
import { withdrawProposals } from '../supersede/withdraw';
import { type CommandTx, type Engine, runCommand, type Scope } from '../engine';
import { ConflictError, type FieldErrors, NotFoundError, ValidationError } from '../errors';
import { isValidDate } from '../dates';
import { newId, isUuid } from '../ids';
import { hasAtMostTwoDecimals, toMinor } from '../money';
import { recomputeInvoiceBalance, SETTLED_STATUSES } from './balance';
import { getPayment, type PaymentDto } from './queries';
import {
  acceptsPayments,
  MAX_PAYMENT_MINOR,
  normalizePaymentMethod,
  normalizePaymentType,
  operationChanges,
  type PaymentOperation,
  RECORDABLE_STATUSES,
  settledStatus,
} from './rules';
import { blankToNull } from '../text';

export interface NewPaymentInput {
  invoice: string;
  /** Major units (e.g. 125.5), at most two decimals, more than zero. */
  amount: number;
  /** Defaults to today; never later than today. */
  payment_date?: string;
  /** Defaults to OTHER. */
  payment_method?: string;
  /** Defaults to PAYMENT. */
  payment_type?: string;
  /** Defaults to PAID or PARTIAL by whether the amount covers the invoice's open balance. */
  status?: PaymentStatus;
  transaction_id?: string | null;
  remote_id?: string | null;
  notes?: string | null;
}

const TEXT_LIMITS = { payment_method: 40, payment_type: 40, transaction_id: 200, remote_id: 200, notes: 5000 } as const;

/** Field checks the HTTP schema also makes, repeated here because import and scripts call the core directly. */
export function validatePaymentInput(input: NewPaymentInput, today: string): FieldErrors {
  const errors: FieldErrors = {};
  const add = (field: string, message: string) => (errors[field] ??= []).push(message);
  if (!isUuid(input.invoice)) add('invoice', 'Must be an invoice id (UUID)');
  if (!Number.isFinite(input.amount) || input.amount <= 0) add('amount', 'Must be a number greater than zero');
  else if (!hasAtMostTwoDecimals(input.amount)) add('amount', 'Use at most two decimals');
  else if (toMinor(input.amount) < 1) add('amount', 'Must be at least 0.01');
  else if (toMinor(input.amount) > MAX_PAYMENT_MINOR) add('amount', 'Is larger than any payment this ledger accepts');
  if (input.payment_date !== undefined) {
    if (!isValidDate(input.payment_date)) add('payment_date', 'Must be a date (YYYY-MM-DD)');
    else if (input.payment_date > today) add('payment_date', 'Cannot be in the future');
  }
  if (input.status !== undefined && !(RECORDABLE_STATUSES as readonly string[]).includes(input.status)) {
    add('status', `Must be one of ${RECORDABLE_STATUSES.join(', ')}; void a payment with its void operation`);
  }
  for (const [field, max] of Object.entries(TEXT_LIMITS)) {
    const value = input[field as keyof typeof TEXT_LIMITS];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string') add(field, 'Must be text');
    else if (value.length > max) add(field, `Use at most ${max} characters`);
    else if ((field === 'payment_method' || field === 'payment_type') && normalizePaymentMethod(value) === '') add(field, 'Must not be blank');
  }
  return errors;
}

async function loadInvoiceForPayment(tx: CommandTx, companyId: string, invoiceId: string) {
  const invoice = await tx.db
    .selectFrom('invoices')
    .select(['id', 'invoice_number', 'balance', 'closing_reason'])
    .where('id', '=', invoiceId)
    .where('company_id', '=', companyId)
    .executeTakeFirst();
  if (!invoice) throw new ValidationError('The payment is invalid', { invoice: ['No such invoice in this company'] });
  if (!acceptsPayments(invoice.closing_reason)) {
    throw new ConflictError(`Invoice ${invoice.invoice_number} is closed as ${invoice.closing_reason}: it takes no payments`, 'invoice_closed');
  }
  return invoice;
}

/** Recomputes the invoice's money state and records it as a change of the invoice. */
async function settleInvoice(tx: CommandTx, invoiceId: string): Promise<void> {
  const totals = await recomputeInvoiceBalance(tx.db, invoiceId, tx.now);
  await tx.record('invoice', invoiceId, 'update', { ...totals });
}

/**
 * Inserts a payment inside an open command (the import uses this too) and brings its invoice up to
 * date. Returns the new payment's id.
 */
export async function insertPayment(tx: CommandTx, companyId: string, input: NewPaymentInput): Promise<string> {
  const errors = validatePaymentInput(input, tx.today);
  if (Object.keys(errors).length) throw new ValidationError('The payment is invalid', errors);
  const invoice = await loadInvoiceForPayment(tx, companyId, input.invoice.toLowerCase());
  const remoteId = blankToNull(input.remote_id);
  if (remoteId) {
    const taken = await tx.db.selectFrom('payments').select('id').where('company_id', '=', companyId).where('remote_id', '=', remoteId).executeTakeFirst();
    if (taken) throw new ConflictError(`A payment with remote_id ${remoteId} already exists`, 'duplicate_remote_id');
  }
  const amount = toMinor(input.amount);
  const row = {
    id: newId(),
    company_id: companyId,
    invoice_id: invoice.id,
    amount,
    payment_date: input.payment_date ?? tx.today,
    payment_method: normalizePaymentMethod(input.payment_method ?? 'OTHER'),
    payment_type: normalizePaymentType(input.payment_type ?? 'PAYMENT'),
    status: input.status ?? settledStatus(amount, invoice.balance),
    transaction_id: blankToNull(input.transaction_id),
    remote_id: remoteId,
    notes: blankToNull(input.notes),
    voided_at: null,
    created_at: tx.now,
    updated_at: tx.now,
  };
  await tx.db.insertInto('payments').values(row).execute();
  const { id, company_id, created_at, updated_at, ...data } = row;
  await tx.record('payment', id, 'insert', data);
  if (SETTLED_STATUSES.includes(row.status)) await settleInvoice(tx, invoice.id);
  return id;
}

export async function recordPayment(engine: Pick<Engine, 'db' | 'clock'>, scope: Scope, input: NewPaymentInput): Promise<PaymentDto> {
  return runCommand(engine, 'record_payment', scope, async (tx) => {
    const id = await insertPayment(tx, scope.companyId, input);
    const payment = await getPayment(tx.db, scope.companyId, id);
    // A payment changes what is owed: the proposals drafted on the old balance are withdrawn with it.
    if (SETTLED_STATUSES.includes(payment.status)) {
      const invoice = await tx.db.selectFrom('invoices').select(['customer_id', 'balance']).where('id', '=', payment.invoice).executeTakeFirstOrThrow();
      await withdrawProposals(tx, scope.companyId, { kind: 'payment', customerId: invoice.customer_id, invoiceId: payment.invoice, paidInFull: invoice.balance <= 0, on: payment.payment_date });
    }
    return payment;
  });
}

const COMMAND_NAMES: Record<PaymentOperation, string> = { void: 'void_payment', settle: 'settle_payment', fail: 'fail_payment' };

/**
 * Void, settle or fail a payment (see operationChanges). Repeating an operation that already took
 * effect returns the payment unchanged and writes nothing.
 */
export async function changePaymentStatus(
  engine: Pick<Engine, 'db' | 'clock'>,
  scope: Scope,
  paymentId: string,
  operation: PaymentOperation,
  reason: string | null = null,
): Promise<PaymentDto> {
  return runCommand(engine, COMMAND_NAMES[operation], scope, async (tx) => {
    const payment = await tx.db
      .selectFrom('payments')
      .select(['id', 'invoice_id', 'amount', 'status'])
      .where('id', '=', paymentId)
      .where('company_id', '=', scope.companyId)
      .executeTakeFirst();
    if (!payment) throw new NotFoundError('Payment', paymentId);
    if (!operationChanges(payment.status, operation)) return getPayment(tx.db, scope.companyId, payment.id);
    let status: PaymentStatus;
    if (operation === 'settle') {
      const invoice = await loadInvoiceForPayment(tx, scope.companyId, payment.invoice_id);
      status = settledStatus(payment.amount, invoice.balance);
    } else {
      status = operation === 'void' ? 'VOIDED' : 'FAILED';
    }
    const voidedAt = operation === 'void' ? tx.now : null;
    const statusReason = blankToNull(reason);
    await tx.db.updateTable('payments').set({ status, voided_at: voidedAt, status_reason: statusReason, updated_at: tx.now }).where('id', '=', payment.id).execute();
    await tx.record('payment', payment.id, 'update', { status, previous_status: payment.status, status_reason: statusReason, ...(voidedAt ? { voided_at: voidedAt } : {}) });
    await settleInvoice(tx, payment.invoice_id);
    return getPayment(tx.db, scope.companyId, payment.id);
  });
}
