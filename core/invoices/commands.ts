/**
 * Invoice writes: create, update (PATCH), replace (PUT) and bulk update. Each is one command (one
 * transaction, every row written recorded); any error rolls the whole command back.
 */
import { sql, type Transaction } from 'kysely';
import type { Database } from '../db/schema';
import { type CommandTx, type Engine, runCommand, type Scope } from '../engine';
import { ConflictError, type FieldErrors, NotFoundError, ValidationError } from '../errors';
import { newId } from '../ids';
import { toMinor } from '../money';
import { recomputeInvoiceBalance } from '../payments/balance';
import { applyLabelChanges, assignmentId, type LabelAssignment } from './labels';
import { amountProblems, defaultDueDate, dueDateProblems, generatedNumber, invoiceNumberProblems, isPaymentLink, MAX_BULK_IDS, missingIds } from './rules';
import { chunks } from '../chunks';

export interface CreateInvoiceInput {
  customer: string;
  total_amount: number;
  issue_date?: string;
  due_date?: string;
  number?: string;
  payment_link?: string | null;
  next_follow_up_date?: string | null;
  label_ids?: string[];
}

export interface UpdateInvoiceInput {
  due_date?: string;
  payment_link?: string | null;
  next_follow_up_date?: string | null;
  /** Replaces the invoice's whole label set. */
  label_ids?: string[];
}

export interface ReplaceInvoiceInput {
  customer: string;
  total_amount: number;
  invoice_date: string;
  due_date: string;
  number: string;
  /** Cleared when omitted: PUT replaces the record. */
  payment_link?: string | null;
  next_follow_up_date?: string | null;
  /** Replaces the label set when given; labels are left alone when omitted. */
  label_ids?: string[];
}

export interface BulkUpdateInput {
  invoice_ids: string[];
  updates?: { due_date?: string; next_follow_up_date?: string | null; payment_link?: string | null };
  add_labels?: string[];
  remove_labels?: string[];
}

type Tx = Transaction<Database>;

function addError(errors: FieldErrors, field: string, messages: string[]): void {
  if (messages.length) (errors[field] ??= []).push(...messages);
}

function throwIfAny(errors: FieldErrors): void {
  if (Object.keys(errors).length) throw new ValidationError('The invoice data is invalid', errors);
}

const lower = (ids: readonly string[]) => [...new Set(ids.map((id) => id.toLowerCase()))];

async function findCustomer(tx: Tx, companyId: string, customerId: string) {
  return tx
    .selectFrom('customers')
    .select(['id', 'name', 'currency', 'payment_terms_days'])
    .where('company_id', '=', companyId)
    .where('id', '=', customerId.toLowerCase())
    .executeTakeFirst();
}

/** Adds an error under `field` naming the ids among `ids` that are not labels of this company. */
async function checkLabels(tx: Tx, companyId: string, ids: string[], errors: FieldErrors, field: string): Promise<void> {
  if (!ids.length) return;
  const found = await tx.selectFrom('labels').select('id').where('company_id', '=', companyId).where('id', 'in', ids).execute();
  const unknown = missingIds(ids, found.map((l) => l.id));
  if (unknown.length) addError(errors, field, [`unknown label ids: ${unknown.join(', ')}`]);
}

async function numberTaken(tx: Tx, companyId: string, number: string, exceptId?: string): Promise<boolean> {
  let q = tx.selectFrom('invoices').select('id').where('company_id', '=', companyId).where('invoice_number', '=', number);
  if (exceptId) q = q.where('id', '<>', exceptId);
  return (await q.executeTakeFirst()) !== undefined;
}

async function ensureNumberFree(tx: Tx, companyId: string, number: string, exceptId?: string): Promise<void> {
  if (await numberTaken(tx, companyId, number, exceptId)) {
    throw new ConflictError(`Invoice number ${number} is already used in this company`, 'duplicate_invoice_number');
  }
}

/**
 * The next free INV-nnnnnn of the company, counting on from its number of invoices (from
 * invoice_due_totals: no scan, and nothing of other companies shows in the number).
 */
async function nextNumber(tx: Tx, companyId: string): Promise<string> {
  const { count } = await tx
    .selectFrom('invoice_due_totals')
    .select(sql<number>`coalesce(sum(invoice_count), 0)`.as('count'))
    .where('company_id', '=', companyId)
    .executeTakeFirstOrThrow();
  for (let n = Number(count) + 1; ; n++) {
    const candidate = generatedNumber(n);
    if (!(await numberTaken(tx, companyId, candidate))) return candidate;
  }
}

function paymentLinkProblems(value: string | null | undefined): string[] {
  return value === undefined || value === null || isPaymentLink(value) ? [] : ['must be an absolute http(s) URL'];
}

/** The columns an update (PATCH or bulk) sets: the fields given, omitted ones left alone. */
function editedFields(input: { due_date?: string; payment_link?: string | null; next_follow_up_date?: string | null }): Record<string, unknown> {
  const set: Record<string, unknown> = {};
  if (input.due_date !== undefined) set.due_date = input.due_date;
  if (input.payment_link !== undefined) set.payment_link = input.payment_link;
  if (input.next_follow_up_date !== undefined) set.next_follow_up_date = input.next_follow_up_date;
  return set;
}

