/**
 * Remittance advices: a customer says (on the payment portal, issue 39) which invoices a payment
 * is for, its amount, date and reference. The matching takes one as a hint for a credit of the
 * same amount booked within a couple of weeks of it; it never applies a credit by itself.
 */
import { type CommandTx } from '../engine';
import { ValidationError, type FieldErrors } from '../errors';
import { isValidDate } from '../dates';
import { newId } from '../ids';

export interface RemittanceAdvice {
  customerId: string;
  invoiceIds: string[];
  /** The day the customer says they paid (YYYY-MM-DD). */
  paidOn: string;
  /** Minor units, more than zero. */
  amount: number;
  reference: string | null;
}

/** Records an advice inside the caller's command (the portal's); returns its id. Invoices must be the customer's. */
export async function recordRemittanceAdvice(tx: CommandTx, companyId: string, advice: RemittanceAdvice): Promise<string> {
  const errors: FieldErrors = {};
  if (!Number.isSafeInteger(advice.amount) || advice.amount <= 0) errors.amount = ['Must be more than zero'];
  if (!isValidDate(advice.paidOn)) errors.paid_on = ['Must be a date (YYYY-MM-DD)'];
  if (!advice.invoiceIds.length) errors.invoice_ids = ['Name at least one invoice'];
  const ids = [...new Set(advice.invoiceIds.map((id) => id.toLowerCase()))];
  const found = ids.length
    ? await tx.db.selectFrom('invoices').select('id').where('company_id', '=', companyId).where('customer_id', '=', advice.customerId).where('id', 'in', ids).execute()
    : [];
  if (found.length !== ids.length) (errors.invoice_ids ??= []).push("Every invoice must be one of this customer's");
  if (Object.keys(errors).length) throw new ValidationError('The remittance advice is invalid', errors);
  const row = {
    id: newId(),
    company_id: companyId,
    customer_id: advice.customerId,
    invoice_ids: JSON.stringify(ids),
    paid_on: advice.paidOn,
    amount: advice.amount,
    reference: advice.reference?.trim().slice(0, 200) || null,
    created_at: tx.now,
  };
  await tx.db.insertInto('bank_remittance_advices').values(row).execute();
  await tx.record('bank_remittance_advice', row.id, 'insert', row);
  return row.id;
}