/** Makes the invoice's label set exactly `labelIds`, recording each assignment added or removed. */
async function replaceLabels(tx: CommandTx, companyId: string, invoiceId: string, labelIds: string[]): Promise<boolean> {
  const current = (await tx.db.selectFrom('invoice_labels').select('label_id').where('invoice_id', '=', invoiceId).execute()).map((r) => r.label_id);
  const wanted = new Set(labelIds);
  const remove = current.filter((id) => !wanted.has(id));
  const add = labelIds.filter((id) => !current.includes(id));
  await applyLabelChanges(tx, companyId, add.map((label) => [invoiceId, label]), remove.map((label) => [invoiceId, label]));
  return add.length + remove.length > 0;
}

/** Ids per statement in bulk updates: well under SQLite's parameter limit. */
const CHUNK = 400;

export async function createInvoice(engine: Engine, scope: Scope, input: CreateInvoiceInput): Promise<string> {
  return runCommand(engine, 'create_invoice', scope, async (tx) => {
    const errors: FieldErrors = {};
    addError(errors, 'total_amount', amountProblems(input.total_amount));
    addError(errors, 'payment_link', paymentLinkProblems(input.payment_link));
    const customer = await findCustomer(tx.db, scope.companyId, input.customer);
    if (!customer) addError(errors, 'customer', ['is not a customer of this company']);
    const labelIds = lower(input.label_ids ?? []);
    await checkLabels(tx.db, scope.companyId, labelIds, errors, 'label_ids');
    const number = input.number?.trim();
    if (input.number !== undefined) addError(errors, 'number', invoiceNumberProblems(input.number));
    const issueDate = input.issue_date ?? tx.today;
    const dueDate = input.due_date ?? (customer ? defaultDueDate(issueDate, customer.payment_terms_days) : issueDate);
    addError(errors, 'due_date', dueDateProblems(issueDate, dueDate));
    throwIfAny(errors);
    if (number) await ensureNumberFree(tx.db, scope.companyId, number);
    const total = toMinor(input.total_amount);
    const id = newId();
    const row = {
      id,
      company_id: scope.companyId,
      customer_id: customer!.id,
      customer_name: customer!.name,
      invoice_number: number || (await nextNumber(tx.db, scope.companyId)),
      invoice_date: issueDate,
      due_date: dueDate,
      currency: customer!.currency,
      transaction_type: 'invoice',
      total_amount: total,
      paid_amount: 0,
      balance: total,
      payment_link: input.payment_link ?? null,
      next_follow_up_date: input.next_follow_up_date ?? null,
      created_at: tx.now,
      updated_at: tx.now,
    };
    await tx.db.insertInto('invoices').values(row).execute();
    await tx.record('invoice', id, 'insert', row);
    await applyLabelChanges(tx, scope.companyId, labelIds.map((label) => [id, label]), []);
    return id;
  });
}

async function findInvoice(tx: Tx, companyId: string, invoiceId: string) {
  const invoice = await tx
    .selectFrom('invoices')
    .select(['id', 'customer_id', 'invoice_date', 'total_amount', 'customer_location_id'])
    .where('company_id', '=', companyId)
    .where('id', '=', invoiceId.toLowerCase())
    .executeTakeFirst();
  if (!invoice) throw new NotFoundError('Invoice', invoiceId);
  return invoice;
}

export async function updateInvoice(engine: Engine, scope: Scope, invoiceId: string, input: UpdateInvoiceInput): Promise<void> {
  await runCommand(engine, 'update_invoice', scope, async (tx) => {
    const invoice = await findInvoice(tx.db, scope.companyId, invoiceId);
    const errors: FieldErrors = {};
    if (input.due_date !== undefined) addError(errors, 'due_date', dueDateProblems(invoice.invoice_date, input.due_date));
    addError(errors, 'payment_link', paymentLinkProblems(input.payment_link));
    const labelIds = input.label_ids === undefined ? undefined : lower(input.label_ids);
    await checkLabels(tx.db, scope.companyId, labelIds ?? [], errors, 'label_ids');
    throwIfAny(errors);
    const set = editedFields(input);
    const labelsChanged = labelIds ? await replaceLabels(tx, scope.companyId, invoice.id, labelIds) : false;
    if (!Object.keys(set).length && !labelsChanged) return;
    set.updated_at = tx.now;
    await tx.db.updateTable('invoices').set(set).where('id', '=', invoice.id).execute();
    await tx.record('invoice', invoice.id, 'update', set);
  });
}

export async function replaceInvoice(engine: Engine, scope: Scope, invoiceId: string, input: ReplaceInvoiceInput): Promise<void> {
  await runCommand(engine, 'replace_invoice', scope, async (tx) => {
    const invoice = await findInvoice(tx.db, scope.companyId, invoiceId);
    const errors: FieldErrors = {};
    addError(errors, 'total_amount', amountProblems(input.total_amount));
    addError(errors, 'payment_link', paymentLinkProblems(input.payment_link));
    addError(errors, 'number', invoiceNumberProblems(input.number));
    addError(errors, 'due_date', dueDateProblems(input.invoice_date, input.due_date));
    const customer = await findCustomer(tx.db, scope.companyId, input.customer);
    if (!customer) addError(errors, 'customer', ['is not a customer of this company']);
    const labelIds = input.label_ids === undefined ? undefined : lower(input.label_ids);
    await checkLabels(tx.db, scope.companyId, labelIds ?? [], errors, 'label_ids');
    throwIfAny(errors);
    const number = input.number.trim();
    await ensureNumberFree(tx.db, scope.companyId, number, invoice.id);
    const total = toMinor(input.total_amount);
    const sameCustomer = customer!.id === invoice.customer_id;
    const set: Record<string, unknown> = {
      customer_id: customer!.id,
      customer_name: customer!.name,
      // A location belongs to a customer: it cannot follow the invoice to another one.
      customer_location_id: sameCustomer ? invoice.customer_location_id : null,
      invoice_number: number,
      invoice_date: input.invoice_date,
      due_date: input.due_date,
      total_amount: total,
      payment_link: input.payment_link ?? null,
      next_follow_up_date: input.next_follow_up_date ?? null,
      updated_at: tx.now,
    };
    await tx.db.updateTable('invoices').set(set).where('id', '=', invoice.id).execute();
    // A new total moves the balance and may open or close the invoice: the payments decide.
    const totals = total === invoice.total_amount ? {} : await recomputeInvoiceBalance(tx.db, invoice.id, tx.now);
    await tx.record('invoice', invoice.id, 'update', { ...set, ...totals });
    if (labelIds) await replaceLabels(tx, scope.companyId, invoice.id, labelIds);
  });
}

export async function bulkUpdateInvoices(engine: Engine, scope: Scope, input: BulkUpdateInput): Promise<{ updated: number }> {
  return runCommand(engine, 'bulk_update_invoices', scope, async (tx) => {
    const ids = lower(input.invoice_ids);
    const add = lower(input.add_labels ?? []);
    const remove = lower(input.remove_labels ?? []);
    const updates = input.updates ?? {};
    const errors: FieldErrors = {};
    if (ids.length === 0) addError(errors, 'invoice_ids', ['must list at least one invoice']);
    if (ids.length > MAX_BULK_IDS) addError(errors, 'invoice_ids', [`must list at most ${MAX_BULK_IDS} invoices`]);
    throwIfAny(errors);
    const found = await tx.db.selectFrom('invoices').select(['id', 'invoice_date']).where('company_id', '=', scope.companyId).where('id', 'in', ids).execute();
    const unknownInvoices = missingIds(ids, found.map((r) => r.id));
    if (unknownInvoices.length) addError(errors, 'invoice_ids', [`unknown invoice ids: ${unknownInvoices.join(', ')}`]);
    await checkLabels(tx.db, scope.companyId, add, errors, 'add_labels');
    await checkLabels(tx.db, scope.companyId, remove, errors, 'remove_labels');
    const both = add.filter((id) => remove.includes(id));
    if (both.length) addError(errors, 'remove_labels', [`labels both added and removed: ${both.join(', ')}`]);
    addError(errors, 'updates.payment_link', paymentLinkProblems(updates.payment_link));
    if (updates.due_date !== undefined) {
      const before = found.filter((r) => dueDateProblems(r.invoice_date, updates.due_date!).length).map((r) => r.id);
      if (before.length) addError(errors, 'updates.due_date', [`is before the invoice date of: ${before.join(', ')}`]);
    }
    const set = editedFields(updates);
    if (!Object.keys(set).length && !add.length && !remove.length) {
      addError(errors, 'non_field_errors', ['nothing to change: give updates, add_labels or remove_labels']);
    }
    throwIfAny(errors);

    set.updated_at = tx.now;
    for (const chunk of chunks(ids, CHUNK)) {
      await tx.db.updateTable('invoices').set(set).where('company_id', '=', scope.companyId).where('id', 'in', chunk).execute();
    }
    for (const id of ids) await tx.record('invoice', id, 'update', set);
    if (add.length || remove.length) {
      const existing = new Set<string>();
      for (const chunk of chunks(ids, CHUNK)) {
        const rows = await tx.db
          .selectFrom('invoice_labels')
          .select(['invoice_id', 'label_id'])
          .where('invoice_id', 'in', chunk)
          .where('label_id', 'in', [...add, ...remove])
          .execute();
        for (const r of rows) existing.add(assignmentId(r.invoice_id, r.label_id));
      }
      const toAdd = ids.flatMap((id) => add.filter((l) => !existing.has(assignmentId(id, l))).map((l): LabelAssignment => [id, l]));
      const toRemove = ids.flatMap((id) => remove.filter((l) => existing.has(assignmentId(id, l))).map((l): LabelAssignment => [id, l]));
      await applyLabelChanges(tx, scope.companyId, toAdd, toRemove);
    }
    return { updated: ids.length };
  });
}
